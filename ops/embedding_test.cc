// Embedding: rows gathered for whole, fractional and out-of-range indices (truncated and
// clipped as in MXNet), write modes, the weight gradient (repeated indices add up) against
// central differences and a direct sum, integer index types, and errors.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/backward.h"
#include "ops/testing/op_test_util.h"

namespace ops {
namespace {

using ::testing::HasSubstr;
using testing::InputSpec;
using testing::OpCase;
using testing::Values;

constexpr int kRows = 6, kDim = 5;

int ClippedRow(double index) {
  if (!(index > 0)) return 0;
  return index >= kRows - 1 ? kRows - 1 : static_cast<int>(index);
}

Values Gather(const Values& indices, const Values& weight) {
  Values out;
  for (double index : indices) {
    const int row = ClippedRow(index);
    out.insert(out.end(), weight.begin() + row * kDim, weight.begin() + (row + 1) * kDim);
  }
  return out;
}

const std::map<std::string, std::string> kParams = {{"input_dim", std::to_string(kRows)},
                                                    {"output_dim", std::to_string(kDim)}};

TEST(EmbeddingTest, GathersTruncatedClippedRows) {
  const Values indices = {0, 5, 2.7, -3, 9, 1, 1, 4.999};
  const OpCase c{"Embedding",
                 kParams,
                 {InputSpec::WithValues(TShape{2, 4}, indices), InputSpec{TShape{kRows, kDim}}}};
  EXPECT_EQ(testing::InferOutputShapes(c)[0], (TShape{2, 4, kDim}));
  testing::CheckForward(c, [&](const std::vector<Values>& in) {
    return std::vector<Values>{Gather(in[0], in[1])};
  });
  testing::CheckWriteModes(c);
}

TEST(EmbeddingTest, WeightGradientAddsRepeatedRows) {
  InputSpec indices{TShape{3, 7}, 0, kRows};
  indices.integer = true;
  indices.differentiable = false;
  const OpCase c{"Embedding", kParams, {indices, InputSpec{TShape{kRows, kDim}}}};
  testing::CheckGradient(c);
  // Directly: every row's gradient is the sum of the output gradient rows that read it.
  const NodeAttrs attrs = ParseAttrs(Op::Get("Embedding"), kParams);
  const auto inputs = testing::MakeInputs(c, mshadow::kFloat64);
  const auto outputs = RunCpu(attrs, Blobs(inputs), true);
  CpuTensor head(outputs[0].blob().shape_, mshadow::kFloat64);
  Values h(21 * kDim);
  for (size_t i = 0; i < h.size(); ++i) h[i] = 0.01 * static_cast<double>(i) - 0.3;
  testing::SetValues(head.blob(), h);
  std::vector<CpuTensor> grads;
  for (const auto& t : inputs) grads.emplace_back(t.blob().shape_, mshadow::kFloat64);
  const NodeAttrs backward = BackwardAttrs(attrs);
  Invoke<mshadow::cpu>(backward, MakeCpuContext(backward, true),
                       BackwardInputs(attrs, {head.blob()}, Blobs(inputs), Blobs(outputs)),
                       {kWriteTo, kWriteTo}, Blobs(grads));
  const Values idx = testing::ToValues(inputs[0].blob());
  Values expected(kRows * kDim, 0.0);
  for (size_t k = 0; k < idx.size(); ++k) {
    for (int j = 0; j < kDim; ++j) expected[ClippedRow(idx[k]) * kDim + j] += h[k * kDim + j];
  }
  const Values got = testing::ToValues(grads[1].blob());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], expected[i], 1e-12);
  EXPECT_EQ(testing::ToValues(grads[0].blob()), Values(21, 0.0));
}

TEST(EmbeddingTest, IntegerIndices) {
  for (int type : {mshadow::kInt32, mshadow::kInt64}) {
    CpuTensor indices(TShape{4}, type), weight(TShape{kRows, kDim}, mshadow::kFloat32);
    testing::SetValues(indices.blob(), {3, 0, 7, 2});
    Values w(kRows * kDim);
    for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<double>(i);
    testing::SetValues(weight.blob(), w);
    const auto out =
        RunCpu(ParseAttrs(Op::Get("Embedding"), kParams), {indices.blob(), weight.blob()});
    EXPECT_EQ(testing::ToValues(out[0].blob()), Gather({3, 0, 7, 2}, w));
  }
}

TEST(EmbeddingTest, Errors) {
  EXPECT_THAT(testing::ErrorOf([] {
                std::map<std::string, std::string> kw = kParams;
                kw["sparse_grad"] = "True";
                ParseAttrs(Op::Get("Embedding"), kw);
              }),
              HasSubstr("sparse_grad=True (a row-sparse gradient) is not supported"));
  EXPECT_THAT(testing::ErrorOf([] {
                std::vector<int> in = {mshadow::kUint8, -1}, out;
                InferTypes(ParseAttrs(Op::Get("Embedding"), kParams), &in, &out);
              }),
              HasSubstr("Embedding indices of type uint8 are not supported; valid: float32, "
                        "float64, int32, int64"));
  EXPECT_THAT(testing::ErrorOf([] {
                testing::InferOutputShapes(OpCase{
                    "Embedding", kParams, {InputSpec{TShape{3}}, InputSpec{TShape{kRows, 4}}}});
              }),
              HasSubstr("(6,5)"));
}

}  // namespace
}  // namespace ops
