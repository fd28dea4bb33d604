// add_n / ElementWiseSum: sums of one to nine arrays (the first pass over memory takes four,
// each further one three), write modes, gradients (many blocks on two threads, streamed or
// not), shapes.
#include <random>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mshadow/parallel.h"
#include "mshadow/streaming_stores.h"
#include "ops/testing/op_test_util.h"

namespace ops {
namespace {

using ::testing::HasSubstr;
using testing::InputSpec;
using testing::OpCase;
using testing::Values;

TEST(AddNTest, SumsWriteModesAndGradients) {
  EXPECT_EQ(Op::Get("ElementWiseSum"), Op::Get("add_n"));
  for (int n = 1; n <= 9; ++n) {
    SCOPED_TRACE(n);
    // 69 elements: whole packets and a tail on every arch.
    const OpCase c{"add_n",
                   {{"num_args", std::to_string(n)}},
                   std::vector<InputSpec>(n, InputSpec(TShape{3, 23}))};
    testing::CheckForward(c, [n](const std::vector<Values>& in) {
      Values out(in[0].size(), 0.0);
      for (int k = 0; k < n; ++k)
        for (size_t i = 0; i < out.size(); ++i) out[i] += in[k][i];
      return std::vector<Values>{out};
    });
    testing::CheckWriteModes(c);
    testing::CheckGradient(c);
  }
  EXPECT_THAT(testing::ErrorOf([] {
                testing::InferOutputShapes({"add_n", {{"num_args", "2"}}, {InputSpec(TShape{3}), InputSpec(TShape{4})}});
              }),
              HasSubstr("(4,)"));
}

TEST(AddNTest, GradientsOfManyBlocksOnTwoThreadsStreamedOrNot) {
  // 40037 elements: blocks of 4 KiB on two threads and a tail; each input's gradient is the
  // output gradient exactly, written with streaming stores or ordinary ones.
  struct StreamingFrom {
    explicit StreamingFrom(index_t bytes) { mshadow::SetStreamingStoreMinBytes(bytes); }
    ~StreamingFrom() { mshadow::SetStreamingStoreMinBytes(0); }
  };
  const OpCase c{"add_n", {{"num_args", "3"}}, std::vector<InputSpec>(3, InputSpec(TShape{40037}))};
  std::mt19937_64 rng(5);
  const Values out_grad = testing::RandomValues(40037, -1, 1, &rng);
  for (const int type_flag : {mshadow::kFloat64, mshadow::kFloat32}) {
    const std::vector<CpuTensor> in = testing::MakeInputs(c, type_flag);
    Values expected = out_grad;  // as the type holds it
    if (type_flag == mshadow::kFloat32) {
      for (double& v : expected) v = static_cast<float>(v);
    }
    for (const index_t streaming_from : {index_t{1}, mshadow::kNoStreamingStores}) {
      const StreamingFrom streaming(streaming_from);
      for (const int threads : {1, 2}) {
        SCOPED_TRACE(std::to_string(threads) + " threads, streaming from " +
                     std::to_string(streaming_from) + " bytes, " +
                     mshadow::TypeFlagName(type_flag));
        mshadow::SetNumThreads(threads);
        const std::vector<CpuTensor> grads = testing::Backward(c, in, {out_grad});
        ASSERT_EQ(grads.size(), 3u);
        for (const CpuTensor& g : grads) EXPECT_EQ(testing::ToValues(g.blob()), expected);
      }
    }
  }
  mshadow::SetNumThreads(1);
}

}  // namespace
}  // namespace ops
