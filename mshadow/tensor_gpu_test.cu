// The GPU backend against the CPU backend on the same data: each test builds its inputs on
// the host, evaluates the same expression on both devices and compares. Skips without a GPU.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <vector>

#include "dmlc/testing/error_message.h"
#include "mshadow/tensor.h"
#include "tools/cuda/gpu_test.h"

namespace mshadow {
namespace {

using expr::F;
using ::testing::HasSubstr;

class TensorGpuTest : public gpu_testing::GpuTest {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    if (IsSkipped()) return;
    InitTensorEngine<gpu>(0);
    stream_ = NewStream<gpu>();
  }
  void TearDown() override {
    if (stream_ != nullptr) DeleteStream(stream_);
  }

  // A host tensor of `shape` with values in [-1, 1), fixed by `seed`.
  template <int dim, typename DType = float>
  TensorContainer<cpu, dim, DType> RandomTensor(Shape<dim> shape, unsigned seed) {
    TensorContainer<cpu, dim, DType> t(shape);
    std::mt19937 gen(seed);
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    Tensor<cpu, 2, DType> rows = t.FlatTo2D();
    for (index_t y = 0; y < rows.size(0); ++y) {
      for (index_t x = 0; x < rows.size(1); ++x) rows[y][x] = static_cast<DType>(dist(gen));
    }
    return t;
  }

  // A device copy of a host tensor (rows pitched, or packed: stride == width).
  template <int dim, typename DType>
  Tensor<gpu, dim, DType> ToGpu(const Tensor<cpu, dim, DType>& host, bool pitched = true) {
    Tensor<gpu, dim, DType> t(host.shape_);
    t.set_stream(stream_);
    AllocSpace(&t, pitched);
    owned_.push_back([t]() mutable { FreeSpace(&t); });
    Copy(t, host, stream_);
    return t;
  }

  // The device tensor's values on the host (after the stream's work finished).
  template <int dim, typename DType>
  TensorContainer<cpu, dim, DType> ToCpu(const Tensor<gpu, dim, DType>& dev) {
    TensorContainer<cpu, dim, DType> host(dev.shape_);
    Copy(static_cast<Tensor<cpu, dim, DType>&>(host), dev, stream_);
    stream_->Wait();
    return host;
  }

  template <int dim, typename DType>
  static void ExpectNear(const Tensor<cpu, dim, DType>& expected,
                         const Tensor<cpu, dim, DType>& actual, double tolerance) {
    ASSERT_EQ(expected.shape_, actual.shape_);
    const Tensor<cpu, 2, DType> e = expected.FlatTo2D(), a = actual.FlatTo2D();
    for (index_t y = 0; y < e.size(0); ++y) {
      for (index_t x = 0; x < e.size(1); ++x) {
        ASSERT_NEAR(e[y][x], a[y][x], tolerance * (1.0 + std::fabs(e[y][x])))
            << "at (" << y << ", " << x << ")";
      }
    }
  }

  ~TensorGpuTest() override {
    for (auto& free_it : owned_) free_it();
  }

  Stream<gpu>* stream_ = nullptr;
  std::vector<std::function<void()>> owned_;
};

TEST_F(TensorGpuTest, AllocationPitchesRowsAndCopiesRoundTrip) {
  const auto host = RandomTensor(Shape3(3, 37, 101), 1);
  Tensor<gpu, 3> dev = ToGpu(static_cast<const Tensor<cpu, 3>&>(host));
  EXPECT_GE(dev.stride_, 101);
  EXPECT_EQ(dev.stride_ * sizeof(float) % 256, 0u) << "rows start on the device's pitch";
  ExpectNear<3, float>(host, ToCpu(dev), 0.0);

  Tensor<gpu, 3> copy(host.shape_);
  copy.set_stream(stream_);
  AllocSpace(&copy, false);
  EXPECT_EQ(copy.stride_, 101);
  Copy(copy, dev, stream_);  // device to device, pitched to packed
  ExpectNear<3, float>(host, ToCpu(copy), 0.0);
  FreeSpace(&copy);
  EXPECT_EQ(copy.dptr_, nullptr);
}

// Packed tensors take the flat kernels (mshadow/cuda/flat_eval.cuh), with 16-byte accesses
// where aligned (whole allocations) and without (views one element in): sizes around their
// runs of 4 * 256 elements or vectors and their tails, and one past a full grid so that the
// grid-stride loop turns.
TEST_F(TensorGpuTest, PackedExpressionsTakeTheFlatPathAndMatchTheCpu) {
  for (const index_t n : {index_t{1}, index_t{1023}, index_t{1025}, index_t{3000001}}) {
    SCOPED_TRACE(n);
    const auto a = RandomTensor(Shape2(1, n), 20), b = RandomTensor(Shape2(1, n), 21);
    Tensor<gpu, 1> ga(Shape1(n)), gb(Shape1(n)), gout(Shape1(n));
    for (Tensor<gpu, 1>* t : {&ga, &gb, &gout}) {
      t->set_stream(stream_);
      AllocSpace(t, false);
    }
    Copy(ga, Tensor<cpu, 1>(a.dptr_, Shape1(n)), stream_);
    Copy(gb, Tensor<cpu, 1>(b.dptr_, Shape1(n)), stream_);
    TensorContainer<cpu, 1> expected(Shape1(n));
    const Tensor<cpu, 1> ca(a.dptr_, Shape1(n)), cb(b.dptr_, Shape1(n));
    expected = ca * 2.0f + cb;
    gout = ga * 2.0f + gb;
    expected += F<op::sigmoid>(ca) - F<op::maximum>(cb, ca);
    gout += F<op::sigmoid>(ga) - F<op::maximum>(gb, ga);
    TensorContainer<cpu, 1> actual(Shape1(n));
    Copy(static_cast<Tensor<cpu, 1>&>(actual), gout, stream_);
    stream_->Wait();
    ExpectNear<1, float>(expected, actual, 1e-6);
    if (n > 1) {  // views one element in: packed but not 16-byte aligned (the scalar flat path)
      const index_t m = n - 1;
      Tensor<gpu, 1> va(ga.dptr_ + 1, Shape1(m)), vout(gout.dptr_ + 1, Shape1(m));
      va.set_stream(stream_);
      vout.set_stream(stream_);
      vout = F<op::tanh>(va) * 3.0f;
      TensorContainer<cpu, 1> shifted(Shape1(m)), got(Shape1(m));
      shifted = F<op::tanh>(Tensor<cpu, 1>(a.dptr_ + 1, Shape1(m))) * 3.0f;
      Copy(static_cast<Tensor<cpu, 1>&>(got), vout, stream_);
      stream_->Wait();
      ExpectNear<1, float>(shifted, got, 1e-6);
    }
    for (Tensor<gpu, 1>* t : {&ga, &gb, &gout}) FreeSpace(t);
  }
}

TEST_F(TensorGpuTest, ElementwiseExpressionsMatchTheCpu) {
  const auto a = RandomTensor(Shape2(129, 257), 2), b = RandomTensor(Shape2(129, 257), 3);
  Tensor<gpu, 2> ga = ToGpu<2, float>(a), gb = ToGpu<2, float>(b);
  TensorContainer<cpu, 2> expected(a.shape_);
  Tensor<gpu, 2> gout = ToGpu<2, float>(expected);

  expected = a * 2.0f + b;
  gout = ga * 2.0f + gb;
  ExpectNear<2, float>(expected, ToCpu(gout), 1e-6);

  expected += F<op::exp>(a) / (b * b + 1.0f);
  gout += F<op::exp>(ga) / (gb * gb + 1.0f);
  ExpectNear<2, float>(expected, ToCpu(gout), 1e-5);

  expected -= F<op::tanh>(a) - F<op::sigmoid>(b);
  gout -= F<op::tanh>(ga) - F<op::sigmoid>(gb);
  ExpectNear<2, float>(expected, ToCpu(gout), 1e-5);

  expected = 0.25f;
  gout = 0.25f;
  ExpectNear<2, float>(expected, ToCpu(gout), 0.0);
}

TEST_F(TensorGpuTest, TransposeCastBroadcastAndSlicesMatchTheCpu) {
  const auto a = RandomTensor(Shape2(70, 45), 4);
  Tensor<gpu, 2> ga = ToGpu<2, float>(a);
  TensorContainer<cpu, 2> t(Shape2(45, 70));
  Tensor<gpu, 2> gt = ToGpu<2, float>(t);
  t = a.T() * 3.0f;
  gt = ga.T() * 3.0f;
  ExpectNear<2, float>(t, ToCpu(gt), 1e-6);

  TensorContainer<cpu, 2, double> d(a.shape_);
  Tensor<gpu, 2, double> gd = ToGpu<2, double>(d);
  d = expr::tcast<double>(a) + 1.0;
  gd = expr::tcast<double>(ga) + 1.0;
  ExpectNear<2, double>(d, ToCpu(gd), 0.0);

  const auto v = RandomTensor(Shape1(45), 5);
  Tensor<gpu, 1> gv = ToGpu<1, float>(v);
  TensorContainer<cpu, 2> rep(a.shape_);
  Tensor<gpu, 2> grep = ToGpu<2, float>(rep);
  rep = a + expr::repmat(v, 70);
  grep = ga + expr::repmat(gv, 70);
  ExpectNear<2, float>(rep, ToCpu(grep), 1e-6);

  // A column range of rows (strided source and destination).
  Tensor<gpu, 2> gslice = grep.Slice(10, 20);
  gslice = ga.Slice(0, 10) * -1.0f;
  rep.Slice(10, 20) = a.Slice(0, 10) * -1.0f;
  ExpectNear<2, float>(rep, ToCpu(grep), 1e-6);
}

TEST_F(TensorGpuTest, ReductionsMatchTheCpu) {
  for (const Shape<2> shape : {Shape2(1000, 77), Shape2(200000, 3), Shape2(5, 4099)}) {
    SCOPED_TRACE(shape);
    const auto a = RandomTensor(shape, 6);
    Tensor<gpu, 2> ga = ToGpu<2, float>(a);
    TensorContainer<cpu, 1> sums(Shape1(shape[1]));
    Tensor<gpu, 1> gsums = ToGpu<1, float>(sums);
    sums = expr::sum_rows(a) * 0.5f;
    gsums = expr::sum_rows(ga) * 0.5f;
    ExpectNear<1, float>(sums, ToCpu(gsums), 1e-4);
    sums += expr::reduce_except_dim<1, red::maximum>(a);
    gsums += expr::reduce_except_dim<1, red::maximum>(ga);
    ExpectNear<1, float>(sums, ToCpu(gsums), 1e-4);
  }
  // Rows wider than a block (the walk's column step wraps no row) and narrower (it wraps
  // several), through MapReduceKeepHighDim.
  const auto wide = RandomTensor(Shape4(3, 5, 2, 300), 8);
  Tensor<gpu, 4> gwide = ToGpu<4, float>(wide);
  TensorContainer<cpu, 1> five(Shape1(5));
  Tensor<gpu, 1> gfive = ToGpu<1, float>(five);
  five = expr::sumall_except_dim<1>(wide);
  gfive = expr::sumall_except_dim<1>(gwide);
  ExpectNear<1, float>(five, ToCpu(gfive), 1e-4);
  const auto t = RandomTensor(Shape4(8, 16, 33, 35), 7);
  Tensor<gpu, 4> gt = ToGpu<4, float>(t);
  TensorContainer<cpu, 1> channel(Shape1(16));
  Tensor<gpu, 1> gchannel = ToGpu<1, float>(channel);
  channel = expr::sumall_except_dim<1>(t);
  gchannel = expr::sumall_except_dim<1>(gt);
  ExpectNear<1, float>(channel, ToCpu(gchannel), 1e-4);
  channel = expr::reduce_except_dim<1, red::minimum>(F<op::square>(t));
  gchannel = expr::reduce_except_dim<1, red::minimum>(F<op::square>(gt));
  ExpectNear<1, float>(channel, ToCpu(gchannel), 1e-6);
}

// The float and double tests, with the tolerance of each type.
template <typename DType>
class TensorGpuRealTest : public TensorGpuTest {
 protected:
  static constexpr double kTolerance = sizeof(DType) == 4 ? 1e-4 : 1e-12;
};
using RealTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(TensorGpuRealTest, RealTypes);

// Packed, aligned tensors whose kept index's runs are whole 16-byte vectors take the
// vectorized kept-index reduction; a run of odd length takes the element walk.
TYPED_TEST(TensorGpuRealTest, PackedKeptReductionsMatchTheCpu) {
  using DType = TypeParam;
  const double tol = this->kTolerance;
  for (const Shape<4> shape : {Shape4(3, 5, 2, 300), Shape4(4, 7, 64, 64), Shape4(2, 3, 1, 4),
                               Shape4(1, 2, 1, 8), Shape4(8, 16, 33, 35)}) {
    SCOPED_TRACE(shape);
    const auto t = this->template RandomTensor<4, DType>(shape, 12);
    auto gt = this->ToGpu(static_cast<const Tensor<cpu, 4, DType>&>(t), /*pitched=*/false);
    TensorContainer<cpu, 1, DType> sums(Shape1(shape[1]), DType(1));
    auto gsums = this->ToGpu(static_cast<const Tensor<cpu, 1, DType>&>(sums));
    sums += expr::sumall_except_dim<1>(t);
    gsums += expr::sumall_except_dim<1>(gt);
    this->ExpectNear(static_cast<const Tensor<cpu, 1, DType>&>(sums), this->ToCpu(gsums), tol);
    sums = expr::sumall_except_dim<1>(F<op::square>(t) * DType(0.5));
    gsums = expr::sumall_except_dim<1>(F<op::square>(gt) * DType(0.5));
    this->ExpectNear(static_cast<const Tensor<cpu, 1, DType>&>(sums), this->ToCpu(gsums), tol);
    sums = expr::reduce_except_dim<1, red::maximum>(t);
    gsums = expr::reduce_except_dim<1, red::maximum>(gt);
    this->ExpectNear(static_cast<const Tensor<cpu, 1, DType>&>(sums), this->ToCpu(gsums), 0);
  }
}

TYPED_TEST(TensorGpuRealTest, EveryProductMatchesTheCpu) {
  using DType = TypeParam;
  const double tol = this->kTolerance;
  const auto a = this->template RandomTensor<2, DType>(Shape2(33, 65), 8);
  const auto b = this->template RandomTensor<2, DType>(Shape2(65, 17), 9);
  const auto bt = this->template RandomTensor<2, DType>(Shape2(17, 65), 10);
  const auto at = this->template RandomTensor<2, DType>(Shape2(65, 33), 11);
  auto ga = this->ToGpu(static_cast<const Tensor<cpu, 2, DType>&>(a));
  auto gb = this->ToGpu(static_cast<const Tensor<cpu, 2, DType>&>(b));
  auto gbt = this->ToGpu(static_cast<const Tensor<cpu, 2, DType>&>(bt));
  auto gat = this->ToGpu(static_cast<const Tensor<cpu, 2, DType>&>(at));
  TensorContainer<cpu, 2, DType> c(Shape2(33, 17), DType(1));
  auto gc = this->ToGpu(static_cast<const Tensor<cpu, 2, DType>&>(c));
  c = expr::dot(a, b);
  gc = expr::dot(ga, gb);
  this->ExpectNear(static_cast<const Tensor<cpu, 2, DType>&>(c), this->ToCpu(gc), tol);
  c += expr::dot(a, bt.T()) * DType(2);
  gc += expr::dot(ga, gbt.T()) * DType(2);
  this->ExpectNear(static_cast<const Tensor<cpu, 2, DType>&>(c), this->ToCpu(gc), tol);
  c -= expr::dot(at.T(), b);
  gc -= expr::dot(gat.T(), gb);
  this->ExpectNear(static_cast<const Tensor<cpu, 2, DType>&>(c), this->ToCpu(gc), tol);
  c = expr::dot(at.T(), bt.T());
  gc = expr::dot(gat.T(), gbt.T());
  this->ExpectNear(static_cast<const Tensor<cpu, 2, DType>&>(c), this->ToCpu(gc), tol);

  // One row (gemv), vector x matrix, outer product (ger).
  TensorContainer<cpu, 2, DType> row(Shape2(1, 17));
  auto grow = this->ToGpu(static_cast<const Tensor<cpu, 2, DType>&>(row));
  row = expr::dot(a.Slice(3, 4), b);
  grow = expr::dot(ga.Slice(3, 4), gb);
  this->ExpectNear(static_cast<const Tensor<cpu, 2, DType>&>(row), this->ToCpu(grow), tol);
  TensorContainer<cpu, 1, DType> v(Shape1(17));
  auto gv = this->ToGpu(static_cast<const Tensor<cpu, 1, DType>&>(v));
  v = expr::dot(a[5], b);
  gv = expr::dot(ga[5], gb);
  this->ExpectNear(static_cast<const Tensor<cpu, 1, DType>&>(v), this->ToCpu(gv), tol);
  TensorContainer<cpu, 2, DType> outer(Shape2(65, 17));
  auto gouter = this->ToGpu(static_cast<const Tensor<cpu, 2, DType>&>(outer));
  outer = expr::dot(a[0].T(), b[1]);
  gouter = expr::dot(ga[0].T(), gb[1]);
  this->ExpectNear(static_cast<const Tensor<cpu, 2, DType>&>(outer), this->ToCpu(gouter), tol);

  // Batches, one strided-batched call.
  const auto x = this->template RandomTensor<3, DType>(Shape3(7, 12, 9), 12);
  const auto y = this->template RandomTensor<3, DType>(Shape3(7, 9, 5), 13);
  auto gx = this->ToGpu(static_cast<const Tensor<cpu, 3, DType>&>(x));
  auto gy = this->ToGpu(static_cast<const Tensor<cpu, 3, DType>&>(y));
  TensorContainer<cpu, 3, DType> z(Shape3(7, 12, 5));
  auto gz = this->ToGpu(static_cast<const Tensor<cpu, 3, DType>&>(z));
  z = expr::batch_dot<false, false>(x, y);
  gz = expr::batch_dot<false, false>(gx, gy);
  this->ExpectNear(static_cast<const Tensor<cpu, 3, DType>&>(z), this->ToCpu(gz), tol);

  TensorContainer<cpu, 1, DType> d(Shape1(1));
  auto gd = this->ToGpu(static_cast<const Tensor<cpu, 1, DType>&>(d));
  VectorDot(static_cast<Tensor<cpu, 1, DType>&>(d), a[2], a[4]);
  VectorDot(gd, ga[2], ga[4]);  // the result stays in device memory
  this->ExpectNear(static_cast<const Tensor<cpu, 1, DType>&>(d), this->ToCpu(gd), tol);
}

// Labels for rows of `classes` classes: a class, -1 and `classes` (outside: no class), a
// fraction (truncated to its class) and 2 (the ignored label below), in turn.
template <typename DType>
DType SoftmaxTestLabel(index_t i, index_t classes) {
  switch (i % 5) {
    case 0: return DType((i * 7) % classes);
    case 1: return DType(-1);
    case 2: return DType(classes);
    case 3: return DType(1.5);
    default: return DType(2);
  }
}

// The four loss gradients of prob (plain, `ignored` ignored, smoothed by alpha, both) into
// grad on the CPU and ggrad on the GPU, each pair compared by expect().
template <typename CpuGrad, typename CpuProb, typename CpuLabel, typename GpuGrad,
          typename GpuProb, typename GpuLabel, typename DType, typename Expect>
void CompareSoftmaxGradients(CpuGrad grad, const CpuProb& prob, const CpuLabel& label,
                             GpuGrad ggrad, const GpuProb& gprob, const GpuLabel& glabel,
                             DType ignored, float alpha, Expect expect) {
  SoftmaxGrad(grad, prob, label);
  SoftmaxGrad(ggrad, gprob, glabel);
  expect();
  SoftmaxGrad(grad, prob, label, ignored);
  SoftmaxGrad(ggrad, gprob, glabel, ignored);
  expect();
  SmoothSoftmaxGrad(grad, prob, label, alpha);
  SmoothSoftmaxGrad(ggrad, gprob, glabel, alpha);
  expect();
  SmoothSoftmaxGrad(grad, prob, label, ignored, alpha);
  SmoothSoftmaxGrad(ggrad, gprob, glabel, ignored, alpha);
  expect();
}

// Softmax and the loss gradients against the CPU's (mshadow/tensor_softmax_cpu-inl.h): rows
// shorter and longer than a block, pitched rows, the class axis of 3-D tensors, labels
// outside the classes and an ignored label, with and without smoothing.
TYPED_TEST(TensorGpuRealTest, SoftmaxAndItsGradientsMatchTheCpu) {
  using DType = TypeParam;
  using dmlc::testing::ErrorMessageOf;
  const double tol = this->kTolerance;
  const DType ignored(2);
  for (const Shape<2> shape : {Shape2(3, 5), Shape2(37, 1000), Shape2(2, 5000)}) {
    SCOPED_TRACE(shape);
    TensorContainer<cpu, 2, DType> energy = this->template RandomTensor<2, DType>(shape, 20);
    energy = energy * DType(100);  // past float exp's range unless shifted by the maximum
    auto genergy = this->ToGpu(static_cast<const Tensor<cpu, 2, DType>&>(energy));
    TensorContainer<cpu, 2, DType> prob(shape), grad(shape);
    auto gprob = this->ToGpu(static_cast<const Tensor<cpu, 2, DType>&>(prob));
    auto ggrad = this->ToGpu(static_cast<const Tensor<cpu, 2, DType>&>(grad));
    Softmax(static_cast<Tensor<cpu, 2, DType>&>(prob), energy);
    Softmax(gprob, genergy);
    this->ExpectNear(static_cast<const Tensor<cpu, 2, DType>&>(prob), this->ToCpu(gprob), tol);

    TensorContainer<cpu, 1, DType> label(Shape1(shape[0]));
    for (index_t y = 0; y < shape[0]; ++y) label[y] = SoftmaxTestLabel<DType>(y, shape[1]);
    auto glabel = this->ToGpu(static_cast<const Tensor<cpu, 1, DType>&>(label));
    CompareSoftmaxGradients(static_cast<Tensor<cpu, 2, DType>&>(grad), prob, label, ggrad, gprob,
                            glabel, ignored, 0.1f, [&] {
                              this->ExpectNear(static_cast<const Tensor<cpu, 2, DType>&>(grad),
                                               this->ToCpu(ggrad), tol);
                            });
    EXPECT_THAT(ErrorMessageOf([&] { SoftmaxGrad(ggrad, gprob, glabel.Slice(0, 1)); }),
                HasSubstr("one per row is needed"));
    EXPECT_THAT(ErrorMessageOf([&] { Softmax(gprob.Slice(0, 1), genergy); }),
                HasSubstr("Softmax: shape mismatch"));
  }

  const auto line = this->template RandomTensor<1, DType>(Shape1(777), 21);
  auto gline = this->ToGpu(static_cast<const Tensor<cpu, 1, DType>&>(line));
  TensorContainer<cpu, 1, DType> line_prob(line.shape_);
  auto gline_prob = this->ToGpu(static_cast<const Tensor<cpu, 1, DType>&>(line_prob));
  Softmax(static_cast<Tensor<cpu, 1, DType>&>(line_prob), line);
  Softmax(gline_prob, gline);
  this->ExpectNear(static_cast<const Tensor<cpu, 1, DType>&>(line_prob), this->ToCpu(gline_prob),
                   tol);

  // (n, classes, positions), labels (n, positions).
  const Shape<3> shape = Shape3(4, 10, 33);
  const auto energy = this->template RandomTensor<3, DType>(shape, 22);
  auto genergy = this->ToGpu(static_cast<const Tensor<cpu, 3, DType>&>(energy));
  TensorContainer<cpu, 3, DType> prob(shape), grad(shape);
  auto gprob = this->ToGpu(static_cast<const Tensor<cpu, 3, DType>&>(prob));
  auto ggrad = this->ToGpu(static_cast<const Tensor<cpu, 3, DType>&>(grad));
  Softmax(static_cast<Tensor<cpu, 3, DType>&>(prob), energy);
  Softmax(gprob, genergy);
  this->ExpectNear(static_cast<const Tensor<cpu, 3, DType>&>(prob), this->ToCpu(gprob), tol);
  TensorContainer<cpu, 2, DType> label(Shape2(shape[0], shape[2]));
  for (index_t n = 0; n < shape[0]; ++n) {
    for (index_t x = 0; x < shape[2]; ++x) {
      label[n][x] = SoftmaxTestLabel<DType>(n * shape[2] + x, shape[1]);
    }
  }
  auto glabel = this->ToGpu(static_cast<const Tensor<cpu, 2, DType>&>(label));
  CompareSoftmaxGradients(static_cast<Tensor<cpu, 3, DType>&>(grad), prob, label, ggrad, gprob,
                          glabel, ignored, 0.25f, [&] {
                            this->ExpectNear(static_cast<const Tensor<cpu, 3, DType>&>(grad),
                                             this->ToCpu(ggrad), tol);
                          });
  EXPECT_THAT(dmlc::testing::ErrorMessageOf(
                  [&] { SoftmaxGrad(ggrad, gprob, glabel.Slice(0, 1), ignored); }),
              HasSubstr("one per (n, position) is needed"));
}

// half_t and bf16_t products (cuBLAS's ...Ex calls, float32 accumulation) and reductions
// (accumulated in float) against float32 on the CPU from the same rounded values: within a
// few units of the 16-bit type's last place.
template <typename DType>
class TensorGpuSixteenBitTest : public TensorGpuTest {
 protected:
  template <int dim>
  static TensorContainer<cpu, dim, float> Widen(const Tensor<cpu, dim, DType>& t) {
    TensorContainer<cpu, dim, float> wide(t.shape_);
    wide = expr::tcast<float>(t);
    return wide;
  }
  // The GPU's 16-bit result against the CPU's float32 one.
  template <int dim>
  void ExpectClose(const TensorContainer<cpu, dim, float>& want,
                   const Tensor<gpu, dim, DType>& got) {
    const double tol = std::is_same<DType, half::half_t>::value ? 4.0 / 2048 : 4.0 / 256;
    const auto host = this->ToCpu(got);
    this->ExpectNear(static_cast<const Tensor<cpu, dim, float>&>(want),
                     static_cast<const Tensor<cpu, dim, float>&>(Widen<dim>(host)), tol);
  }
};
using SixteenBitTypes = ::testing::Types<half::half_t, bfloat::bf16_t>;
TYPED_TEST_SUITE(TensorGpuSixteenBitTest, SixteenBitTypes);

TYPED_TEST(TensorGpuSixteenBitTest, ProductsAndReductionsMatchFloat32) {
  using DType = TypeParam;
  const auto a = this->template RandomTensor<2, DType>(Shape2(33, 65), 8);
  const auto b = this->template RandomTensor<2, DType>(Shape2(65, 17), 9);
  const auto bt = this->template RandomTensor<2, DType>(Shape2(17, 65), 10);
  const auto fa = this->Widen(a), fb = this->Widen(b), fbt = this->Widen(bt);
  auto ga = this->ToGpu(static_cast<const Tensor<cpu, 2, DType>&>(a));
  auto gb = this->ToGpu(static_cast<const Tensor<cpu, 2, DType>&>(b));
  auto gbt = this->ToGpu(static_cast<const Tensor<cpu, 2, DType>&>(bt));
  TensorContainer<cpu, 2, float> c(Shape2(33, 17));
  TensorContainer<cpu, 2, DType> zero(Shape2(33, 17), DType(0));
  auto gc = this->ToGpu(static_cast<const Tensor<cpu, 2, DType>&>(zero));
  c = expr::dot(fa, fb);
  gc = expr::dot(ga, gb);
  this->ExpectClose(c, gc);
  c += expr::dot(fa, fbt.T()) * 2.0f;
  gc += expr::dot(ga, gbt.T()) * DType(2);
  this->ExpectClose(c, gc);

  // One row (the gemv as a one-row gemm), and an outer product (the ger as k = 1).
  TensorContainer<cpu, 1, float> v(Shape1(17));
  TensorContainer<cpu, 1, DType> zero_row(Shape1(17), DType(0));
  auto gv = this->ToGpu(static_cast<const Tensor<cpu, 1, DType>&>(zero_row));
  v = expr::dot(fa[5], fb);
  gv = expr::dot(ga[5], gb);
  this->ExpectClose(v, gv);
  v = expr::dot(fa[3], fbt.T());
  gv = expr::dot(ga[3], gbt.T());
  this->ExpectClose(v, gv);
  TensorContainer<cpu, 2, float> outer(Shape2(65, 17));
  TensorContainer<cpu, 2, DType> zero_outer(Shape2(65, 17), DType(0));
  auto gouter = this->ToGpu(static_cast<const Tensor<cpu, 2, DType>&>(zero_outer));
  outer = expr::dot(fa[0].T(), fb[1]);
  gouter = expr::dot(ga[0].T(), gb[1]);
  this->ExpectClose(outer, gouter);

  // Batches, one strided-batched call.
  const auto x = this->template RandomTensor<3, DType>(Shape3(7, 12, 9), 12);
  const auto y = this->template RandomTensor<3, DType>(Shape3(7, 9, 5), 13);
  const auto fx = this->Widen(x), fy = this->Widen(y);
  auto gx = this->ToGpu(static_cast<const Tensor<cpu, 3, DType>&>(x));
  auto gy = this->ToGpu(static_cast<const Tensor<cpu, 3, DType>&>(y));
  TensorContainer<cpu, 3, float> z(Shape3(7, 12, 5));
  TensorContainer<cpu, 3, DType> zero_z(Shape3(7, 12, 5), DType(0));
  auto gz = this->ToGpu(static_cast<const Tensor<cpu, 3, DType>&>(zero_z));
  z = expr::batch_dot<false, false>(fx, fy);
  gz = expr::batch_dot<false, false>(gx, gy);
  this->ExpectClose(z, gz);

  // Sums of 5000 rows and of every axis but one, accumulated in float (in the 16-bit type
  // they would be off by far more than the tolerance).
  const auto tall = this->template RandomTensor<2, DType>(Shape2(5000, 33), 14);
  auto gtall = this->ToGpu(static_cast<const Tensor<cpu, 2, DType>&>(tall), /*pitched=*/false);
  TensorContainer<cpu, 1, float> sums(Shape1(33));
  TensorContainer<cpu, 1, DType> zero_sums(Shape1(33), DType(0));
  auto gsums = this->ToGpu(static_cast<const Tensor<cpu, 1, DType>&>(zero_sums));
  sums = expr::sum_rows(this->Widen(tall));
  gsums = expr::sum_rows(gtall);
  this->ExpectClose(sums, gsums);
  const auto t4 = this->template RandomTensor<4, DType>(Shape4(20, 6, 30, 16), 15);
  auto gt4 = this->ToGpu(static_cast<const Tensor<cpu, 4, DType>&>(t4), /*pitched=*/false);
  TensorContainer<cpu, 1, float> channel(Shape1(6));
  TensorContainer<cpu, 1, DType> zero_channel(Shape1(6), DType(0));
  auto gchannel = this->ToGpu(static_cast<const Tensor<cpu, 1, DType>&>(zero_channel));
  channel = expr::sumall_except_dim<1>(this->Widen(t4));
  gchannel = expr::sumall_except_dim<1>(gt4);
  this->ExpectClose(channel, gchannel);
}

// 16-bit softmax, summed in float, against float32 on the CPU from the same rounded values:
// rows (a block each) and the class axis of a 3-D tensor.
TYPED_TEST(TensorGpuSixteenBitTest, SoftmaxMatchesFloat32) {
  using DType = TypeParam;
  const auto rows = this->template RandomTensor<2, DType>(Shape2(37, 1000), 23);
  auto grows = this->ToGpu(static_cast<const Tensor<cpu, 2, DType>&>(rows));
  TensorContainer<cpu, 2, DType> zero(rows.shape_, DType(0));
  auto gprob = this->ToGpu(static_cast<const Tensor<cpu, 2, DType>&>(zero));
  TensorContainer<cpu, 2, float> prob(rows.shape_);
  Softmax(static_cast<Tensor<cpu, 2, float>&>(prob), this->Widen(rows));
  Softmax(gprob, grows);
  this->ExpectClose(prob, gprob);

  const auto classes = this->template RandomTensor<3, DType>(Shape3(4, 10, 33), 24);
  auto gclasses = this->ToGpu(static_cast<const Tensor<cpu, 3, DType>&>(classes));
  TensorContainer<cpu, 3, DType> zero3(classes.shape_, DType(0));
  auto gprob3 = this->ToGpu(static_cast<const Tensor<cpu, 3, DType>&>(zero3));
  TensorContainer<cpu, 3, float> prob3(classes.shape_);
  Softmax(static_cast<Tensor<cpu, 3, float>&>(prob3), this->Widen(classes));
  Softmax(gprob3, gclasses);
  this->ExpectClose(prob3, gprob3);
}

TEST_F(TensorGpuTest, FailuresAreErrorsAndLeaveTheStreamUsable) {
  Tensor<gpu, 2> huge(Shape2(index_t{1} << 30, index_t{1} << 10));
  huge.set_stream(stream_);
  EXPECT_THAT(
      dmlc::testing::ErrorMessageOf([&] { AllocSpace(&huge); }),
      HasSubstr("cudaMalloc of 4398046511104 bytes for a tensor of shape (1073741824,1024)"));
  EXPECT_EQ(huge.dptr_, nullptr);

  const auto a = RandomTensor(Shape2(4, 5), 14);
  Tensor<gpu, 2> ga = ToGpu<2, float>(a);
  TensorContainer<cpu, 2> wrong(Shape2(5, 4));
  EXPECT_THAT(dmlc::testing::ErrorMessageOf(
                  [&] { Copy(ga, static_cast<Tensor<cpu, 2>&>(wrong), stream_); }),
              HasSubstr("Copy: source and destination shapes differ"));
  Tensor<gpu, 2> gb = ToGpu<2, float>(a);
  EXPECT_THAT(dmlc::testing::ErrorMessageOf([&] { ga = gb.T(); }),
              HasSubstr("the expression's shape differs from the target's"));

  TensorContainer<cpu, 2> expected(a.shape_);
  expected = a + 1.0f;
  ga = gb + 1.0f;  // the stream still works
  ExpectNear<2, float>(expected, ToCpu(ga), 0.0);
}

}  // namespace
}  // namespace mshadow
