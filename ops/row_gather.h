// ops/row_gather.h: gathering runs of an array by index, and scattering gradients back onto
// them, on either device: take's kernels, which Embedding (take along axis 0 with mode clip)
// shares.
//
// The array is seen as (outer, n, inner) around the axis (ops/axis_view.h) and k indices pick
// positions on it: output run (o, j) is the inner elements of (o, IndexAt(idx[j]), :).
//
//   GatherRuns<kReq>(stream, out, a, idx, view, k, mode);   // out = a's runs at idx
//   ScatterRuns(stream, grad, og, idx, view, k, mode);      // grad's runs at idx += og's
// and the backward operators' outputs: ScatterGradient (zeroed unless kAddTo, then a scatter)
// and ZeroIndexGradient (the indices have none).
#ifndef OPS_ROW_GATHER_H_
#define OPS_ROW_GATHER_H_

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "mshadow/parallel.h"
#include "mshadow/streaming_stores.h"
#include "mshadow/tensor.h"
#include "ops/axis_view.h"
#include "ops/gather_prefetch.h"
#include "ops/index_type.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"
#include "ops/vector_loop.h"

namespace ops {
namespace indexing {

// What an index outside the axis means: the nearest position, the position it wraps to, or
// an error (checked before any kernel runs; the kernels treat it as clip).
enum IndexMode { kClip = 0, kWrap = 1, kRaise = 2 };

// Position in [0, n) of index value v (truncated toward zero): clipped or wrapped.
template <typename IType>
MSHADOW_XINLINE index_t IndexAt(IType v, index_t n, int mode) {
  const double value = static_cast<double>(v);
  if (mode == kWrap) {
    // Wrapped in double first: a huge index must not overflow the integer conversion.
    const double r = std::fmod(std::trunc(value), static_cast<double>(n));
    if (!(r == r)) return 0;  // NaN, infinities
    const index_t j = static_cast<index_t>(r);
    return j < 0 ? j + n : j;
  }
  if (!(value > 0)) return 0;  // NaN too
  return value >= static_cast<double>(n - 1) ? n - 1 : static_cast<index_t>(value);
}

// GPU item: output element i, written as kReq says.
template <int kReq>
struct gather_element {
  template <typename DType, typename IType>
  MSHADOW_XINLINE static void Map(index_t i, DType* out, const DType* a, const IType* idx,
                                  AxisView v, index_t k, int mode) {
    const index_t inner = i % v.inner, j = i / v.inner % k, o = i / (v.inner * k);
    AssignReq<kReq>(out + i, a[(o * v.n + IndexAt(idx[j], v.n, mode)) * v.inner + inner]);
  }
};

// CPU item: the run of `inner` elements index j of outer block o selects, item o * k + j.
// One run per item rather than one element: an embedding table's row is one copy
// (memcpy-sized, or streaming stores for a large output), and no item divides by the view's
// extents per element. The run kGatherPrefetchRows indices on is prefetched.
template <int kReq, bool kStream>
struct gather_run {
  template <typename DType, typename IType>
  static void Map(index_t item, DType* out, const DType* a, const IType* idx, AxisView v, index_t k,
                  int mode) {
    const index_t o = item / k, j = item % k;
    DType* to = out + item * v.inner;
    const DType* from = a + (o * v.n + IndexAt(idx[j], v.n, mode)) * v.inner;
    if (j + kGatherPrefetchRows < k) {
      PrefetchRow(a + (o * v.n + IndexAt(idx[j + kGatherPrefetchRows], v.n, mode)) * v.inner,
                  v.inner);
    }
    if constexpr (kStream) {
      StreamRun(to, from, v.inner);
    } else {
      CopyRun<kReq == kAddTo>(to, from, v.inner);
    }
  }
};

// out (outer, k, inner) = the runs of a at the indices, written as kReq says.
template <int kReq, typename xpu, typename DType, typename IType>
void GatherRuns(mshadow::Stream<xpu>* s, DType* out, const DType* a, const IType* idx, AxisView v,
                index_t k, int mode) {
  if constexpr (std::is_same_v<xpu, mshadow::cpu>) {
    auto gather = [&](auto stream) {
      Kernel<gather_run<kReq, decltype(stream)::value>, mshadow::cpu>::LaunchItems(
          s, v.outer * k, v.inner, out, a, idx, v, k, mode);
    };
    if (kReq != kAddTo && StreamsCopyOf(v.outer * k * v.inner * sizeof(DType))) {
      gather(std::true_type());
      mshadow::FenceStreamingStores();  // this thread's part (ParallelFor fences its workers)
    } else {
      gather(std::false_type());
    }
  } else {
    Kernel<gather_element<kReq>, xpu>::Launch(s, v.outer * k * v.inner, out, a, idx, v, k, mode);
  }
}

// GPU item: output gradient element i added onto a's (atomically: indices repeat).
struct scatter_element_atomic {
  template <typename DType, typename IType>
  MSHADOW_XINLINE static void Map(index_t i, DType* grad, const DType* og, const IType* idx,
                                  AxisView v, index_t k, int mode) {
    const index_t inner = i % v.inner, j = i / v.inner % k, o = i / (v.inner * k);
    DType* at = grad + (o * v.n + IndexAt(idx[j], v.n, mode)) * v.inner + inner;
#ifdef __CUDA_ARCH__
    atomicAdd(at, og[i]);
#else
    *at += og[i];
#endif
  }
};

// CPU item: a block of `columns` inner positions of one outer block, every index in order,
// each adding a contiguous run of the output gradient onto the selected run: items touch
// disjoint elements, so the sums need no atomics, and each element's sum runs over the
// indices in order however the columns are blocked: results do not depend on the thread
// count. An embedding's rows are added as whole vectors rather than one column at a time.
struct scatter_columns {
  template <typename DType, typename IType>
  static void Map(index_t item, DType* grad, const DType* og, const IType* idx, AxisView v,
                  index_t k, int mode, index_t columns) {
    const index_t blocks = (v.inner + columns - 1) / columns, o = item / blocks;
    const index_t begin = item % blocks * columns;
    const index_t len = std::min(columns, v.inner - begin);
    for (index_t j = 0; j < k; ++j) {
      DType* to = grad + (o * v.n + IndexAt(idx[j], v.n, mode)) * v.inner + begin;
      const DType* from = og + (o * k + j) * v.inner + begin;
      CopyRun</*kAdd=*/true>(to, from, len);
    }
  }
};

// The inner positions a scatter item covers: up to 256 (a kilobyte of floats), fewer where
// the outer blocks alone would leave threads idle (an embedding table is one outer block), in
// whole cache lines.
inline index_t ScatterColumns(const AxisView& v, index_t element_bytes) {
  constexpr index_t kMost = 256;
  const index_t threads = mshadow::GetNumThreads();
  if (v.outer >= threads) return kMost;
  const index_t line = std::max<index_t>(64 / element_bytes, 1);
  const index_t blocks_wanted = (threads + v.outer - 1) / v.outer;
  const index_t columns = (v.inner + blocks_wanted - 1) / blocks_wanted;
  return std::min(kMost, std::max(line, (columns + line - 1) / line * line));
}

// grad's runs at the indices += og (outer, k, inner)'s, repeated indices summed in order.
template <typename xpu, typename DType, typename IType>
void ScatterRuns(mshadow::Stream<xpu>* s, DType* grad, const DType* og, const IType* idx,
                 AxisView v, index_t k, int mode) {
  if constexpr (std::is_same_v<xpu, mshadow::cpu>) {
    const index_t columns = ScatterColumns(v, sizeof(DType));
    Kernel<scatter_columns, mshadow::cpu>::LaunchItems(
        s, v.outer * ((v.inner + columns - 1) / columns), k * std::min(v.inner, columns), grad, og,
        idx, v, k, mode, columns);
  } else {
    Kernel<scatter_element_atomic, xpu>::Launch(s, v.outer * k * v.inner, grad, og, idx, v, k,
                                                mode);
  }
}

// A gradient the output gradient is scattered onto: nothing for kNullOp, zeroed first unless
// kAddTo; then scatter(data pointer, TypeTag<index type>).
template <typename xpu, typename DType, typename Scatter>
void ScatterGradient(const TBlob& grad, OpReqType req, int index_type, mshadow::Stream<xpu>* s,
                     Scatter&& scatter) {
  if (req == kNullOp) return;
  auto target = Flat<xpu, DType>(grad, s);
  if (req != kAddTo) target = DType(0);
  WithIndexType(index_type, [&](auto tag) { scatter(target.dptr_, tag); });
}

// Writes zero to the indices' gradient (they have none).
template <typename xpu>
void ZeroIndexGradient(const TBlob& grad, OpReqType req, mshadow::Stream<xpu>* s) {
  WithIndexType(grad.type_flag_, [&](auto index_tag) {
    WriteZeroGradient<xpu, typename decltype(index_tag)::type>(grad, req, s);
  });
}

}  // namespace indexing
}  // namespace ops

#endif  // OPS_ROW_GATHER_H_
