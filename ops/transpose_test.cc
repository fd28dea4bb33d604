// transpose, SwapAxis (swapaxes).
#include <sstream>
#include <string>
#include <utility>
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

std::vector<Values> Identity(const std::vector<Values>& in) { return {in[0]}; }

TEST(SwapAxesTest, SwapsTwoAxesThroughTranspose) {
  EXPECT_EQ(Op::Get("SwapAxis"), Op::Get("swapaxes"));
  const OpCase c{"swapaxes", {{"dim1", "0"}, {"dim2", "-1"}}, {InputSpec(TShape{2, 3, 4})}};
  EXPECT_EQ(testing::InferOutputShapes(c)[0], (TShape{4, 3, 2}));
  testing::CheckForward(c, [](const std::vector<Values>& in) {
    Values out;
    for (int k = 0; k < 4; ++k)
      for (int j = 0; j < 3; ++j)
        for (int i = 0; i < 2; ++i) out.push_back(in[0][(i * 3 + j) * 4 + k]);
    return std::vector<Values>{out};
  });
  testing::CheckWriteModes(c);
  testing::CheckGradient(c);
  const OpCase same{"swapaxes", {}, {InputSpec(TShape{2, 3})}};
  testing::CheckForward(same, Identity);
  EXPECT_THAT(
      testing::ErrorOf([] {
        testing::InferOutputShapes({"swapaxes", {{"dim2", "3"}}, {InputSpec(TShape{2, 3})}});
      }),
      HasSubstr("dim2 3"));
}

// x with its axes permuted (output axis i is input axis perm[i]), for any shape.
Values Permuted(const Values& x, const TShape& shape, const std::vector<int>& perm) {
  const int ndim = static_cast<int>(shape.ndim());
  std::vector<index_t> strides(ndim, 1);
  for (int d = ndim - 2; d >= 0; --d) strides[d] = strides[d + 1] * shape[d + 1];
  Values out(x.size());
  std::vector<index_t> out_index(ndim, 0);
  for (size_t o = 0; o < out.size(); ++o) {
    index_t rest = static_cast<index_t>(o), at = 0;
    for (int i = ndim - 1; i >= 0; --i) {
      at += rest % shape[perm[i]] * strides[perm[i]];
      rest /= shape[perm[i]];
    }
    out[o] = x[at];
  }
  return out;
}

// Every permutation of a 4-d shape with a unit axis, and shapes that take the tiled path with
// partial tiles, merged axes, and threads; the tiles written through ordinary stores and, forced
// on, through streaming stores (rows aligned or not).
TEST(TransposeTest, AnyPermutationMergedTiledAndThreaded) {
  mshadow::SetNumThreads(2);
  std::vector<std::pair<TShape, std::vector<int>>> cases;
  std::vector<int> perm = {0, 1, 2, 3};
  do {
    cases.push_back({TShape{3, 1, 5, 7}, perm});
  } while (std::next_permutation(perm.begin(), perm.end()));
  cases.push_back({TShape{67, 45}, {1, 0}});
  cases.push_back({TShape{5, 33, 70}, {0, 2, 1}});
  cases.push_back({TShape{4, 6, 35, 3}, {2, 3, 0, 1}});
  cases.push_back({TShape{700, 300}, {1, 0}});
  cases.push_back({TShape{40, 30, 50}, {1, 0, 2}});
  cases.push_back({TShape{3, 64, 40}, {0, 2, 1}});
  for (const index_t stream_from : {index_t{0}, index_t{1}}) {
    mshadow::SetStreamingStoreMinBytes(stream_from);  // 0: the default; 1: every output
    for (const auto& [shape, p] : cases) {
      std::ostringstream axes;
      axes << "(";
      for (size_t i = 0; i < p.size(); ++i) axes << (i ? "," : "") << p[i];
      axes << ")";
      std::ostringstream trace;
      trace << shape << " axes " << axes.str() << (stream_from ? " streamed" : "");
      SCOPED_TRACE(trace.str());
      const OpCase c{"transpose", {{"axes", axes.str()}}, {InputSpec{shape}}};
      testing::CheckForward(c, [&](const std::vector<Values>& in) {
        return std::vector<Values>{Permuted(in[0], shape, p)};
      });
      testing::CheckWriteModes(c);
      testing::CheckGradient(c);
    }
  }
  mshadow::SetStreamingStoreMinBytes(0);
  mshadow::SetNumThreads(0);
}

TEST(TransposeTest, PermutationsForwardAndGradient) {
  for (const std::string axes : {"()", "(1,0,2)", "(2,0,1)", "(0,1,2)"}) {
    SCOPED_TRACE(axes);
    const OpCase c{"transpose", {{"axes", axes}}, {InputSpec{TShape{2, 3, 4}}}};
    const std::vector<int> perm = axes == "()"        ? std::vector<int>{2, 1, 0}
                                  : axes == "(1,0,2)" ? std::vector<int>{1, 0, 2}
                                  : axes == "(2,0,1)" ? std::vector<int>{2, 0, 1}
                                                      : std::vector<int>{0, 1, 2};
    const index_t dims[3] = {2, 3, 4};
    const TShape out_shape{dims[perm[0]], dims[perm[1]], dims[perm[2]]};
    EXPECT_EQ(testing::InferOutputShapes(c)[0], out_shape);
    testing::CheckForward(c, [&](const std::vector<Values>& in) {
      Values out(24);
      for (index_t i = 0; i < 2; ++i) {
        for (index_t j = 0; j < 3; ++j) {
          for (index_t k = 0; k < 4; ++k) {
            const index_t idx[3] = {i, j, k};
            const index_t o =
                (idx[perm[0]] * out_shape[1] + idx[perm[1]]) * out_shape[2] + idx[perm[2]];
            out[o] = in[0][(i * 3 + j) * 4 + k];
          }
        }
      }
      return std::vector<Values>{out};
    });
    testing::CheckWriteModes(c);
    testing::CheckGradient(c);
  }
  const OpCase bad{"transpose", {{"axes", "(0,0,1)"}}, {InputSpec{TShape{2, 3, 4}}}};
  EXPECT_EQ(testing::ErrorOf([&] { testing::InferOutputShapes(bad); }),
            "transpose: axes (0,0,1) is not a permutation of the 3 axes of the input");
}

}  // namespace
}  // namespace ops
