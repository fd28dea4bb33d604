// Every extension in mshadow/extension.h against a plain loop written from its definition,
// on random data, at sizes that go through the threaded evaluation too; and the errors each
// gives for bad shapes and bad indices.
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "dmlc/testing/error_message.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mshadow/tensor.h"

namespace mshadow {
namespace {

using expr::broadcast;
using ::testing::HasSubstr;

// Containers pad their rows (stride_ >= width): these walk the elements, not the memory.
template <int dim>
std::vector<float> Values(const Tensor<cpu, dim>& t) {
  const Tensor<cpu, 2> rows = t.FlatTo2D();
  std::vector<float> values;
  for (index_t y = 0; y < rows.size(0); ++y) {
    for (index_t x = 0; x < rows.size(1); ++x) values.push_back(rows[y][x]);
  }
  return values;
}

template <int dim>
TensorContainer<cpu, dim> RandomTensor(Shape<dim> shape, unsigned seed) {
  TensorContainer<cpu, dim> t(shape);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  const Tensor<cpu, 2> rows = t.FlatTo2D();
  for (index_t y = 0; y < rows.size(0); ++y) {
    for (index_t x = 0; x < rows.size(1); ++x) rows[y][x] = dist(rng);
  }
  return t;
}

// Element-by-element equality (within tolerance) of two tensors of one shape.
template <int dim>
void ExpectAllNear(const Tensor<cpu, dim>& actual, const Tensor<cpu, dim>& expected,
                   float tolerance) {
  ASSERT_EQ(actual.shape_, expected.shape_);
  const std::vector<float> a = Values(actual), e = Values(expected);
  for (size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(a[i], e[i], tolerance) << "element " << i;
}

TEST(BroadcastTest, EveryDimensionAndRepmat) {
  const Shape<4> shape = Shape4(3, 4, 5, 6);
  for (int axis = 0; axis < 4; ++axis) {
    TensorContainer<cpu, 1> src = RandomTensor(Shape1(shape[axis]), axis);
    TensorContainer<cpu, 4> out(shape, 1.0f);
    switch (axis) {
      case 0:
        out += expr::broadcast<0>(src, shape);
        break;
      case 1:
        out += expr::broadcast<1>(src, shape);
        break;
      case 2:
        out += expr::broadcast<2>(src, shape);
        break;
      default:
        out += expr::broadcast<3>(src, shape);
        break;
    }
    for (index_t n = 0; n < 3; ++n)
      for (index_t c = 0; c < 4; ++c)
        for (index_t h = 0; h < 5; ++h)
          for (index_t w = 0; w < 6; ++w) {
            const index_t at[4] = {n, c, h, w};
            ASSERT_EQ(out[n][c][h][w], 1.0f + src[at[axis]]) << "axis " << axis;
          }
  }
  TensorContainer<cpu, 1> bias = RandomTensor(Shape1(7), 9);
  TensorContainer<cpu, 2> rows(Shape2(300, 7));
  rows = expr::repmat(bias, 300) * 2.0f;
  for (index_t y = 0; y < 300; ++y)
    for (index_t x = 0; x < 7; ++x) ASSERT_EQ(rows[y][x], 2.0f * bias[x]);
  TensorContainer<cpu, 1> wrong(Shape1(5));
  EXPECT_THAT(dmlc::testing::ErrorMessageOf([&] { expr::broadcast<1>(wrong, shape); }),
              HasSubstr("dimension 1 of the target shape (3,4,5,6)"));
}

TEST(MaskTest, ScalesRows) {
  TensorContainer<cpu, 1> keep = RandomTensor(Shape1(4), 1);
  TensorContainer<cpu, 2> src = RandomTensor(Shape2(4, 9), 2), out(Shape2(4, 9));
  out = expr::mask(keep, src);
  for (index_t y = 0; y < 4; ++y)
    for (index_t x = 0; x < 9; ++x) EXPECT_EQ(out[y][x], src[y][x] * keep[y]);
  TensorContainer<cpu, 1> short_mask(Shape1(3));
  EXPECT_THAT(dmlc::testing::ErrorMessageOf([&] { out = expr::mask(short_mask, src); }),
              HasSubstr("one value per row"));
}

TEST(SwapAxisTest, EveryPairOfA4DTensor) {
  TensorContainer<cpu, 4> src = RandomTensor(Shape4(2, 3, 4, 5), 3);
  TensorContainer<cpu, 4> out(Shape4(3, 2, 4, 5));
  out = expr::swapaxis<1, 0>(src);
  TensorContainer<cpu, 4> out13(Shape4(2, 5, 4, 3));
  out13 = expr::swapaxis<3, 1>(src);
  TensorContainer<cpu, 4> same(Shape4(2, 3, 4, 5));
  same = expr::swapaxis<2, 2>(src);
  for (index_t a = 0; a < 2; ++a)
    for (index_t b = 0; b < 3; ++b)
      for (index_t c = 0; c < 4; ++c)
        for (index_t d = 0; d < 5; ++d) {
          ASSERT_EQ(out[b][a][c][d], src[a][b][c][d]);
          ASSERT_EQ(out13[a][d][c][b], src[a][b][c][d]);
          ASSERT_EQ(same[a][b][c][d], src[a][b][c][d]);
        }
}

TEST(ImplicitDotTest, MatchesTheBlasProduct) {
  TensorContainer<cpu, 2> a = RandomTensor(Shape2(17, 23), 4), b = RandomTensor(Shape2(23, 11), 5);
  TensorContainer<cpu, 2> fused(Shape2(17, 11)), blas(Shape2(17, 11));
  fused = expr::implicit_dot(a, b) * 0.5f + 1.0f;
  blas = expr::dot(a, b);
  for (index_t y = 0; y < 17; ++y)
    for (index_t x = 0; x < 11; ++x) EXPECT_NEAR(fused[y][x], blas[y][x] * 0.5f + 1.0f, 1e-5f);
  EXPECT_THAT(dmlc::testing::ErrorMessageOf([&] { expr::implicit_dot(a, a); }),
              HasSubstr("(17,23) and (17,23) cannot be multiplied"));
}

TEST(IndexExpressionsTest, ChooseFillOneHot) {
  TensorContainer<cpu, 2> prob = RandomTensor(Shape2(5, 4), 6);
  float label_values[5] = {0, 3, 2, 7, -2};  // 7 and -2 are out of range
  Tensor<cpu, 1> label(label_values, Shape1(5));
  TensorContainer<cpu, 1> picked(Shape1(5));
  picked = expr::mat_choose_row_element(prob, label);
  EXPECT_EQ(picked[0], prob[0][0]);
  EXPECT_EQ(picked[1], prob[1][3]);
  EXPECT_EQ(picked[2], prob[2][2]);
  EXPECT_EQ(picked[3], prob[3][3]) << "clipped to the last column";
  EXPECT_EQ(picked[4], prob[4][0]) << "clipped to the first column";

  TensorContainer<cpu, 1> values = RandomTensor(Shape1(5), 7);
  TensorContainer<cpu, 2> filled(Shape2(5, 4));
  filled = expr::mat_fill_row_element(prob, values, label);
  for (index_t y = 0; y < 5; ++y)
    for (index_t x = 0; x < 4; ++x) {
      const bool hit = x == static_cast<index_t>(label[y]);
      EXPECT_EQ(filled[y][x], hit ? values[y] : prob[y][x]) << y << "," << x;
    }

  TensorContainer<cpu, 2> onehot(Shape2(5, 4));
  onehot = expr::one_hot_encode(label, 4);
  for (index_t y = 0; y < 5; ++y)
    for (index_t x = 0; x < 4; ++x) {
      EXPECT_EQ(onehot[y][x], x == static_cast<index_t>(label[y]) ? 1.0f : 0.0f);
    }
  // Integer indices and a double result work as well.
  int ids_values[3] = {2, 0, 1};
  Tensor<cpu, 1, int> ids(ids_values, Shape1(3));
  TensorContainer<cpu, 2, double> onehot64(Shape2(3, 3));
  onehot64 = expr::one_hot_encode<double>(ids, 3);
  EXPECT_EQ(onehot64[0][2], 1.0);
  EXPECT_EQ(onehot64[1][0], 1.0);
  EXPECT_EQ(onehot64[0][0], 0.0);

  TensorContainer<cpu, 1> wrong(Shape1(4));
  EXPECT_THAT(dmlc::testing::ErrorMessageOf(
                  [&] { picked = expr::mat_choose_row_element(prob, wrong.Slice(0, 4)); }),
              HasSubstr("one per row is needed"));
}

TEST(TakeTest, ClipWrapAndNaN) {
  TensorContainer<cpu, 2> table = RandomTensor(Shape2(6, 3), 8);
  float id_values[6] = {1, 5, 6, -1, 13, std::numeric_limits<float>::quiet_NaN()};
  Tensor<cpu, 1> ids(id_values, Shape1(6));
  TensorContainer<cpu, 2> clipped(Shape2(6, 3)), wrapped(Shape2(6, 3));
  clipped = expr::take(ids, table);
  wrapped = expr::take<false>(ids, table);
  const index_t clip_rows[6] = {1, 5, 5, 0, 5, 0};
  const index_t wrap_rows[6] = {1, 5, 0, 5, 1, 0};
  for (index_t i = 0; i < 6; ++i)
    for (index_t x = 0; x < 3; ++x) {
      EXPECT_EQ(clipped[i][x], table[clip_rows[i]][x]) << i;
      EXPECT_EQ(wrapped[i][x], table[wrap_rows[i]][x]) << i;
    }
  TensorContainer<cpu, 2> empty(Shape2(0, 3));
  EXPECT_THAT(dmlc::testing::ErrorMessageOf([&] { clipped = expr::take(ids, empty); }),
              HasSubstr("has no rows to take"));
}

TEST(TakeGradTest, ExpressionAndAddTakeGradAreTakesGradient) {
  const index_t vocab = 50, dim = 700, batch = 300;  // threads over 3 column blocks
  TensorContainer<cpu, 1> ids(Shape1(batch));
  std::mt19937 rng(10);
  for (index_t i = 0; i < batch; ++i) ids[i] = static_cast<float>(rng() % vocab);
  TensorContainer<cpu, 2> grad_out = RandomTensor(Shape2(batch, dim), 11);
  TensorContainer<cpu, 2> reference(Shape2(vocab, dim), 0.0f);
  for (index_t i = 0; i < batch; ++i)
    for (index_t x = 0; x < dim; ++x) reference[static_cast<index_t>(ids[i])][x] += grad_out[i][x];

  TensorContainer<cpu, 2> by_expression(Shape2(vocab, dim));
  by_expression = expr::take_grad(ids, grad_out, vocab);
  TensorContainer<cpu, 2> by_scatter(Shape2(vocab, dim), 0.0f);
  AddTakeGrad(by_scatter, ids, grad_out);
  for (index_t y = 0; y < vocab; ++y)
    for (index_t x = 0; x < dim; ++x) {
      ASSERT_NEAR(by_expression[y][x], reference[y][x], 1e-4f);
      ASSERT_EQ(by_scatter[y][x], reference[y][x]) << "same summation order as the loop";
    }
  // Out-of-range ids: AddTakeGrad clips (as take does); the expression ignores them.
  float bad_values[2] = {-3, 99};
  Tensor<cpu, 1> bad(bad_values, Shape1(2));
  TensorContainer<cpu, 2> ones(Shape2(2, dim), 1.0f), grad(Shape2(vocab, dim), 0.0f);
  AddTakeGrad(grad, bad, ones);
  EXPECT_EQ(grad[0][0], 1.0f);
  EXPECT_EQ(grad[vocab - 1][dim - 1], 1.0f);
  grad = expr::take_grad(bad, ones, vocab);
  EXPECT_EQ(grad[0][0], 0.0f);
}

TEST(UpsamplingNearestTest, RepeatsPixels) {
  TensorContainer<cpu, 4> small = RandomTensor(Shape4(2, 3, 4, 5), 12);
  TensorContainer<cpu, 4> big(Shape4(2, 3, 12, 15));
  big = expr::upsampling_nearest(small, 3);
  for (index_t n = 0; n < 2; ++n)
    for (index_t c = 0; c < 3; ++c)
      for (index_t y = 0; y < 12; ++y)
        for (index_t x = 0; x < 15; ++x) ASSERT_EQ(big[n][c][y][x], small[n][c][y / 3][x / 3]);
}

// Reference pooling over a 4-D tensor, windows cut at the edge.
template <typename Reducer>
float PoolAt(const Tensor<cpu, 4>& in, index_t n, index_t c, index_t py, index_t px, index_t ky,
             index_t kx, index_t sy, index_t sx) {
  float result;
  Reducer::SetInitValue(result);
  for (index_t y = py * sy; y < std::min(py * sy + ky, in.size(2)); ++y)
    for (index_t x = px * sx; x < std::min(px * sx + kx, in.size(3)); ++x)
      Reducer::Reduce(result, in[n][c][y][x]);
  return result;
}

TEST(PoolTest, MaxAndSumWithUnequalStrides) {
  TensorContainer<cpu, 4> in = RandomTensor(Shape4(2, 3, 11, 9), 13);
  auto pooled = expr::pool<red::maximum>(in, 3, 2, 2, 3);
  EXPECT_EQ(pooled.shape_, Shape4(2, 3, 5, 3));
  TensorContainer<cpu, 4> max_out(Shape4(2, 3, 5, 3)), sum_out(Shape4(2, 3, 5, 3));
  max_out = expr::pool<red::maximum>(in, 3, 2, 2, 3);
  sum_out = expr::pool<red::sum>(in, 3, 2, 2, 3);
  TensorContainer<cpu, 4> full(Shape4(2, 3, 6, 3));  // pshape: the last row of windows is cut
  full = expr::pool<red::maximum>(in, Shape2(6, 3), 3, 2, 2, 3);
  for (index_t n = 0; n < 2; ++n)
    for (index_t c = 0; c < 3; ++c)
      for (index_t py = 0; py < 6; ++py)
        for (index_t px = 0; px < 3; ++px) {
          ASSERT_EQ(full[n][c][py][px], PoolAt<red::maximum>(in, n, c, py, px, 3, 2, 2, 3));
          if (py == 5) continue;
          ASSERT_EQ(max_out[n][c][py][px], PoolAt<red::maximum>(in, n, c, py, px, 3, 2, 2, 3));
          ASSERT_NEAR(sum_out[n][c][py][px], PoolAt<red::sum>(in, n, c, py, px, 3, 2, 2, 3), 1e-5f);
        }
  EXPECT_THAT(dmlc::testing::ErrorMessageOf([&] { expr::pool<red::maximum>(in, 12, 2, 1); }),
              HasSubstr("kernel (12, 2) is larger than the image (11, 9)"));
  EXPECT_THAT(dmlc::testing::ErrorMessageOf([&] { expr::pool<red::maximum>(in, 2, 2, 0); }),
              HasSubstr("must be at least 1"));
}

TEST(UnpoolTest, IsTheGradientOfPooling) {
  // Overlapping windows (kernel 3, stride 2) so pixels collect from several windows.
  TensorContainer<cpu, 4> in = RandomTensor(Shape4(2, 2, 9, 7), 14);
  TensorContainer<cpu, 4> out(Shape4(2, 2, 4, 3)), grad_out = RandomTensor(Shape4(2, 2, 4, 3), 15);
  out = expr::pool<red::maximum>(in, 3, 3, 2);
  TensorContainer<cpu, 4> grad_in(in.shape_), reference(in.shape_, 0.0f);
  grad_in = expr::unpool<red::maximum>(in, out, grad_out, 3, 3, 2);
  TensorContainer<cpu, 4> sum_out(out.shape_), sum_grad(in.shape_), sum_reference(in.shape_, 0.0f);
  sum_out = expr::pool<red::sum>(in, 3, 3, 2);
  sum_grad = expr::unpool<red::sum>(in, sum_out, grad_out, 3, 3, 2);
  for (index_t n = 0; n < 2; ++n)
    for (index_t c = 0; c < 2; ++c)
      for (index_t py = 0; py < 4; ++py)
        for (index_t px = 0; px < 3; ++px)
          for (index_t y = py * 2; y < py * 2 + 3; ++y)
            for (index_t x = px * 2; x < px * 2 + 3; ++x) {
              if (in[n][c][y][x] == out[n][c][py][px]) {
                reference[n][c][y][x] += grad_out[n][c][py][px];
              }
              sum_reference[n][c][y][x] += grad_out[n][c][py][px];
            }
  ExpectAllNear(grad_in, reference, 1e-5f);
  ExpectAllNear(sum_grad, sum_reference, 1e-5f);
}

TEST(Patch2ColTest, UnpackMatchesDefinitionAndPackIsItsAdjoint) {
  // Strides and dilations that differ per axis, several images, a 3-D source too.
  const index_t ky = 3, kx = 2, sy = 2, sx = 1, dy = 2, dx = 3;
  TensorContainer<cpu, 4> img = RandomTensor(Shape4(2, 3, 12, 10), 16);
  const index_t oh = (12 - ((ky - 1) * dy + 1)) / sy + 1, ow = (10 - ((kx - 1) * dx + 1)) / sx + 1;
  TensorContainer<cpu, 2> col(Shape2(3 * ky * kx, 2 * oh * ow));
  col = expr::unpack_patch2col(img, ky, kx, sy, sx, dy, dx);
  for (index_t n = 0; n < 2; ++n)
    for (index_t c = 0; c < 3; ++c)
      for (index_t i = 0; i < ky; ++i)
        for (index_t j = 0; j < kx; ++j)
          for (index_t oy = 0; oy < oh; ++oy)
            for (index_t ox = 0; ox < ow; ++ox) {
              ASSERT_EQ(col[(c * ky + i) * kx + j][(n * oh + oy) * ow + ox],
                        img[n][c][oy * sy + i * dy][ox * sx + j * dx]);
            }
  // pack is unpack's adjoint: <unpack(img), m> == <img, pack(m)> for any m.
  TensorContainer<cpu, 2> m = RandomTensor(col.shape_, 17);
  TensorContainer<cpu, 4> packed(img.shape_);
  packed = expr::pack_col2patch(m, img.shape_, ky, kx, sy, sx, dy, dx);
  auto inner = [](const std::vector<float>& a, const std::vector<float>& b) {
    double sum = 0;
    for (size_t i = 0; i < a.size(); ++i) sum += double(a[i]) * b[i];
    return sum;
  };
  const double lhs = inner(Values(col), Values(m)), rhs = inner(Values(img), Values(packed));
  EXPECT_NEAR(lhs, rhs, 1e-3);

  // The short forms: one stride (and one dilation) for both axes, on a single 3-D image.
  TensorContainer<cpu, 3> one = RandomTensor(Shape3(2, 5, 5), 18);
  TensorContainer<cpu, 2> col3(Shape2(2 * 9, 4)), col3_long(Shape2(2 * 9, 4));
  col3 = expr::unpack_patch2col(one, 3, 3, 2);
  col3_long = expr::unpack_patch2col(one, 3, 3, 2, 2, 1, 1);
  ExpectAllNear(col3, col3_long, 0.0f);
  TensorContainer<cpu, 3> back(one.shape_);
  back = expr::pack_col2patch(col3, one.shape_, 3, 3, 2);
  EXPECT_EQ(back[1][2][2], 4.0f * one[1][2][2]) << "the centre pixel is in all four patches";

  EXPECT_THAT(dmlc::testing::ErrorMessageOf([&] { expr::unpack_patch2col(one, 3, 3, 1, 3); }),
              HasSubstr("the dilated patch (7, 7) is larger than the image (5, 5)"));
  EXPECT_THAT(
      dmlc::testing::ErrorMessageOf([&] { expr::pack_col2patch(col, one.shape_, 3, 3, 2); }),
      HasSubstr("must have the unpacked shape"));
}

TEST(ScalarPlanThreadsTest, LargeNonPacketMapsMatchOneThread) {
  TensorContainer<cpu, 4> in = RandomTensor(Shape4(4, 16, 64, 64), 19);
  TensorContainer<cpu, 4> many(Shape4(4, 16, 31, 31)), one(Shape4(4, 16, 31, 31));
  many = expr::pool<red::maximum>(in, 3, 3, 2);
  SetNumThreads(1);
  one = expr::pool<red::maximum>(in, 3, 3, 2);
  SetNumThreads(0);
  ExpectAllNear(many, one, 0.0f);
}

}  // namespace
}  // namespace mshadow
