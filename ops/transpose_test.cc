// transpose, SwapAxis (swapaxes).
#include <cstdint>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mshadow/parallel.h"
#include "mshadow/streaming_stores.h"
#include "ops/testing/op_test_util.h"
#include "ops/transpose_block.h"

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

// Streamed outputs that start off a cache line, rows whole lines apart (their first rows up to
// the line a block of their own) or not: 2-d, the inner axes of 3-d, partial tiles.
TEST(TransposeTest, StreamsToOutputsOffALine) {
  const std::pair<TShape, std::string> cases[] = {{TShape{96, 70}, "(1,0)"},
                                                  {TShape{3, 48, 41}, "(0,2,1)"},
                                                  {TShape{2, 37, 40}, "(0,2,1)"}};
  for (const auto& [shape, axes] : cases) {
    testing::CheckStreamedOffALine({"transpose", {{"axes", axes}}, {InputSpec{shape}}});
  }
}

// TransposeBlock against the element loop on every mix of the arch's squares and the bands
// they leave (rows and columns 1-40), a source row stride wider than its rows, destination rows
// aligned to a cache line or not, both write modes, streamed or not; nothing written outside.
template <typename DType, bool kAdd, bool kStream>
void CheckTransposeBlock(index_t rows, index_t cols, bool aligned) {
  const index_t src_ld = cols + 3, dst_ld = aligned ? (rows + 15) / 16 * 16 : rows + 5;
  std::vector<DType> src(rows * src_ld);
  for (size_t k = 0; k < src.size(); ++k) src[k] = static_cast<DType>(k % 1000) + DType(0.25);
  // dst on a cache line boundary, so that aligned rows take whole-line (streaming) stores.
  std::vector<DType> storage(cols * dst_ld + 64 / sizeof(DType));
  const size_t skip = (64 - reinterpret_cast<uintptr_t>(storage.data()) % 64) % 64 / sizeof(DType);
  DType* dst = storage.data() + skip;
  std::vector<DType> expected(cols * dst_ld);
  for (size_t k = 0; k < expected.size(); ++k) expected[k] = dst[k] = -static_cast<DType>(k % 7);
  for (index_t i = 0; i < rows; ++i) {
    for (index_t j = 0; j < cols; ++j) {
      DType& e = expected[j * dst_ld + i];
      e = kAdd ? e + src[i * src_ld + j] : src[i * src_ld + j];
    }
  }
  transpose::TransposeBlock<kAdd, kStream>(src.data(), src_ld, dst, dst_ld, rows, cols);
  mshadow::FenceStreamingStores();
  for (index_t k = 0; k < cols * dst_ld; ++k) {
    ASSERT_EQ(dst[k], expected[k]) << "row " << k / dst_ld << " column " << k % dst_ld;
  }
}

template <typename DType>
void CheckTransposeBlocks() {
  for (index_t rows = 1; rows <= 40; ++rows) {
    for (index_t cols = 1; cols <= 40; ++cols) {
      for (const bool aligned : {false, true}) {
        SCOPED_TRACE(::testing::Message() << rows << " x " << cols << (aligned ? " aligned" : ""));
        CheckTransposeBlock<DType, false, false>(rows, cols, aligned);
        CheckTransposeBlock<DType, true, false>(rows, cols, aligned);
        CheckTransposeBlock<DType, false, true>(rows, cols, aligned);
      }
    }
  }
}

TEST(TransposeTest, BlockKernelMatchesElementLoop) {
  CheckTransposeBlocks<float>();
  CheckTransposeBlocks<double>();
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

// depth_to_space and space_to_depth: MXNet 1.9.1's printed values, element formulas on random
// data of larger blocks, each the other's inverse and gradient, the shapes they refuse.
TEST(DepthToSpaceTest, MxnetsValuesInverseAndGradients) {
  Values ramp(16);
  for (int i = 0; i < 16; ++i) ramp[i] = i;
  const OpCase to_space{
      "depth_to_space", {{"block_size", "2"}}, {InputSpec::WithValues(TShape{1, 4, 2, 2}, ramp)}};
  const std::vector<CpuTensor> spaced =
      testing::Forward(to_space, testing::MakeInputs(to_space, mshadow::kFloat32));
  EXPECT_EQ(spaced[0].shape(), (TShape{1, 1, 4, 4}));
  EXPECT_EQ(testing::ToValues(spaced[0].blob()),
            (Values{0, 4, 1, 5, 8, 12, 9, 13, 2, 6, 3, 7, 10, 14, 11, 15}));
  const OpCase to_depth{
      "space_to_depth", {{"block_size", "2"}}, {InputSpec::WithValues(TShape{1, 1, 4, 4}, ramp)}};
  const std::vector<CpuTensor> deep =
      testing::Forward(to_depth, testing::MakeInputs(to_depth, mshadow::kFloat32));
  EXPECT_EQ(deep[0].shape(), (TShape{1, 4, 2, 2}));
  EXPECT_EQ(testing::ToValues(deep[0].blob()),
            (Values{0, 2, 8, 10, 1, 3, 9, 11, 4, 6, 12, 14, 5, 7, 13, 15}));

  // (2, 18, 2, 3) with blocks of 3: output (n, k, y * 3 + i, x * 3 + j) is input
  // (n, (i * 3 + j) * 2 + k, y, x).
  const OpCase c{"depth_to_space", {{"block_size", "3"}}, {InputSpec{TShape{2, 18, 2, 3}}}};
  testing::CheckForward(c, [](const std::vector<Values>& in) {
    Values out(in[0].size());
    for (int n = 0; n < 2; ++n)
      for (int k = 0; k < 2; ++k)
        for (int row = 0; row < 6; ++row)
          for (int col = 0; col < 9; ++col) {
            const int channel = ((row % 3) * 3 + col % 3) * 2 + k;
            out[((n * 2 + k) * 6 + row) * 9 + col] =
                in[0][((n * 18 + channel) * 2 + row / 3) * 3 + col / 3];
          }
    return std::vector<Values>{out};
  });
  const OpCase back{"space_to_depth", {{"block_size", "3"}}, {InputSpec{TShape{2, 2, 6, 9}}}};
  for (const OpCase& op : {c, back}) {
    SCOPED_TRACE(op.op);
    testing::CheckWriteModes(op);
    testing::CheckGradient(op);
  }
  // space_to_depth undoes depth_to_space.
  const std::vector<CpuTensor> x = testing::MakeInputs(c, mshadow::kFloat64);
  const std::vector<CpuTensor> y = testing::Forward(c, x);
  const OpCase undo{"space_to_depth",
                    {{"block_size", "3"}},
                    {InputSpec::WithValues(y[0].shape(), testing::ToValues(y[0].blob()))}};
  EXPECT_EQ(testing::ToValues(
                testing::Forward(undo, testing::MakeInputs(undo, mshadow::kFloat64))[0].blob()),
            testing::ToValues(x[0].blob()));

  const auto error_of = [](const char* op, const TShape& shape, const char* block) {
    return testing::ErrorOf([&] {
      testing::InferOutputShapes({op, {{"block_size", block}}, {InputSpec{shape}}});
    });
  };
  EXPECT_EQ(error_of("depth_to_space", TShape{1, 6, 2, 2}, "2"),
            "depth_to_space: 6 channels of (1,6,2,2) are not a multiple of "
            "block_size^2 = 4");
  EXPECT_THAT(error_of("space_to_depth", TShape{1, 1, 4, 5}, "2"),
              HasSubstr("height and width of (1,1,4,5) must be multiples of block_size 2"));
  EXPECT_THAT(error_of("depth_to_space", TShape{4, 2, 2}, "2"),
              HasSubstr("takes 4-d data (batch, channels, height, width), got (4,2,2)"));
  EXPECT_THAT(error_of("space_to_depth", TShape{1, 1, 4, 4}, "0"), HasSubstr("block_size"));
}

}  // namespace
}  // namespace ops
