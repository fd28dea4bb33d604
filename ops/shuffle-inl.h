// ops/shuffle-inl.h: _shuffle (alias shuffle), MXNet 1.9.1's: the data's slices along its
// first axis in a random order, each slice's elements in theirs. The permutation is drawn on
// the host by Fisher-Yates, swap i from Philox block i of the call's random range, so a seed
// gives the same order on any thread count and either device; the slices are then gathered,
// a slice per CPU item, an element per GPU item (a vector on the CPU: its elements swapped in
// place, the same order). Not differentiable (MXNet registers no gradient). shuffle.cc
// registers the CPU, shuffle.cu adds FCompute<gpu>.
#ifndef OPS_SHUFFLE_INL_H_
#define OPS_SHUFFLE_INL_H_

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <type_traits>
#include <utility>
#include <vector>

#include "mshadow/cpu/philox_lanes.h"
#include "mshadow/philox.h"
#include "mshadow/tensor.h"
#include "ops/host_values_on_device.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"
#include "ops/vector_loop.h"

namespace ops {
namespace shuffle {

// The position swap i of Fisher-Yates exchanges with i, in [0, i], from 53 random bits of
// Philox block i: counter-based, so drawn in parallel and the same on any thread count.
MSHADOW_XINLINE index_t SwapPosition(index_t i, uint32_t high, uint32_t low) {
  const index_t j = static_cast<index_t>(mshadow::UnitDouble(high, low) * (i + 1));
  return j < i ? j : i;  // j <= i; the guard keeps a rounding inside
}

// Item g: positions [g * 32, (g + 1) * 32) of the n, their blocks computed together in SIMD
// lanes (bit for bit Philox4x32's).
struct swap_positions {
  static void Map(index_t g, index_t* with, index_t n, mshadow::PhiloxKey key, uint64_t counter) {
    constexpr index_t kLanes = mshadow::kPhiloxLaneBlocks;
    mshadow::PhiloxLaneWords words;
    mshadow::PhiloxLanes(key, counter + g * kLanes, 0, &words);
    const index_t first = g * kLanes, count = n - first < kLanes ? n - first : kLanes;
    for (index_t k = 0; k < count; ++k) {
      with[first + k] = SwapPosition(first + k, words.w[0][k], words.w[1][k]);
    }
  }
};

// Each position's swap partner, from the call's random range.
inline std::vector<index_t> SwapPositions(index_t n, PhiloxRange range) {
  std::vector<index_t> with(static_cast<size_t>(n));
  const index_t groups = (n + mshadow::kPhiloxLaneBlocks - 1) / mshadow::kPhiloxLaneBlocks;
  Kernel<swap_positions, mshadow::cpu>::LaunchItems(
      nullptr, groups, mshadow::kPhiloxLaneBlocks, with.data(), n,
      mshadow::PhiloxKeyFromSeed(range.seed), range.counter);
  return with;
}

// Fisher-Yates on a[0, n): the swaps from the last position down, in order.
template <typename T>
void SwapInOrder(T* a, const std::vector<index_t>& with) {
  for (index_t i = static_cast<index_t>(with.size()) - 1; i > 0; --i) std::swap(a[i], a[with[i]]);
}

// CPU item r: slice r of out (`width` elements) = slice perm[r] of in.
template <int kReq>
struct gather_slice {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t r, DType* out, const DType* in, const index_t* perm,
                                  index_t width) {
    DType* to = out + r * width;
    const DType* from = in + perm[r] * width;
    OPS_SIMD_LOOP
    for (index_t k = 0; k < width; ++k) AssignReq<kReq>(to + k, from[k]);
  }
};

// GPU item i: element i of out.
template <int kReq>
struct gather_element {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* out, const DType* in, const index_t* perm,
                                  index_t width) {
    const index_t r = i / width;
    AssignReq<kReq>(out + i, in[perm[r] * width + (i - r * width)]);
  }
};

// requested[0]: the random range; requested[1]: temporary space (the GPU's copy of perm).
template <typename xpu>
void ShuffleCompute(const NodeAttrs& /*attrs*/, const OpContext& ctx, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  const TBlob& data = in[0];
  const index_t n = data.ndim() == 0 ? 0 : data.shape_[0];
  const index_t size = data.Size();
  const std::vector<index_t> with = SwapPositions(n, ctx.requested[0].TakeRandom(n));
  if (req[0] == kNullOp || size == 0) return;
  const index_t width = size / n;
  if constexpr (std::is_same_v<xpu, mshadow::cpu>) {
    if (width == 1 && req[0] != kAddTo) {  // a vector: its elements swapped in place
      MSHADOW_TYPE_SWITCH_EXT_WITH_BOOL(data.type_flag_, DType, {
        DType* values = out[0].dptr<DType>();
        std::copy(data.dptr<DType>(), data.dptr<DType>() + n, values);
        SwapInOrder(values, with);
      });
      return;
    }
  }
  // Slices: gathered by the permutation the same swaps make of 0, 1, ..., n - 1.
  std::vector<index_t> perm(static_cast<size_t>(n));
  std::iota(perm.begin(), perm.end(), index_t(0));
  SwapInOrder(perm.data(), with);
  const index_t* order = HostValuesOnDevice<xpu>(perm.data(), n, ctx.requested[1], s);
  MSHADOW_TYPE_SWITCH_EXT_WITH_BOOL(data.type_flag_, DType, {
    OPS_REQ_SWITCH(req[0], Req, {
      if constexpr (std::is_same_v<xpu, mshadow::cpu>) {
        Kernel<gather_slice<Req>, xpu>::LaunchItems(s, n, width, out[0].dptr<DType>(),
                                                    data.dptr<DType>(), order, width);
      } else {
        Kernel<gather_element<Req>, xpu>::Launch(s, size, out[0].dptr<DType>(), data.dptr<DType>(),
                                                 order, width);
      }
    });
  });
}

template <typename xpu>
void SetShuffleCompute() {
  RegisterOp("_shuffle").set_attr<FCompute>(ComputeAttrName<xpu>(), FCompute(ShuffleCompute<xpu>));
}

}  // namespace shuffle
}  // namespace ops

#endif  // OPS_SHUFFLE_INL_H_
