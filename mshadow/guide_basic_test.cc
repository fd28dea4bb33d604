// The basic tour of mshadow's guide, as a test: every value printed there is checked here.
#include <gtest/gtest.h>

#include "mshadow/tensor.h"

using namespace mshadow;        // NOLINT(build/namespaces): written as guide code is
using namespace mshadow::expr;  // NOLINT(build/namespaces)

TEST(GuideBasicTest, Tour) {
  InitTensorEngine<cpu>();
  // Tensors are views of memory the user owns.
  float data[20];
  for (int i = 0; i < 20; ++i) data[i] = static_cast<float>(i);
  Tensor<cpu, 2> ts(data, Shape2(4, 5));
  EXPECT_EQ(ts[2][3], 13.0f);
  EXPECT_EQ(ts.shape_[0], 4);

  // Slicing a row and a range of rows shares memory.
  Tensor<cpu, 1> row = ts[1];
  row[0] = -1.0f;
  EXPECT_EQ(data[5], -1.0f);
  Tensor<cpu, 2> two_rows = ts.Slice(2, 4);
  EXPECT_EQ(two_rows[0][0], 10.0f);

  // Allocate, compute lazily, free.
  Tensor<cpu, 2> lhs = NewTensor<cpu>(Shape2(2, 3), 1.0f);
  Tensor<cpu, 2> rhs = NewTensor<cpu>(Shape2(2, 3), 2.0f);
  Tensor<cpu, 2> out = NewTensor<cpu>(Shape2(2, 3), 0.0f);
  out = lhs + rhs * 2.0f;  // one loop, no temporaries
  EXPECT_EQ(out[1][2], 5.0f);
  out += scalar(1.0f);
  EXPECT_EQ(out[0][0], 6.0f);

  // Matrix product and transposes go to BLAS.
  Tensor<cpu, 2> sq = NewTensor<cpu>(Shape2(2, 2), 0.0f);
  sq = dot(lhs, rhs.T());  // (2,3) x (3,2)
  EXPECT_EQ(sq[0][1], 6.0f);

  // Reductions.
  Tensor<cpu, 1> col = NewTensor<cpu>(Shape1(3), 0.0f);
  col = sum_rows(out);
  EXPECT_EQ(col[2], 12.0f);

  FreeSpace(&lhs);
  FreeSpace(&rhs);
  FreeSpace(&out);
  FreeSpace(&sq);
  FreeSpace(&col);
  ShutdownTensorEngine<cpu>();
}

TEST(GuideBasicTest, ContainerAndCopy) {
  TensorContainer<cpu, 3> a(Shape3(2, 2, 3), 0.5f);
  TensorContainer<cpu, 3> b(Shape3(2, 2, 3));
  Copy(b, a);
  b = b * 4.0f - a;
  EXPECT_EQ(b[1][1][2], 1.5f);
}
