// ops/strided_copy.h: copies between a dense array and a strided view of another, written
// once for every device. A view is a base offset and per-axis strides, negative ones
// included: reverse reads through negative strides, slice through strides times its steps.
//
//   auto at = StridedIndex<1>::Of(out_extents, {view_strides});
//   StridedGather<Req, xpu>(s, out, in, view_base, at);   // out = view
//   StridedScatter<Req, xpu>(s, in, out, view_base, at);  // view = out
//   StridedFill(s, out, value, view_base, at);             // view = value
//
// On the CPU they go a row of the last axis at a time (one index computation per row, a
// contiguous row one memcpy-sized copy); the GPU an element per thread.
#ifndef OPS_STRIDED_COPY_H_
#define OPS_STRIDED_COPY_H_

#include <type_traits>

#include "ops/kernel_launch.h"
#include "ops/strided_index.h"
#include "ops/vector_loop.h"

namespace ops {

// dense[i] (as kReq says) = view[base + offset of i].
template <int kReq>
struct strided_gather {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* dense, const DType* view, index_t base,
                                  StridedIndex<1> at) {
    index_t off[1];
    at.Offsets(i, off);
    AssignReq<kReq>(dense + i, view[base + off[0]]);
  }
};

// view[base + offset of i] (as kReq says) = dense[i]. The view must not visit an element
// twice (no zero strides): each index then writes its own element, with no atomics.
template <int kReq>
struct strided_scatter {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* view, const DType* dense, index_t base,
                                  StridedIndex<1> at) {
    index_t off[1];
    at.Offsets(i, off);
    AssignReq<kReq>(view + base + off[0], dense[i]);
  }
};

// view[base + offset of i] = value.
struct strided_fill {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* view, DType value, index_t base,
                                  StridedIndex<1> at) {
    index_t off[1];
    at.Offsets(i, off);
    view[base + off[0]] = value;
  }
};

// One row of the CPU's copies: width elements, `step` apart in the view. A contiguous row is
// one CopyRun (memcpy for writes, packets for kAddTo): GCC 12's -O2 leaves an element loop of
// run-time length scalar.
template <int kReq, bool kScatter, typename DType>
MSHADOW_CINLINE void CopyStridedRow(DType* dense, DType* view, index_t width, index_t step) {
  if (step == 1) {
    if constexpr (kScatter) {
      CopyRun<kReq == kAddTo>(view, dense, width);
    } else {
      CopyRun<kReq == kAddTo>(dense, view, width);
    }
    return;
  }
  for (index_t t = 0; t < width; ++t) {
    if constexpr (kScatter) {
      AssignReq<kReq>(view + t * step, dense[t]);
    } else {
      AssignReq<kReq>(dense + t, view[t * step]);
    }
  }
}

// On the CPU, the copy a row of the last axis at a time, rows shared out between the threads;
// each thread divides out where its first row starts and then carries the view's offset from
// row to row, an odometer over the outer axes (the divisions of a row's index had cost a
// quarter of Crop's forward; docs/benchmarks.md). False where it does not apply (another
// device, no axis of extent above 1, nothing to copy).
template <int kReq, bool kScatter, typename xpu, typename DType>
bool CopyStridedRows(mshadow::Stream<xpu>*, DType* dense, DType* view, index_t base,
                     const StridedIndex<1>& at) {
  const index_t n = at.Size();
  if constexpr (std::is_same_v<xpu, mshadow::cpu>) {
    if (at.ndim > 0 && n > 0) {
      const int last = at.ndim - 1;
      const index_t width = at.extent[last], step = at.stride[0][last];
      ParallelRows(n / width, width, [&](index_t begin, index_t end) {
        index_t coordinate[kMaxKernelAxes] = {};
        index_t offset = base;
        index_t rest = begin;
        for (int d = last - 1; d >= 0; --d) {
          coordinate[d] = rest % at.extent[d];
          rest /= at.extent[d];
          offset += coordinate[d] * at.stride[0][d];
        }
        for (index_t r = begin; r < end; ++r) {
          CopyStridedRow<kReq, kScatter>(dense + r * width, view + offset, width, step);
          for (int d = last - 1; d >= 0; --d) {
            offset += at.stride[0][d];
            if (++coordinate[d] < at.extent[d]) break;
            offset -= at.extent[d] * at.stride[0][d];
            coordinate[d] = 0;
          }
        }
      });
      return true;
    }
  }
  return false;
}

// dense (at.Size() elements, as kReq says) = the view of `view` at base through `at`.
template <int kReq, typename xpu, typename DType>
void StridedGather(mshadow::Stream<xpu>* s, DType* dense, const DType* view, index_t base,
                   const StridedIndex<1>& at) {
  if (CopyStridedRows<kReq, false>(s, dense, const_cast<DType*>(view), base, at)) return;
  Kernel<strided_gather<kReq>, xpu>::Launch(s, at.Size(), dense, view, base, at);
}

// The view of `view` at base through `at` (as kReq says) = dense; the view must not visit an
// element twice.
template <int kReq, typename xpu, typename DType>
void StridedScatter(mshadow::Stream<xpu>* s, DType* view, const DType* dense, index_t base,
                    const StridedIndex<1>& at) {
  if (CopyStridedRows<kReq, true>(s, const_cast<DType*>(dense), view, base, at)) return;
  Kernel<strided_scatter<kReq>, xpu>::Launch(s, at.Size(), view, dense, base, at);
}

// The view of `view` at base through `at` = value.
template <typename xpu, typename DType>
void StridedFill(mshadow::Stream<xpu>* s, DType* view, DType value, index_t base,
                 const StridedIndex<1>& at) {
  Kernel<strided_fill, xpu>::Launch(s, at.Size(), view, value, base, at);
}

}  // namespace ops

#endif  // OPS_STRIDED_COPY_H_
