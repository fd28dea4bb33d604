#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "mshadow/tensor.h"

namespace mshadow {
namespace {

using ::testing::HasSubstr;

TEST(TensorTest, ConstructorsAndMembers) {
  float data[30];
  Tensor<cpu, 3> ts(data, Shape3(2, 5, 3));
  EXPECT_EQ(ts.dptr_, data);
  EXPECT_EQ(ts.stride_, 3);
  EXPECT_EQ(ts.stream_, nullptr);
  EXPECT_EQ(ts.size(1), 5);
  EXPECT_EQ(ts.MSize(), 30);
  EXPECT_EQ(ts.MemSize<1>(), 15);
  EXPECT_EQ(ts.MemSize<2>(), 3);
  EXPECT_TRUE(ts.CheckContiguous());
  Stream<cpu> stream;
  Tensor<cpu, 3> with_stride(data, Shape3(2, 5, 2), 3, &stream);
  EXPECT_FALSE(with_stride.CheckContiguous());
  EXPECT_EQ(with_stride.stream_, &stream);
  Tensor<cpu, 2> shape_only(Shape2(4, 7));
  EXPECT_EQ(shape_only.stride_, 7);
  EXPECT_EQ(shape_only.dptr_, nullptr);
  ts.set_stream(&stream);
  EXPECT_EQ(ts.stream_, &stream);
  EXPECT_TRUE(stream.CheckIdle());
  stream.Wait();
  stream.CreateBlasHandle();
}

TEST(TensorTest, IndexingSlicingAndFlattening) {
  std::vector<float> data(2 * 5 * 3);
  std::iota(data.begin(), data.end(), 0.0f);
  Tensor<cpu, 3> ts(data.data(), Shape3(2, 5, 3));
  EXPECT_EQ(ts[1][4][2], 29.0f);
  EXPECT_EQ(ts[1].shape_, Shape2(5, 3));
  Tensor<cpu, 3> slice = ts.Slice(1, 2);
  EXPECT_EQ(slice.shape_, Shape3(1, 5, 3));
  EXPECT_EQ(slice[0][0][0], 15.0f);
  Tensor<cpu, 2> flat = ts.FlatTo2D();
  EXPECT_EQ(flat.shape_, Shape2(10, 3));
  EXPECT_EQ(flat[7][1], 22.0f);
  Tensor<cpu, 1> line = ts.FlatTo1D();
  EXPECT_EQ(line.shape_, Shape1(30));
  EXPECT_EQ(line[29], 29.0f);
  EXPECT_EQ(line.Slice(3, 6)[0], 3.0f);
  EXPECT_EQ(line.Slice(3, 6).size(0), 3);
  EXPECT_EQ(line.FlatTo2D().shape_, Shape2(1, 30));
}

TEST(TensorTest, HandleAssignmentSharesMemoryScalarAssignmentFills) {
  std::vector<float> data(6, 0.0f);
  Tensor<cpu, 2> a(data.data(), Shape2(2, 3));
  Tensor<cpu, 2> b;
  b = a;  // handle copy
  EXPECT_EQ(b.dptr_, a.dptr_);
  b = 4.0f;  // evaluating assignment
  for (float v : data) EXPECT_EQ(v, 4.0f);
  Tensor<cpu, 1> v(data.data(), Shape1(6));
  v = 1.5f;
  EXPECT_EQ(data[5], 1.5f);
}

TEST(EngineTest, NewTensorPadsRowsAndFreeSpaceClears) {
  InitTensorEngine<cpu>();
  Stream<cpu>* stream = NewStream<cpu>();
  Tensor<cpu, 2, float> t = NewTensor<cpu>(Shape2(3, 20), 2.0f, true, stream);
  // Padding 20 floats to 32 would waste more than 1/MSHADOW_MIN_PAD_RATIO: not padded.
  EXPECT_EQ(t.stride_, 20);
  FreeSpace(&t);
  t = NewTensor<cpu>(Shape2(3, 40), 2.0f, true, stream);
  EXPECT_EQ(t.stride_, 48);  // rows padded to 64 bytes
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.dptr_) % 64, 0u);
  EXPECT_EQ(t.stream_, stream);
  for (index_t y = 0; y < 3; ++y)
    for (index_t x = 0; x < 40; ++x) EXPECT_EQ(t[y][x], 2.0f);
  FreeSpace(&t);
  EXPECT_EQ(t.dptr_, nullptr);
  Tensor<cpu, 2, double> unpadded = NewTensor<cpu>(Shape2(3, 5), 1.0, false);
  EXPECT_EQ(unpadded.stride_, 5);
  FreeSpace(&unpadded);
  DeleteStream(stream);
  ShutdownTensorEngine<cpu>();
}

TEST(EngineTest, AllocSpaceFailureIsAnErrorAndLeavesTensorUntouched) {
  Tensor<cpu, 2> huge(Shape2(index_t{1} << 40, index_t{1} << 20));
  try {
    AllocSpace(&huge);
    FAIL() << "expected dmlc::Error";
  } catch (const dmlc::Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("(1099511627776,1048576)"));
  }
  EXPECT_EQ(huge.dptr_, nullptr);
}

TEST(EngineTest, CopyBetweenStridedTensorsAndShapeMismatch) {
  Tensor<cpu, 2> src = NewTensor<cpu>(Shape2(4, 5), 0.0f, true);
  Tensor<cpu, 2> dst = NewTensor<cpu>(Shape2(4, 5), 0.0f, false);
  for (index_t y = 0; y < 4; ++y)
    for (index_t x = 0; x < 5; ++x) src[y][x] = static_cast<float>(y * 10 + x);
  Copy(dst, src);
  for (index_t y = 0; y < 4; ++y)
    for (index_t x = 0; x < 5; ++x) EXPECT_EQ(dst[y][x], y * 10 + x);
  Tensor<cpu, 2> other = NewTensor<cpu>(Shape2(5, 4), 0.0f);
  try {
    Copy(other, src);
    FAIL() << "expected dmlc::Error";
  } catch (const dmlc::Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("(5,4) vs. (4,5)"));
    EXPECT_THAT(e.what(), HasSubstr("Copy"));
  }
  FreeSpace(&src);
  FreeSpace(&dst);
  FreeSpace(&other);
}

TEST(TensorContainerTest, OwnsResizesCopiesAndMoves) {
  TensorContainer<cpu, 2> a(Shape2(3, 4), 1.0f);
  EXPECT_EQ(a.shape_, Shape2(3, 4));
  EXPECT_EQ(a[2][3], 1.0f);
  a[1][1] = 7.0f;
  TensorContainer<cpu, 2> b(a);  // deep copy
  EXPECT_NE(b.dptr_, a.dptr_);
  EXPECT_EQ(b[1][1], 7.0f);
  float* before = a.dptr_;
  a.Resize(Shape2(2, 4));  // fits: memory reused
  EXPECT_EQ(a.dptr_, before);
  EXPECT_EQ(a.shape_, Shape2(2, 4));
  a.Resize(Shape2(30, 40), 3.0f);
  EXPECT_EQ(a[29][39], 3.0f);
  TensorContainer<cpu, 2> c(std::move(b));
  EXPECT_EQ(c[1][1], 7.0f);
  EXPECT_EQ(b.dptr_, nullptr);
  c = a;  // copy assignment resizes
  EXPECT_EQ(c.shape_, Shape2(30, 40));
  c = 2.0f;
  EXPECT_EQ(c[0][0], 2.0f);
  EXPECT_EQ(a[0][0], 3.0f);
  TensorContainer<cpu, 1, double> empty;
  EXPECT_EQ(empty.shape_[0], 0);
  empty.Release();
}

}  // namespace
}  // namespace mshadow
