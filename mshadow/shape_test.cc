#include "mshadow/shape.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>
#include <string>

namespace mshadow {
namespace {

using ::testing::HasSubstr;

template <int dim>
std::string Str(const Shape<dim>& s) {
  std::ostringstream os;
  os << s;
  return os.str();
}

TEST(ShapeTest, ConstructorsAndIndexing) {
  Shape<3> s = Shape3(5, 3, 6);
  EXPECT_EQ(s[0], 5);
  EXPECT_EQ(s[1], 3);
  EXPECT_EQ(s[2], 6);
  Shape<3> copy(s);
  EXPECT_EQ(copy, s);
  copy[1] = 4;
  EXPECT_NE(copy, s);
  EXPECT_EQ(Shape<2>()[1], 0);  // default shapes hold zeros, never garbage
  EXPECT_EQ(Shape1(7)[0], 7);
  EXPECT_EQ(Shape2(1, 2), Shape2(1, 2));
  EXPECT_EQ(Shape4(1, 2, 3, 4)[3], 4);
  EXPECT_EQ(Shape5(1, 2, 3, 4, 5)[4], 5);
}

TEST(ShapeTest, SeedExamples) {
  // (5, 3, 6) -> 90
  EXPECT_EQ(Shape3(5, 3, 6).Size(), 90);
  // FlatTo1D: (5, 3, 6) -> (90)
  EXPECT_EQ(Shape3(5, 3, 6).FlatTo1D(), Shape1(90));
  // FlatTo2D keeps the lowest dimension: (5, 3, 6) -> (15, 6)
  EXPECT_EQ(Shape3(5, 3, 6).FlatTo2D(), Shape2(15, 6));
  // SubShape: (3, 2, 6, 4) -> (2, 6, 4)
  EXPECT_EQ(Shape4(3, 2, 6, 4).SubShape(), Shape3(2, 6, 4));
  // Slice<2, 5>: (3, 4, 5, 6, 7) -> (5, 6, 7)
  Shape<5> ss = Shape5(3, 4, 5, 6, 7);
  Shape<3> sss = ss.Slice<2, 5>();
  EXPECT_EQ(Str(sss), "(5,6,7)");
  // ProdShape over [1, 3)
  EXPECT_EQ(ss.ProdShape(1, 3), 20);
  EXPECT_EQ(ss.ProdShape(2, 2), 1);
}

TEST(ShapeTest, PrintsAsPythonTuple) {
  EXPECT_EQ(Str(Shape1(3)), "(3,)");
  EXPECT_EQ(Str(Shape2(3, 4)), "(3,4)");
  EXPECT_EQ(Str(Shape0()), "()");
}

TEST(ShapeTest, SizeBeyond32Bits) {
  Shape<3> big = Shape3(1 << 20, 1 << 10, 1 << 5);  // 2^35 elements
  EXPECT_EQ(big.Size(), index_t{1} << 35);
  EXPECT_EQ(big.FlatTo2D()[0], index_t{1} << 30);
  static_assert(sizeof(index_t) == 8, "index_t must count beyond 2^32");
  static_assert(static_cast<index_t>(-1) < 0, "index_t is signed");
}

TEST(ShapeTest, ZeroAndOneDimensional) {
  EXPECT_EQ(Shape0().Size(), 1);
  EXPECT_EQ(Shape1(4).FlatTo2D(), Shape2(1, 4));
  EXPECT_EQ(Shape2(0, 4).Size(), 0);
}

TEST(ShapeTest, ConstantsAreUsableByReference) {
  const int& dim = Shape<4>::kDimension;  // odr-use: must link
  const int& sub = Shape<4>::kSubdim;
  EXPECT_EQ(dim, 4);
  EXPECT_EQ(sub, 3);
}

TEST(ConvertLayoutTest, FourDimensional) {
  Shape<4> nchw = Shape4(2, 3, 5, 7);
  EXPECT_EQ(ConvertLayout(nchw, kNCHW, kNHWC), Shape4(2, 5, 7, 3));
  EXPECT_EQ(ConvertLayout(Shape4(2, 5, 7, 3), kNHWC, kNCHW), nchw);
  EXPECT_EQ(ConvertLayout(nchw, kNCHW, kNCHW), nchw);
  EXPECT_EQ(ConvertLayout(nchw, kNCHW, kCHWN), Shape4(3, 5, 7, 2));
}

TEST(ConvertLayoutTest, FiveAndThreeDimensional) {
  Shape<5> ncdhw = Shape5(2, 3, 4, 5, 6);
  EXPECT_EQ(ConvertLayout(ncdhw, kNCDHW, kNDHWC), Shape5(2, 4, 5, 6, 3));
  EXPECT_EQ(ConvertLayout(Shape5(2, 4, 5, 6, 3), kNDHWC, kNCDHW), ncdhw);
  EXPECT_EQ(ConvertLayout(Shape3(2, 3, 4), kNCW, kNWC), Shape3(2, 4, 3));
}

TEST(ConvertLayoutTest, WrongRankLayoutIsAnError) {
  try {
    ConvertLayout(Shape4(1, 2, 3, 4), kNCDHW, kNCHW);
    FAIL() << "expected dmlc::Error";
  } catch (const dmlc::Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("invalid source layout NCDHW"));
    EXPECT_THAT(e.what(), HasSubstr("valid: NCHW, NHWC, CHWN"));
  }
  EXPECT_THROW(ConvertLayout(Shape5(1, 2, 3, 4, 5), kNCDHW, 99), dmlc::Error);
}

}  // namespace
}  // namespace mshadow
