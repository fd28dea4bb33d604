#include "mshadow/tshape.h"

#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mshadow {
namespace {

using ::testing::HasSubstr;

// An in-memory dmlc::Stream: Write appends, Read consumes and returns what it could.
class MemoryStream {
 public:
  void Write(const void* ptr, size_t size) {
    buffer_.append(static_cast<const char*>(ptr), size);
  }
  size_t Read(void* ptr, size_t size) {
    const size_t n = std::min(size, buffer_.size() - read_);
    std::memcpy(ptr, buffer_.data() + read_, n);
    read_ += n;
    return n;
  }
  std::string& buffer() { return buffer_; }

 private:
  std::string buffer_;
  size_t read_ = 0;
};

std::string Print(const TShape& s) {
  std::ostringstream os;
  os << s;
  return os.str();
}

TEST(TShapeTest, Constructors) {
  EXPECT_EQ(TShape().ndim(), 0);
  const TShape ones(3);
  EXPECT_EQ(Print(ones), "(1,1,1)");
  EXPECT_EQ(Print(TShape(6)), "(1,1,1,1,1,1)") << "all-ones on the heap too";
  EXPECT_THROW(TShape(-1), dmlc::Error);
  const std::vector<index_t> dims = {2, 3, 4, 5, 6};
  EXPECT_EQ(Print(TShape(dims.begin(), dims.end())), "(2,3,4,5,6)");
  EXPECT_EQ(Print(TShape{7, 8}), "(7,8)");
  EXPECT_EQ(Print(TShape(Shape3(1, 2, 3))), "(1,2,3)");
  Shape<5> five = Shape5(1, 2, 3, 4, 5);
  EXPECT_EQ(Print(TShape(std::move(five))), "(1,2,3,4,5)");
}

TEST(TShapeTest, CopyAndAssignAcrossStackAndHeap) {
  TShape small{1, 2};
  TShape big{1, 2, 3, 4, 5, 6, 7};
  TShape copy(big);
  EXPECT_EQ(copy, big);
  copy[0] = 9;
  EXPECT_EQ(big[0], 1) << "a copy owns its own dimensions";
  copy = small;
  EXPECT_EQ(copy, small);
  copy = big;
  EXPECT_EQ(copy, big);
  copy = std::vector<index_t>{4, 4, 4, 4, 4};
  EXPECT_EQ(Print(copy), "(4,4,4,4,4)");
  copy = Shape2(3, 2);
  EXPECT_EQ(Print(copy), "(3,2)");
  copy = copy;  // self-assignment
  EXPECT_EQ(Print(copy), "(3,2)");
  // Churn between ranks: every size class and back, many times.
  TShape churn;
  for (int round = 0; round < 50; ++round) {
    for (int rank = 0; rank <= 9; ++rank) {
      std::vector<index_t> d(rank, round + rank);
      churn = d;
      ASSERT_EQ(churn.ndim(), rank);
      for (int i = 0; i < rank; ++i) ASSERT_EQ(churn[i], round + rank);
    }
  }
}

TEST(TShapeTest, MoveLeavesTheSourceEmpty) {
  TShape heap{1, 2, 3, 4, 5, 6};
  const index_t* block = heap.data();
  TShape moved(std::move(heap));
  EXPECT_EQ(moved.data(), block) << "the heap block moves, no copy";
  EXPECT_EQ(Print(moved), "(1,2,3,4,5,6)");
  EXPECT_EQ(heap.ndim(), 0);  // NOLINT(bugprone-use-after-move): the state is specified
  EXPECT_EQ(Print(heap), "()");
  heap = TShape{3, 4};  // a moved-from shape is reusable
  EXPECT_EQ(Print(heap), "(3,4)");

  TShape stack{7, 8};
  TShape target{1, 2, 3, 4, 5, 6, 7, 8};
  target = std::move(stack);
  EXPECT_EQ(Print(target), "(7,8)");
  EXPECT_EQ(stack.ndim(), 0);  // NOLINT(bugprone-use-after-move)
}

TEST(TShapeTest, Comparisons) {
  EXPECT_TRUE((TShape{2, 3} == TShape{2, 3}));
  EXPECT_TRUE((TShape{2, 3} != TShape{3, 2}));
  EXPECT_TRUE((TShape{2, 3} != TShape{2, 3, 1}));
  EXPECT_TRUE((TShape{1, 2, 3, 4, 5} == TShape{1, 2, 3, 4, 5}));
  EXPECT_TRUE((TShape{1, 2, 3, 4, 5} != TShape{1, 2, 3, 4, 6}));
  EXPECT_TRUE((TShape{2, 3} == Shape2(2, 3)));
  EXPECT_TRUE((TShape{2, 3} != Shape2(3, 2)));
  EXPECT_TRUE((TShape{2, 3} != Shape3(2, 3, 1)));
  EXPECT_TRUE((TShape{1, 2, 3, 4, 5} == Shape5(1, 2, 3, 4, 5)));
}

TEST(TShapeTest, SizesAndFlattening) {
  const TShape s{2, 3, 4, 5};
  EXPECT_EQ(s.Size(), 120);
  EXPECT_EQ(TShape().Size(), 1) << "the empty product";
  EXPECT_EQ(s.ProdShape(1, 3), 12);
  EXPECT_EQ(s.ProdShape(2, 2), 1);
  EXPECT_THROW(s.ProdShape(3, 5), dmlc::Error);
  EXPECT_THROW(s.ProdShape(2, 1), dmlc::Error);
  EXPECT_EQ(s.FlatTo2D(), Shape2(24, 5));
  EXPECT_EQ(TShape().FlatTo2D(), Shape2(0, 0));
  EXPECT_EQ(s.FlatTo3D(1), Shape3(2, 3, 20));
  EXPECT_EQ(s.FlatTo3D(1, 2), Shape3(2, 12, 5));
  EXPECT_EQ(s.FlatTo3D(0, 3), Shape3(1, 120, 1));
  EXPECT_EQ(TShape().FlatTo3D(0), Shape3(0, 0, 0));
  EXPECT_THROW(s.FlatTo3D(2, 1), dmlc::Error);
  EXPECT_THROW(s.FlatTo3D(4), dmlc::Error);
  EXPECT_THROW(s.FlatTo3D(-1, 0), dmlc::Error);
}

TEST(TShapeTest, SizeOverflowIsAnErrorNotWrapAround) {
  const index_t big = index_t{1} << 40;
  EXPECT_EQ((TShape{big, 4}).Size(), big * 4) << "more than 2^32 elements is fine";
  try {
    (TShape{big, big}).Size();
    FAIL();
  } catch (const dmlc::Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("the number of elements of shape (1099511627776,"
                                    "1099511627776) overflows index_t"));
  }
}

TEST(TShapeTest, GetChecksTheRank) {
  const TShape s{2, 3, 4};
  EXPECT_EQ(s.get<3>(), Shape3(2, 3, 4));
  try {
    s.get<2>();
    FAIL();
  } catch (const dmlc::Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("dimension do not match target dimension 2 vs 3: shape "
                                    "(2,3,4) asked for as Shape<2>"));
  }
}

TEST(TShapeTest, PrintsPythonTuples) {
  EXPECT_EQ(Print(TShape()), "()");
  EXPECT_EQ(Print(TShape{5}), "(5,)");
  EXPECT_EQ(Print(TShape{2, -1, 0}), "(2,-1,0)");
}

// Every example of the seed notes, and more.
TEST(TShapeTest, ReadsEverySyntaxOfTheNotes) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"3", "(3,)"},
      {"(3,5)", "(3,5)"},
      {"(3 , 5)", "(3,5)"},
      {"(3, 4L, 5)", "(3,4,5)"},
      {"  (2,3)", "(2,3)"},
      {"(3,)", "(3,)"},
      {"()", "()"},
      {"( )", "()"},
      {"[4, 5]", "(4,5)"},
      {"(0,-1,-2)", "(0,-1,-2)"},
      {"(1,2,3,4,5,6,7,8,9,10)", "(1,2,3,4,5,6,7,8,9,10)"},
  };
  for (const auto& [text, expected] : cases) {
    std::istringstream is(text);
    TShape s{9, 9};
    EXPECT_TRUE(static_cast<bool>(is >> s)) << text;
    EXPECT_EQ(Print(s), expected) << text;
  }
}

TEST(TShapeTest, MalformedInputFailsTheStreamAndKeepsTheShape) {
  for (const char* text : {"a", "(3,4,a)", "(3,4", "(3 4)", "(,)", "(3,,4)", "(3],", "", "((3))",
                           "(1e3)", "(99999999999999999999)", "-", "(3,4]"}) {
    std::istringstream is(text);
    TShape s{7};
    is >> s;
    EXPECT_TRUE(is.fail()) << "'" << text << "'";
    EXPECT_EQ(Print(s), "(7,)") << "'" << text << "'";
  }
}

TEST(TShapeTest, ReadLeavesWhatFollowsInTheStream) {
  std::istringstream is("(2,3) (4,) 5 rest");
  TShape a, b, c;
  is >> a >> b >> c;
  EXPECT_EQ(Print(a), "(2,3)");
  EXPECT_EQ(Print(b), "(4,)");
  EXPECT_EQ(Print(c), "(5,)");
  std::string rest;
  is >> rest;
  EXPECT_EQ(rest, "rest");
}

TEST(TShapeTest, ParseTShapeTakesWholeTextsOnly) {
  TShape s;
  EXPECT_TRUE(ParseTShape(" (3, 3) ", &s));
  EXPECT_EQ(Print(s), "(3,3)");
  EXPECT_FALSE(ParseTShape("(3,3) x", &s));
  EXPECT_FALSE(ParseTShape("3 4", &s));
  EXPECT_EQ(Print(s), "(3,3)");
}

TEST(TShapeTest, SaveAndLoadRoundTrip) {
  for (const TShape& original : {TShape(), TShape{5}, TShape{2, 3, 4, 5, 6, 7}}) {
    MemoryStream stream;
    original.Save(&stream);
    EXPECT_EQ(stream.buffer().size(), sizeof(index_t) * (1 + original.ndim()));
    TShape loaded{1, 1};
    ASSERT_TRUE(loaded.Load(&stream));
    EXPECT_EQ(loaded, original);
  }
}

TEST(TShapeTest, LoadOfATruncatedOrCorruptStreamFailsCleanly) {
  MemoryStream full;
  (TShape{2, 3, 4, 5, 6}).Save(&full);
  const std::string bytes = full.buffer();
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    MemoryStream truncated;
    truncated.buffer() = bytes.substr(0, cut);
    TShape s{8, 9};
    EXPECT_FALSE(s.Load(&truncated)) << "cut at " << cut;
    EXPECT_EQ(Print(s), "(8,9)") << "a failed Load keeps the shape";
  }
  // A huge rank with no data behind it: fails without trying to allocate it.
  MemoryStream huge;
  const index_t ndim = std::numeric_limits<index_t>::max() / 16;
  huge.Write(&ndim, sizeof(ndim));
  TShape s;
  EXPECT_FALSE(s.Load(&huge));
  MemoryStream negative;
  const index_t minus = -3;
  negative.Write(&minus, sizeof(minus));
  EXPECT_FALSE(s.Load(&negative));
}

}  // namespace
}  // namespace mshadow
