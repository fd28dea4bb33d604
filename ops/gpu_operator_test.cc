// Every operator with an FCompute<gpu>, run on the GPU against its CPU result on the same
// inputs: each case of ops/testing/op_cases.txt, float32 and float64, written (kWriteTo) and
// accumulated (kAddTo), forward and backward; float16 and bfloat16 against float64 where the
// operator takes them. Skips without a GPU ("no CUDA device").
#include <cuda_runtime.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "mshadow/cuda/stream.h"
#include "mshadow/tensor_gpu-inl.h"
#include "ops/backward.h"
#include "ops/gpu_context.h"
#include "ops/imperative.h"
#include "ops/invoke.h"
#include "ops/random_source.h"
#include "ops/testing/op_cases.h"
#include "ops/testing/op_test_util.h"
#include "tools/cuda/gpu_test.h"

namespace ops {
namespace {

using mshadow::gpu;
using testing::OpCase;
using testing::Values;

// Device memory holding a copy of a CPU tensor's shape and type.
class GpuTensor {
 public:
  GpuTensor(const TShape& shape, int type_flag)
      : bytes_(static_cast<size_t>(shape.Size()) *
               static_cast<size_t>(mshadow::TypeFlagSize(type_flag))) {
    void* ptr = nullptr;
    MSHADOW_CUDA_CALL(cudaMalloc(&ptr, std::max<size_t>(bytes_, 1)));
    storage_.reset(ptr, [](void* p) { cudaFree(p); });
    blob_ = TBlob(ptr, shape, gpu::kDevMask, type_flag);
  }
  static GpuTensor CopyOf(const TBlob& host) {
    GpuTensor t(host.shape_, host.type_flag_);
    MSHADOW_CUDA_CALL(cudaMemcpy(t.blob_.dptr_, host.dptr_, t.bytes_, cudaMemcpyHostToDevice));
    return t;
  }
  CpuTensor ToCpu() const {
    CpuTensor host(blob_.shape_, blob_.type_flag_);
    MSHADOW_CUDA_CALL(cudaMemcpy(host.blob().dptr_, blob_.dptr_, bytes_, cudaMemcpyDeviceToHost));
    return host;
  }
  const TBlob& blob() const { return blob_; }

 private:
  size_t bytes_;
  std::shared_ptr<void> storage_;
  TBlob blob_;
};

std::vector<GpuTensor> CopiesOf(const std::vector<TBlob>& host) {
  std::vector<GpuTensor> out;
  for (const TBlob& b : host) out.push_back(GpuTensor::CopyOf(b));
  return out;
}

std::vector<TBlob> Blobs(const std::vector<GpuTensor>& tensors) {
  std::vector<TBlob> out;
  for (const GpuTensor& t : tensors) out.push_back(t.blob());
  return out;
}

class GpuOperatorTest : public gpu_testing::GpuTest {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    if (IsSkipped()) return;
    stream_ = mshadow::NewStream<gpu>();
  }
  void TearDown() override {
    if (stream_ != nullptr) mshadow::DeleteStream(stream_);
  }

  // Runs `attrs` on the GPU on copies of `inputs` into outputs holding `initial` (as `req`
  // says) and returns the outputs on the host. An operator that draws random numbers draws
  // from the seed its caller set.
  std::vector<CpuTensor> RunGpu(const NodeAttrs& attrs, const std::vector<TBlob>& inputs,
                                const std::vector<CpuTensor>& initial, OpReqType req) {
    const std::vector<GpuTensor> in = CopiesOf(inputs);
    std::vector<TBlob> initial_blobs = ops::Blobs(initial);
    const std::vector<GpuTensor> out = CopiesOf(initial_blobs);
    GpuCall call(attrs, stream_->stream_, /*is_train=*/true);
    Invoke<gpu>(attrs, call.context(), Blobs(in), std::vector<OpReqType>(out.size(), req),
                Blobs(out));
    stream_->Wait();
    std::vector<CpuTensor> result;
    for (const GpuTensor& t : out) result.push_back(t.ToCpu());
    return result;
  }

  // The GPU's results against the CPU's (`expected`, written), written and accumulated onto
  // ones. Both run in training mode (BatchNorm's batch statistics, Dropout's draws), drawing
  // random numbers from the same seed. Hidden outputs (Dropout's mask, RNN's record) are
  // written whatever the request, and start from zeros as the CPU's did: the parts of RNN's
  // record that only its backward operator fills compare equal.
  void ExpectGpuMatchesCpu(const NodeAttrs& attrs, const std::vector<TBlob>& inputs,
                           const std::vector<CpuTensor>& expected, const std::string& what,
                           double float32_tolerance = kFloat32Tolerance) {
    const size_t num_visible = attrs.op->num_visible_outputs(attrs);
    std::vector<CpuTensor> ones;
    for (const CpuTensor& e : expected) {
      ones.emplace_back(e.shape(), e.type_flag());
      if (ones.size() <= num_visible) {
        testing::SetValues(ones.back().blob(), Values(e.shape().Size(), 1.0));
      }
    }
    // float32 tolerance where anything is float32: the multi-precision optimizers compute in
    // their float32 master copy whatever the weight's type.
    bool single = expected.empty() || expected[0].type_flag() == mshadow::kFloat32;
    for (const TBlob& x : inputs) single = single || x.type_flag_ == mshadow::kFloat32;
    const double tolerance = single ? float32_tolerance : 1e-11;
    for (const OpReqType req : {kWriteTo, kAddTo}) {
      if (req == kAddTo && CpuRefusesAddTo(attrs, inputs, expected)) {
        SetRandomSeed(kSeed);
        EXPECT_THROW(RunGpu(attrs, inputs, ones, req), dmlc::Error)
            << what << ": the CPU refuses kAddTo, the GPU accepts it";
        continue;
      }
      SetRandomSeed(kSeed);  // the draws the CPU made
      const std::vector<CpuTensor> actual = RunGpu(attrs, inputs, ones, req);
      for (size_t i = 0; i < expected.size(); ++i) {
        const Values want = testing::ToValues(expected[i].blob());
        const Values got = testing::ToValues(actual[i].blob());
        ASSERT_EQ(want.size(), got.size());
        const double offset = req == kAddTo && i < num_visible ? 1.0 : 0.0;
        for (size_t k = 0; k < want.size(); ++k) {
          const double w = want[k] + offset;
          if (std::isnan(w)) {
            EXPECT_TRUE(std::isnan(got[k])) << what << " output " << i << " element " << k;
            continue;
          }
          ASSERT_NEAR(w, got[k], tolerance * (1.0 + std::fabs(w)))
              << what << (req == kAddTo ? " (kAddTo)" : "") << " output " << i << " element " << k;
        }
      }
    }
  }

  // Whether the CPU refuses to add to the operator's outputs (flags, assignments into a copy
  // of an input), run on copies of `inputs`: the GPU must refuse too.
  static bool CpuRefusesAddTo(const NodeAttrs& attrs, const std::vector<TBlob>& inputs,
                              const std::vector<CpuTensor>& expected) {
    std::vector<CpuTensor> in, out;
    for (const TBlob& x : inputs)
      in.push_back(testing::TensorOf(x.shape_, x.type_flag_, testing::ToValues(x)));
    for (const CpuTensor& e : expected) out.emplace_back(e.shape(), e.type_flag());
    try {
      Invoke<mshadow::cpu>(attrs, MakeCpuContext(attrs, /*is_train=*/true), ops::Blobs(in),
                           std::vector<OpReqType>(out.size(), kAddTo), ops::Blobs(out));
    } catch (const dmlc::Error&) {
      return true;
    }
    return false;
  }

  int CompareCase(const Op* op, const OpCase& c, int type_flag, const std::string& what,
                  std::vector<std::string>* cpu_only, double float32_tolerance = kFloat32Tolerance);

  static constexpr uint64_t kSeed = 1;
  static constexpr double kFloat32Tolerance = 2e-5;
  mshadow::Stream<gpu>* stream_ = nullptr;
};

TEST_F(GpuOperatorTest, EveryGpuOperatorMatchesTheCpu) {
  int compared = 0;
  std::vector<std::string> cpu_only;
  for (const OpCase& c : testing::LoadOpCases("ops/testing/op_cases.txt")) {
    const Op* op = Op::Find(c.op);
    if (op == nullptr) {
      ADD_FAILURE() << "the test does not link " << c.op << ", which op_cases.txt names";
      continue;
    }
    if (op->compute<gpu>() == nullptr) {
      cpu_only.push_back(c.op);
      continue;
    }
    for (const int type_flag : {mshadow::kFloat32, mshadow::kFloat64}) {
      const std::string what =
          testing::CaseName(c) + (type_flag == mshadow::kFloat32 ? " float32" : " float64");
      SCOPED_TRACE(what);
      // One failing case must not hide the others: the whole list is one GPU run.
      try {
        compared += CompareCase(op, c, type_flag, what, &cpu_only);
      } catch (const std::exception& e) {
        ADD_FAILURE() << what << ": " << e.what();
      }
    }
  }
  EXPECT_GT(compared, 0) << "no operator has an FCompute<gpu>";
  std::string list;
  for (const std::string& name : cpu_only) list += " " + name;
  RecordProperty("cpu_only", list);
  std::printf("compared %d operator cases on the GPU; CPU only:%s\n", compared, list.c_str());
}

// Layers the size of a network's, beyond op_cases.txt's small ones: the paths their GPU
// kernels take only at size (BatchNorm's sums in several parts per channel, 16-byte loads
// where a channel's runs allow; max pooling's tiles past one block along each axis; cumsum's
// lines of several chunks, whose float32 sums also differ by order; the densities' parameter
// gradients, sums of many terms), in
// float32 and float64, written and accumulated. float32 within 2e-4: BatchNorm's gamma
// gradient sums ~10^4 products in float32, in a different order on each device (4.7e-5 apart
// on an H200 for the 9248 elements of a (32,4,17,17) channel); float64 as tight as the other
// cases.
TEST_F(GpuOperatorTest, LayerSizedCasesMatchTheCpu) {
  constexpr double kSumsTolerance = 2e-4;
  const char* const kCases[] = {
      "BatchNorm | (8,8,32,32) (8)[0.5,2] (8) (8)~ (8)[0.5,2]~ | fix_gamma=False",
      "BatchNorm | (32,4,17,17) (4)[0.5,2] (4) (4)~ (4)[0.5,2]~ | fix_gamma=False eps=1e-5",
      "BatchNorm | (4096,6) (6)[0.5,2] (6) (6)~ (6)[0.5,2]~ | axis=-1",
      "BatchNorm | (4,8,64,64) (8)[0.5,2] (8) (8)~ (8)[0.5,2]~ | use_global_stats=True",
      "Pooling | (4,8,33,35) | kernel=(3,3) stride=(2,2) pad=(1,1) pool_type=max",
      "Pooling | (2,3,5,9,70) | kernel=(2,3,3) stride=(2,2,2) pad=(1,1,1) pool_type=max "
      "pooling_convention=full",
      "Pooling | (3,4,100) | kernel=(4,) stride=(3,) pool_type=max",
      // Windows with gaps between them: inputs no window holds get no gradient.
      "Pooling | (2,3,40,41) | kernel=(2,2) stride=(3,3) pool_type=max",
      // Three windows hold a position (the gradient's general loops).
      "Pooling | (2,4,20,37) | kernel=(3,3) stride=(1,1) pad=(1,1) pool_type=max",
      // Lines of several chunks, scanned by blocks in three passes; a line of one chunk.
      "_np_cumsum | (3,5000) | axis=1",
      "_np_cumsum | (9000) |",
      "_np_cumsum | (4,3000) | axis=1 dtype=float64",
      // Densities of runs of samples longer than the CPU's, whose parameter gradients sum a
      // long row (one distribution) or many (a Dirichlet's alpha).
      "_random_pdf_normal | (1,20000)[-2,2] (1)[0.5,1] (1)[0.5,2] |",
      "_random_pdf_gamma | (16,700)[0.2,4] (16)[0.5,3] (16)[0.5,2] | is_log=True",
      "_random_pdf_dirichlet | (8,300,5)[0.1,1] (8,5)[0.5,3] |",
      // Many elements counted into few bins (atomic additions on the GPU, chunks on the CPU).
      "_histogram | (3,50000)[-0.2,1.2] | bin_cnt=7 range=(0,1)",
  };
  std::vector<std::string> cpu_only;
  int compared = 0;
  for (const char* line : kCases) {
    const OpCase c = testing::ParseOpCase(line);
    for (const int type_flag : {mshadow::kFloat32, mshadow::kFloat64}) {
      const std::string what =
          std::string(line) + (type_flag == mshadow::kFloat32 ? " float32" : " float64");
      SCOPED_TRACE(what);
      compared += CompareCase(Op::Get(c.op), c, type_flag, what, &cpu_only, kSumsTolerance);
    }
  }
  EXPECT_TRUE(cpu_only.empty()) << ::testing::PrintToString(cpu_only);
  EXPECT_EQ(compared, 4 * static_cast<int>(std::size(kCases)));
}

// One case of the table at one floating type: forward, then backward where the operator has
// a gradient. Returns the number of calls compared.
int GpuOperatorTest::CompareCase(const Op* op, const OpCase& c, int type_flag,
                                 const std::string& what, std::vector<std::string>* cpu_only,
                                 double float32_tolerance) {
  const NodeAttrs attrs = ParseAttrs(op, c.kwargs);
  const std::vector<CpuTensor> inputs = testing::MakeInputs(c, type_flag);
  SetRandomSeed(kSeed);
  // On its own inputs: an operator may update some in place (sgd_mom_update's momentum), and
  // the GPU must start from the same values.
  const std::vector<CpuTensor> outputs =
      RunCpu(attrs, ops::Blobs(testing::MakeInputs(c, type_flag)), /*is_train=*/true);
  ExpectGpuMatchesCpu(attrs, ops::Blobs(inputs), outputs, what, float32_tolerance);
  if (!op->HasAttr("FGradient")) return 1;
  const NodeAttrs backward = BackwardAttrs(attrs);
  if (backward.op->compute<gpu>() == nullptr) {
    cpu_only->push_back(backward.op->name);
    return 1;
  }
  std::vector<CpuTensor> out_grads;
  for (const CpuTensor& o : outputs) {
    // Each output's gradient has that output's type (Cast's differs from its input's;
    // Dropout's mask is uint8, so its values stay in range).
    const int t = o.type_flag();
    const bool floating =
        t == mshadow::kFloat32 || t == mshadow::kFloat64 || t == mshadow::kFloat16;
    const testing::InputSpec spec(o.shape(), floating ? -1.0 : 0.0, floating ? 1.0 : 2.0);
    out_grads.push_back(testing::MakeInputs(OpCase{"", {}, {spec}}, t, 7)[0]);
  }
  const std::vector<TBlob> backward_inputs =
      BackwardInputs(attrs, ops::Blobs(out_grads), ops::Blobs(inputs), ops::Blobs(outputs));
  // The input gradients have the forward inputs' shapes and types, which a backward operator
  // cannot always infer from its own inputs (Cast, Concat, Flatten): the caller gives them.
  std::vector<CpuTensor> in_grads;
  for (const CpuTensor& x : inputs) in_grads.emplace_back(x.shape(), x.type_flag());
  SetRandomSeed(kSeed);
  Invoke<mshadow::cpu>(backward, MakeCpuContext(backward, /*is_train=*/true), backward_inputs,
                       std::vector<OpReqType>(in_grads.size(), kWriteTo), ops::Blobs(in_grads));
  ExpectGpuMatchesCpu(backward, backward_inputs, in_grads, what + " backward", float32_tolerance);
  return 2;
}

// The GPU's float16 and bfloat16 results (forward and backward) against float64 on the CPU
// from the same, rounded inputs, for every case whose operator takes the 16-bit types
// (testing::CheckSixteenBit): the GPU computes in float32 and rounds once.
TEST_F(GpuOperatorTest, SixteenBitOperatorsMatchFloat64OnTheCpu) {
  int compared = 0;
  const testing::SixteenBitRunner on_gpu = [&](const NodeAttrs& attrs,
                                               const std::vector<TBlob>& inputs,
                                               const std::vector<CpuTensor>& outputs) {
    return RunGpu(attrs, inputs, outputs, kWriteTo);
  };
  for (const OpCase& c : testing::LoadOpCases("ops/testing/op_cases.txt")) {
    const Op* op = Op::Find(c.op);
    if (op == nullptr || op->compute<gpu>() == nullptr) continue;
    for (const int type_flag : {mshadow::kFloat16, mshadow::kBfloat16}) {
      try {
        compared += testing::CheckSixteenBit(c, type_flag, on_gpu);
      } catch (const std::exception& e) {
        ADD_FAILURE() << testing::CaseName(c) << " " << mshadow::TypeFlagName(type_flag) << ": "
                      << e.what();
      }
    }
  }
  // Elementwise, activation, softmax, FullyConnected, dot and batch_dot take them.
  EXPECT_GT(compared, 20);
  std::printf("compared %d 16-bit operator calls on the GPU\n", compared);
}

// A label outside [0, classes) on the GPU: its row's loss and gradient are NaN (the CPU raises
// an error; checking on the host would wait for the stream), the other rows are the CPU's,
// and nothing outside the data is read (compute-sanitizer memcheck runs this suite).
TEST_F(GpuOperatorTest, CrossEntropyWithABadLabelGivesNaNRowsNotAnError) {
  const NodeAttrs attrs = ParseAttrs(Op::Get("softmax_cross_entropy"), {});
  CpuTensor data(TShape{3, 4}, mshadow::kFloat32), label(TShape{3}, mshadow::kFloat32);
  testing::SetValues(data.blob(),
                     Values{0.1, -0.3, 0.7, 0.2, 1.0, 0.5, -0.5, 0.0, 0.3, 0.3, -0.2, 0.9});
  testing::SetValues(label.blob(), Values{2, 1e9, 3});  // row 1: no such class
  CpuTensor zero(TShape{1}, mshadow::kFloat32);
  const std::vector<CpuTensor> loss = RunGpu(attrs, {data.blob(), label.blob()}, {zero}, kWriteTo);
  EXPECT_TRUE(std::isnan(testing::ToValues(loss[0].blob())[0]));

  // Rows 0 and 2 of the gradient match the CPU's on the valid labels; row 1 is NaN.
  const NodeAttrs backward = BackwardAttrs(attrs);
  CpuTensor head(TShape{1}, mshadow::kFloat32), grad(TShape{3, 4}, mshadow::kFloat32),
      label_grad(TShape{3}, mshadow::kFloat32);
  testing::SetValues(head.blob(), Values{1.0});
  const std::vector<CpuTensor> grads =
      RunGpu(backward, {head.blob(), data.blob(), label.blob()}, {grad, label_grad}, kWriteTo);
  const Values g = testing::ToValues(grads[0].blob());
  testing::SetValues(label.blob(), Values{2, 0, 3});
  std::vector<CpuTensor> expected = {CpuTensor(TShape{3, 4}, mshadow::kFloat32),
                                     CpuTensor(TShape{3}, mshadow::kFloat32)};
  Invoke<mshadow::cpu>(backward, MakeCpuContext(backward), {head.blob(), data.blob(), label.blob()},
                       {kWriteTo, kWriteTo}, ops::Blobs(expected));
  const Values want = testing::ToValues(expected[0].blob());
  for (size_t k = 0; k < g.size(); ++k) {
    if (k / 4 == 1) {
      EXPECT_TRUE(std::isnan(g[k])) << "element " << k;
    } else {
      EXPECT_NEAR(want[k], g[k], 1e-6) << "element " << k;
    }
  }
}

// box_nms's backward on the GPU with an index (the forward's hidden output, back from the host)
// naming a row past the boxes: an error naming it, as on the CPU, and nothing written.
TEST_F(GpuOperatorTest, BoxNmsBackwardNamesAnIndexPastTheBoxes) {
  const NodeAttrs backward = ParseAttrs(Op::Get("_backward_contrib_box_nms"), {});
  const CpuTensor og = testing::TensorOf(TShape{2, 6}, mshadow::kFloat32, Values(12, 1.0));
  const CpuTensor index_grad = testing::TensorOf(TShape{2}, mshadow::kInt32, {0, 0});
  const CpuTensor out = testing::TensorOf(TShape{2, 6}, mshadow::kFloat32, Values(12, 0.5));
  const CpuTensor index = testing::TensorOf(TShape{2}, mshadow::kInt32, {1, 2});
  const CpuTensor grad = testing::TensorOf(TShape{2, 6}, mshadow::kFloat32, Values(12, 7.0));
  const std::vector<GpuTensor> in = CopiesOf({og.blob(), index_grad.blob(), out.blob(),
                                              index.blob()});
  const std::vector<GpuTensor> grads = CopiesOf({grad.blob()});
  GpuCall call(backward, stream_->stream_, /*is_train=*/true);
  EXPECT_THAT(testing::ErrorOf([&] {
                Invoke<gpu>(backward, call.context(), Blobs(in), {kWriteTo}, Blobs(grads));
              }),
              ::testing::HasSubstr("holds 2 at row 1; valid: -1 (no input row) or an input row "
                                   "0 to 1"));
  stream_->Wait();
  EXPECT_EQ(testing::ToValues(grads[0].ToCpu().blob()), Values(12, 7.0));
}

// Needs no GPU: the registry alone says which operators have a GPU implementation.
TEST(GpuOperatorCoverage, EveryOperatorHasAnFComputeGpu) {
  const std::vector<std::string> names = Op::ListAllNames();
  ASSERT_GT(names.size(), 40u) << "the operators are not linked in";
  std::vector<std::string> missing;
  for (const std::string& name : names) {
    if (Op::Get(name)->compute<gpu>() == nullptr) missing.push_back(name);
  }
  EXPECT_TRUE(missing.empty()) << "operators without FCompute<gpu>: "
                               << ::testing::PrintToString(missing);
}

}  // namespace
}  // namespace ops
