// ops/strided_copy.h: copies between a dense array and a strided view of another, written
// once for every device. A view is a base offset and per-axis strides, negative ones
// included: reverse reads through negative strides, slice through strides times its steps.
//
//   auto at = StridedIndex<1>::Of(out_extents, {view_strides});
//   Kernel<strided_gather<Req>, xpu>::Launch(s, n, out, in, view_base, at);   // out = view
//   Kernel<strided_scatter<Req>, xpu>::Launch(s, n, in, out, view_base, at);  // view = out
#ifndef OPS_STRIDED_COPY_H_
#define OPS_STRIDED_COPY_H_

#include "ops/kernel_launch.h"
#include "ops/strided_index.h"

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

}  // namespace ops

#endif  // OPS_STRIDED_COPY_H_
