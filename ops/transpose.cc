// transpose(axes): permutes the axes (reverses them when axes is empty); and its backward
// operator, the inverse permutation. The CPU kernels are here; the GPU's are in transpose.cu.
// swapaxes, depth_to_space and space_to_depth are registered here too: transposes with
// permutations of their own (transpose-inl.h).
#include <algorithm>
#include <cstdint>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "mshadow/streaming_stores.h"
#include "mshadow/tensor_blob.h"
#include "ops/kernel_util.h"
#include "ops/transpose-inl.h"
#include "ops/transpose_block.h"
#include "ops/vector_loop.h"

namespace ops {
namespace transpose {
namespace {

bool TransposeShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  const auto perm = Permutation(GetParam<TransposeParam>(attrs).axes, static_cast<int>(data.ndim()));
  TShape result(data.ndim());
  for (index_t i = 0; i < data.ndim(); ++i) result[i] = data[perm[i]];
  AssignOutputShape(out, 0, result);
  return true;
}

// ---- Kernels. The permutation is first simplified: unit axes dropped, and input axes that
// stay neighbours in the output merged, so (0,2,1) of (64,256,256) is a batch of 2-D
// transposes and (1,0) of (2048,2048) one. Then either the innermost axis stays innermost
// (contiguous runs are copied) or the innermost axes of input and output differ, and
// square tiles between those two axes are transposed in L1, for every index of the others.

// The permutation after simplification: `dims` in input order; output axis i is input
// axis perm[i].
struct MergedPermutation {
  std::vector<index_t> dims;
  std::vector<int> perm;
};

MergedPermutation Simplify(const TShape& shape, const std::vector<int>& perm) {
  const int ndim = static_cast<int>(shape.ndim());
  // Output-ordered runs of input axes that are consecutive in both (unit axes skipped).
  std::vector<std::pair<int, int>> runs;  // [first, last] input axis of each run
  for (int i = 0; i < ndim; ++i) {
    const int axis = perm[i];
    if (shape[axis] == 1) continue;
    if (!runs.empty()) {
      int next = runs.back().second + 1;
      while (next < ndim && shape[next] == 1) ++next;
      if (next == axis) {
        runs.back().second = axis;
        continue;
      }
    }
    runs.push_back({axis, axis});
  }
  // Number the runs in input order.
  std::vector<int> order(runs.size());
  for (size_t r = 0; r < runs.size(); ++r) order[r] = static_cast<int>(r);
  std::sort(order.begin(), order.end(),
            [&](int a, int b) { return runs[a].first < runs[b].first; });
  MergedPermutation merged;
  merged.perm.resize(runs.size());
  for (size_t k = 0; k < order.size(); ++k) {
    const auto& run = runs[order[k]];
    merged.dims.push_back(shape.ProdShape(run.first, run.second + 1));
    merged.perm[order[k]] = static_cast<int>(k);
  }
  return merged;
}

// Offsets in input and output of linear index `index` over `axes` (input axes, outermost
// first), given each axis's input and output strides.
struct Offsets {
  index_t in = 0, out = 0;
};
Offsets Decompose(index_t index, const std::vector<int>& axes, const MergedPermutation& m,
                  const std::vector<index_t>& in_strides,
                  const std::vector<index_t>& out_strides) {
  Offsets at;
  for (int k = static_cast<int>(axes.size()) - 1; k >= 0; --k) {
    const int axis = axes[k];
    const index_t coordinate = index % m.dims[axis];
    index /= m.dims[axis];
    at.in += coordinate * in_strides[axis];
    at.out += coordinate * out_strides[axis];
  }
  return at;
}

// dst = src with its axes permuted (dst axis i = src axis perm[i]), or += as kAdd says.
template <bool kAdd, typename DType>
void PermuteAxes(const DType* src, const TShape& src_shape, const std::vector<int>& perm,
                 DType* dst) {
  const index_t total = src_shape.Size();
  if (total == 0) return;
  const MergedPermutation m = Simplify(src_shape, perm);
  const int rank = static_cast<int>(m.dims.size());
  if (rank <= 1) {
    ParallelRows(total, 1, [&](index_t begin, index_t end) {
      CopyRun<kAdd>(dst + begin, src + begin, end - begin);
    });
    return;
  }
  std::vector<index_t> in_strides(rank), out_strides(rank);
  for (index_t k = rank - 1, stride = 1; k >= 0; --k) {
    in_strides[k] = stride;
    stride *= m.dims[k];
  }
  for (index_t i = rank - 1, stride = 1; i >= 0; --i) {
    out_strides[m.perm[i]] = stride;
    stride *= m.dims[m.perm[i]];
  }
  const int last = rank - 1, out_last = m.perm[rank - 1];
  // The other axes, in output order (outermost first): the order dst is written in.
  std::vector<int> others;
  for (int i = 0; i < rank; ++i) {
    if (m.perm[i] != last && m.perm[i] != out_last) others.push_back(m.perm[i]);
  }
  const index_t cols = m.dims[last];
  if (out_last == last) {  // the innermost axis stays: contiguous runs of cols elements
    ParallelRows(total / cols, cols, [&](index_t begin, index_t end) {
      for (index_t r = begin; r < end; ++r) {
        const Offsets at = Decompose(r, others, m, in_strides, out_strides);
        CopyRun<kAdd>(dst + at.out, src + at.in, cols);
      }
    });
    return;
  }
  // Tiles between input axis out_last (rows, contiguous in dst) and the input's innermost
  // axis (columns, contiguous in src), for every index of the other axes.
  index_t outer = 1;
  for (int k : others) outer *= m.dims[k];
  const index_t rows = m.dims[out_last];
  const index_t row_blocks = (rows + kTile - 1) / kTile;
  // The tiles' stores go to kTile-element pieces of many output rows at once; once input and
  // output together outgrow the last-level cache, ordinary stores (each line read before it
  // is written, and evicting the input) ran at under half the speed of streaming stores on
  // the AVX-512 machine (a Zen 5); the AVX2 squares' half lines streamed at 0.4 of ordinary
  // stores on a Zen 3 (docs/benchmarks.md): there, none.
  const bool stream = !kAdd && StreamsTransposeOf(total * static_cast<index_t>(sizeof(DType)));
  // Output rows that all start the same whole elements off a line (NumPy's arrays start 16
  // bytes in) first take the rows of the tile span up to the line as a block of their own
  // (block 0, narrower squares), so that the blocks after it write whole lines: streamed
  // where the output streams, and each cached store within one line, not across two
  // (docs/benchmarks.md, eightieth session). Block b >= 1 starts at lead + (b - 1) * kTile.
  const bool leads = out_strides[last] * sizeof(DType) % mshadow::kCacheLineBytes == 0;
  const index_t blocks = row_blocks + (leads ? 1 : 0);
  auto run = [&](auto stream_tag) {
    ParallelRows(outer * blocks, kTile * cols, [&](index_t begin, index_t end) {
      for (index_t item = begin; item < end; ++item) {
        const index_t o = item / blocks, b = item % blocks;
        const Offsets at = Decompose(o, others, m, in_strides, out_strides);
        const index_t lead = leads ? mshadow::ElementsBeforeALine(dst + at.out) : 0;
        const index_t r0 = leads && b > 0 ? lead + (b - 1) * kTile : b * kTile;
        const index_t r_end = std::min(rows, leads && b == 0 ? lead : r0 + kTile);
        if (r0 >= r_end) continue;
        TransposeBlock<kAdd, decltype(stream_tag)::value>(
            src + at.in + r0 * in_strides[out_last], in_strides[out_last], dst + at.out + r0,
            out_strides[last], r_end - r0, cols);
      }
    });
  };
  if (stream) {
    run(std::true_type());
    mshadow::FenceStreamingStores();  // this thread's part (ParallelFor fences its workers)
  } else {
    run(std::false_type());
  }
}

// The forward operator permutes by perm; the backward operator, by its inverse.
template <bool kBackward>
void TransposeCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const std::vector<int> perm = PermutationFor(attrs, in[0].ndim(), kBackward);
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    vec::WithReq(req[0], [&](auto add) {
      PermuteAxes<decltype(add)::value>(in[0].dptr<DType>(), in[0].shape_, perm,
                                        out[0].dptr<DType>());
    });
  });
}

}  // namespace

DMLC_REGISTER_PARAMETER(TransposeParam);
DMLC_REGISTER_PARAMETER(SwapAxesParam);
DMLC_REGISTER_PARAMETER(BlockSizeParam);

OPS_REGISTER_OP(transpose)
    .describe("Permutes the axes of the input: output axis i is input axis axes[i].")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "The input array.")
    .add_arguments(TransposeParam::__FIELDS__())
    .set_attr_parser(ParamParser<TransposeParam>)
    .set_attr<FInferShape>("FInferShape", TransposeShape)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<1, 1>)
    .set_attr<FCompute>("FCompute<cpu>", TransposeCompute<false>)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_transpose", false, false});

OPS_REGISTER_OP(_backward_transpose)
    .describe("Gradient of transpose.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<TransposeParam>)
    .set_attr<FCompute>("FCompute<cpu>", TransposeCompute<true>);

namespace {

bool SwapAxesShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  const TShape axes = SwapPermutation(GetParam<SwapAxesParam>(attrs), data.ndim());
  TShape result = data;
  for (int d = 0; d < data.ndim(); ++d) result[d] = data[axes[d]];
  AssignOutputShape(out, 0, result);
  return true;
}

template <bool kToSpace>
bool BlockShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  AssignOutputShape(out, 0,
                    BlockOutputShape(data, GetParam<BlockSizeParam>(attrs).block_size, kToSpace));
  return true;
}

// depth_to_space or space_to_depth (kToSpace false) and its backward operator, the other's
// permutation.
void DefineBlockOp(const std::string& name, const std::string& description, FInferShape shape) {
  RegisterOp(name)
      .describe(description)
      .set_num_inputs(1)
      .set_num_outputs(1)
      .add_argument("data", "NDArray-or-Symbol",
                    "The input array, (batch, channels, height, width).")
      .add_arguments(BlockSizeParam::__FIELDS__())
      .set_attr_parser(ParamParser<BlockSizeParam>)
      .set_attr<FInferShape>("FInferShape", shape)
      .set_attr<FInferType>("FInferType", ElemwiseRealType<1, 1>)
      .set_attr<FGradient>("FGradient", FGradient{"_backward_" + name, false, false});
  RegisterOp("_backward_" + name)
      .describe("Gradient of " + name + ": the inverse permutation of the output gradient.")
      .set_num_inputs(1)
      .set_num_outputs(1)
      .set_attr<bool>("TIsBackward", true)
      .set_attr_parser(ParamParser<BlockSizeParam>);
}

const bool kSwapAxesRegistered = [] {
  SetSwapAxesCompute<cpu>();
  DefineBlockOp("depth_to_space",
                "Moves blocks of block_size^2 channels into block_size x block_size squares "
                "of space: (n, c, h, w) -> (n, c / b^2, h * b, w * b).",
                BlockShape<true>);
  DefineBlockOp("space_to_depth",
                "Moves block_size x block_size squares of space into channels: (n, c, h, w) "
                "-> (n, c * b^2, h / b, w / b); depth_to_space's inverse.",
                BlockShape<false>);
  SetBlockCompute<cpu>();
  return true;
}();

}  // namespace

OPS_REGISTER_OP(swapaxes)
    .describe("Swaps two axes: a transpose that exchanges dim1 and dim2 (alias SwapAxis).")
    .add_alias("SwapAxis")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "The input array.")
    .add_arguments(SwapAxesParam::__FIELDS__())
    .set_attr_parser(ParamParser<SwapAxesParam>)
    .set_attr<FInferShape>("FInferShape", SwapAxesShape)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<1, 1>)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_swapaxes", false, false});

OPS_REGISTER_OP(_backward_swapaxes)
    .describe("Gradient of swapaxes: the same swap of the output gradient.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<SwapAxesParam>);

}  // namespace transpose
}  // namespace ops
