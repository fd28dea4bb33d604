// Dropout: the kept fraction and scale, reproducibility for a seed on any thread count,
// inference and mode=always, shared axes, p = 0 and 1, the gradient through the mask, and
// errors.
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mshadow/parallel.h"
#include "ops/backward.h"
#include "ops/dropout-inl.h"
#include "ops/random_source.h"
#include "ops/testing/op_test_util.h"

namespace ops {
namespace {

using ::testing::HasSubstr;
using testing::InputSpec;
using testing::OpCase;
using testing::Values;

struct Result {
  Values data, out, mask;
};

Result RunDropout(const std::map<std::string, std::string>& kwargs, const TShape& shape,
                  bool is_train, int type_flag = mshadow::kFloat32) {
  const OpCase c{"Dropout", kwargs, {InputSpec{shape, 0.5, 2}}};
  const NodeAttrs attrs = ParseAttrs(Op::Get("Dropout"), kwargs);
  const auto inputs = testing::MakeInputs(c, type_flag);
  const auto outputs = RunCpu(attrs, Blobs(inputs), is_train);
  return {testing::ToValues(inputs[0].blob()), testing::ToValues(outputs[0].blob()),
          testing::ToValues(outputs[1].blob())};
}

TEST(DropoutTest, KeepsAboutOneMinusPScaledByItsInverse) {
  for (int type_flag : {mshadow::kFloat32, mshadow::kFloat64}) {
    const Result r = RunDropout({{"p", "0.3"}}, TShape{1000, 101}, true, type_flag);
    const double n = static_cast<double>(r.data.size());
    double kept = 0;
    for (size_t i = 0; i < r.data.size(); ++i) {
      const bool keeps = r.mask[i] != 0;
      kept += keeps;
      EXPECT_TRUE(r.mask[i] == 0 || r.mask[i] == 1) << r.mask[i];
      EXPECT_NEAR(r.out[i], r.data[i] * r.mask[i] / (1 - 0.3f), 1e-6 * (1 + r.out[i]));
    }
    // Binomial(n, 0.7): 5 standard deviations.
    EXPECT_NEAR(kept / n, 0.7, 5 * std::sqrt(0.7 * 0.3 / n));
  }
}

TEST(DropoutTest, ReproducibleForASeedOnAnyThreadCount) {
  const TShape shape{300, 301};  // odd: the last Philox block is partial
  SetRandomSeed(7);
  mshadow::SetNumThreads(1);
  const Values first = RunDropout({}, shape, true).mask;
  const Values next = RunDropout({}, shape, true).mask;
  SetRandomSeed(7);
  mshadow::SetNumThreads(2);
  EXPECT_EQ(RunDropout({}, shape, true).mask, first);
  EXPECT_EQ(RunDropout({}, shape, true).mask, next);
  mshadow::SetNumThreads(0);
  EXPECT_NE(first, next);
}

// The CPU's runs (DropoutRun: the blocks' words from SIMD lanes) against the definition,
// element j kept where word j % 4 of block counter + j / 4 is below 1 - p, computed one
// element at a time: lengths with runs of whole lane blocks, blocks left over in an item and
// a partial last block, counters across 2^32.
TEST(DropoutTest, CpuRunsDrawAsTheDefinition) {
  constexpr index_t kItemElements = 4 * dropout::DropoutRun<kWriteTo>::kBlocks;
  for (const index_t n : {index_t{5}, index_t{4 * 32 * 3}, kItemElements + 4 * 37 + 3,
                          2 * kItemElements}) {
    const PhiloxRange range{0x5eedull, 0xffffffffull - 50};
    const float keep = 0.3f, scale = 1 / keep;
    std::vector<float> x(n), out(n, -1);
    std::vector<uint8_t> mask(n, 7);
    for (index_t i = 0; i < n; ++i) x[i] = 1.0f + static_cast<float>(i % 13);
    for (index_t r = 0; r <= n / kItemElements; ++r) {
      dropout::DropoutRun<kWriteTo>::Map(r, n, range, keep, scale, x.data(), out.data(),
                                         mask.data());
    }
    for (index_t i = 0; i < n; ++i) {
      const bool kept = dropout::Keeps(range, i, keep);
      ASSERT_EQ(mask[i], kept ? 1 : 0) << "element " << i << " of " << n;
      ASSERT_EQ(out[i], kept ? x[i] * scale : 0.0f) << "element " << i << " of " << n;
    }
  }
}

TEST(DropoutTest, IdentityAtInferenceUnlessModeAlways) {
  const Result inference = RunDropout({{"p", "0.5"}}, TShape{50, 20}, false);
  EXPECT_EQ(inference.out, inference.data);
  EXPECT_EQ(inference.mask, Values(inference.data.size(), 1.0));
  const Result always = RunDropout({{"p", "0.5"}, {"mode", "always"}}, TShape{50, 20}, false);
  int zeros = 0;
  for (double m : always.mask) zeros += m == 0;
  EXPECT_GT(zeros, 0);
}

TEST(DropoutTest, ZeroAndOne) {
  const Result none = RunDropout({{"p", "0"}}, TShape{40, 5}, true);
  EXPECT_EQ(none.out, none.data);
  const Result all = RunDropout({{"p", "1"}}, TShape{40, 5}, true);
  EXPECT_EQ(all.out, Values(all.data.size(), 0.0));
}

TEST(DropoutTest, SharedAxesShareOneDraw) {
  const int n = 30, c = 4, w = 7;
  const Result r = RunDropout({{"axes", "(0,2)"}}, TShape{n, c, w}, true);
  int kept_channels = 0;
  for (int ch = 0; ch < c; ++ch) {
    const double m = r.mask[ch * w];
    kept_channels += m != 0;
    for (int b = 0; b < n; ++b) {
      for (int x = 0; x < w; ++x) EXPECT_EQ(r.mask[(b * c + ch) * w + x], m);
    }
  }
  // Varies across the channels for some seed (4 draws; all equal has probability 1/8).
  SetRandomSeed(3);
  bool varies = false;
  for (int trial = 0; trial < 8 && !varies; ++trial) {
    const Result t = RunDropout({{"axes", "(0,2)"}}, TShape{n, c, w}, true);
    for (int ch = 1; ch < c; ++ch) varies = varies || t.mask[ch * w] != t.mask[0];
  }
  EXPECT_TRUE(varies);
}

TEST(DropoutTest, GradientIsTheOutputGradientTimesTheMask) {
  const OpCase c{"Dropout", {{"p", "0.4"}}, {InputSpec{TShape{8, 9}}}};
  const NodeAttrs attrs = ParseAttrs(Op::Get("Dropout"), c.kwargs);
  const auto inputs = testing::MakeInputs(c, mshadow::kFloat64);
  const auto outputs = RunCpu(attrs, Blobs(inputs), true);
  CpuTensor head(TShape{8, 9}, mshadow::kFloat64), mask_head(TShape{8, 9}, mshadow::kUint8);
  Values h(72);
  for (int i = 0; i < 72; ++i) h[i] = 0.1 * i - 3;
  testing::SetValues(head.blob(), h);
  testing::SetValues(mask_head.blob(), Values(72, 0.0));
  const Values mask = testing::ToValues(outputs[1].blob());
  for (OpReqType req : {kWriteTo, kAddTo}) {
    CpuTensor grad(TShape{8, 9}, mshadow::kFloat64);
    testing::SetValues(grad.blob(), Values(72, 1.0));
    const NodeAttrs backward = BackwardAttrs(attrs);
    Invoke<mshadow::cpu>(
        backward, MakeCpuContext(backward, true),
        BackwardInputs(attrs, {head.blob(), mask_head.blob()}, Blobs(inputs), Blobs(outputs)),
        {req}, {grad.blob()});
    const Values g = testing::ToValues(grad.blob());
    for (int i = 0; i < 72; ++i) {
      EXPECT_DOUBLE_EQ(g[i], (req == kAddTo ? 1.0 : 0.0) + h[i] * mask[i] / (1 - 0.4f));
    }
  }
}

TEST(DropoutTest, OutputsAndErrors) {
  EXPECT_EQ(Op::Get("Dropout")->num_visible_outputs(NodeAttrs()), 1u);
  std::vector<int> in = {mshadow::kFloat64}, out;
  InferTypes(ParseAttrs(Op::Get("Dropout"), {}), &in, &out);
  EXPECT_EQ(out, (std::vector<int>{mshadow::kFloat64, mshadow::kUint8}));
  EXPECT_THAT(testing::ErrorOf([] { ParseAttrs(Op::Get("Dropout"), {{"p", "1.5"}}); }),
              HasSubstr("p"));
  EXPECT_THAT(testing::ErrorOf([] {
                testing::InferOutputShapes(
                    OpCase{"Dropout", {{"axes", "(3,)"}}, {InputSpec{TShape{2, 3}}}});
              }),
              HasSubstr("axes"));
}

}  // namespace
}  // namespace ops
