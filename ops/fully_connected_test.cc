// FullyConnected.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mshadow/parallel.h"
#include "ops/testing/op_test_util.h"

namespace ops {
namespace {

using ::testing::HasSubstr;
using testing::InputSpec;
using testing::OpCase;
using testing::Values;

// out[b][h] = sum_k data[b][k] * weight[h][k] + bias[h]
std::vector<Values> FullyConnectedReference(const std::vector<Values>& in, index_t batch,
                                            index_t features, index_t hidden) {
  Values out(batch * hidden);
  for (index_t b = 0; b < batch; ++b) {
    for (index_t h = 0; h < hidden; ++h) {
      double sum = in.size() > 2 ? in[2][h] : 0.0;
      for (index_t k = 0; k < features; ++k)
        sum += in[0][b * features + k] * in[1][h * features + k];
      out[b * hidden + h] = sum;
    }
  }
  return {out};
}

TEST(FullyConnectedTest, WithAndWithoutBiasFlattenOrNot) {
  const OpCase flat{"FullyConnected",
                    {{"num_hidden", "5"}},
                    {InputSpec{TShape{3, 2, 4}}, InputSpec{TShape{5, 8}}, InputSpec{TShape{5}}}};
  EXPECT_EQ(testing::InferOutputShapes(flat)[0], (TShape{3, 5}));
  testing::CheckForward(
      flat, [](const std::vector<Values>& in) { return FullyConnectedReference(in, 3, 8, 5); },
      1e-13, 1e-5);
  testing::CheckWriteModes(flat);
  testing::CheckGradient(flat);

  const OpCase no_bias{"FullyConnected",
                       {{"num_hidden", "4"}, {"no_bias", "true"}, {"flatten", "false"}},
                       {InputSpec{TShape{2, 3, 6}}, InputSpec{TShape{4, 6}}}};
  EXPECT_EQ(testing::InferOutputShapes(no_bias)[0], (TShape{2, 3, 4}));
  testing::CheckForward(
      no_bias, [](const std::vector<Values>& in) { return FullyConnectedReference(in, 6, 6, 4); },
      1e-13, 1e-5);
  testing::CheckGradient(no_bias);
}

// (batch, features) data to `hidden` units, with and without bias, on two threads: forward,
// write modes and gradients.
void CheckWithAndWithoutBias(int batch, int features, int hidden) {
  mshadow::SetNumThreads(2);
  for (const bool no_bias : {false, true}) {
    SCOPED_TRACE(no_bias ? "no bias" : "bias");
    std::vector<InputSpec> inputs = {InputSpec{TShape{batch, features}},
                                     InputSpec{TShape{hidden, features}}};
    if (!no_bias) inputs.push_back(InputSpec{TShape{hidden}});
    const OpCase c{
        "FullyConnected",
        {{"num_hidden", std::to_string(hidden)}, {"no_bias", no_bias ? "true" : "false"}},
        inputs};
    testing::CheckForward(
        c,
        [&](const std::vector<Values>& in) {
          return FullyConnectedReference(in, batch, features, hidden);
        },
        1e-13, 1e-5);
    testing::CheckWriteModes(c);
    testing::CheckGradient(c);
  }
  mshadow::SetNumThreads(0);
}

// One row takes the gemv and outer-product paths; wide enough for packets and threads.
TEST(FullyConnectedTest, OneRowWithAndWithoutBias) { CheckWithAndWithoutBias(1, 203, 190); }

// Batches of rows with whole strips of hidden units take the register-tiled products where
// the packets are AVX-512 (BLAS elsewhere), the forward's weight transposed into the product's
// strips.
TEST(FullyConnectedTest, BatchesWithWholeStripsOfHiddenUnits) {
  CheckWithAndWithoutBias(70, 37, 96);
}

// Batches of up to 64 rows (fully_connected::kTiledBatchMaxRows) take the register-tiled
// forward and data gradient where the packets are AVX-512, whatever BLAS runs: hidden units
// past the last whole strip go through one more strip, zero-padded (3 strips and 4 units; 13
// units, no whole strip).
TEST(FullyConnectedTest, SmallBatchesWithHiddenUnitsPastWholeStrips) {
  CheckWithAndWithoutBias(33, 37, 100);
  CheckWithAndWithoutBias(64, 20, 13);
}

// Between 64 and 128 rows (kTiledWeightGradientMaxRows) only the weight gradient takes the
// tiles there: the forward and the data gradient go to BLAS in the same call.
TEST(FullyConnectedTest, BatchesWhoseWeightGradientAloneTakesTheTiles) {
  CheckWithAndWithoutBias(100, 19, 40);
}

TEST(FullyConnectedTest, InfersWeightAndBiasAndExplainsConflicts) {
  const NodeAttrs attrs = ParseAttrs(Op::Get("FullyConnected"), {{"num_hidden", "128"}});
  std::vector<TShape> in = {TShape{32, 64}, TShape(), TShape()}, out;
  InferShapes(attrs, &in, &out);
  EXPECT_EQ(in[1], (TShape{128, 64}));
  EXPECT_EQ(in[2], (TShape{128}));
  std::vector<TShape> wrong = {TShape{32, 64}, TShape{128, 100}, TShape()};
  EXPECT_EQ(testing::ErrorOf([&] { InferShapes(attrs, &wrong, &out); }),
            "FullyConnected: shape of input 'weight' is (128,100) but (128,64) is required "
            "(inputs: data=(32,64), weight=(128,100), bias=())");
  EXPECT_THAT(testing::ErrorOf([] {
                ParseAttrs(Op::Get("FullyConnected"), {{"num_hidden", "0"}});
              }),
              HasSubstr("value 0 for Parameter num_hidden should be greater equal to 1"));
  EXPECT_THAT(testing::ErrorOf([] {
                ParseAttrs(Op::Get("FullyConnected"), {{"num_hiden", "3"}});
              }),
              HasSubstr("Cannot find argument 'num_hiden' of FullyConnectedParam. Did you mean "
                        "'num_hidden'?"));
  const NodeAttrs no_bias =
      ParseAttrs(Op::Get("FullyConnected"), {{"num_hidden", "2"}, {"no_bias", "1"}});
  EXPECT_EQ(Op::Get("FullyConnected")->num_inputs(no_bias), 2u);
}

}  // namespace
}  // namespace ops
