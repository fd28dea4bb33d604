// ops/copy_rows.h: copying a batch of equally long rows between two strided 2-D views, on
// any device: the data movement behind Concat, slice_axis and their gradients.
#ifndef OPS_COPY_ROWS_H_
#define OPS_COPY_ROWS_H_

#include <type_traits>

#include "mshadow/tensor.h"
#include "ops/kernel_util.h"
#include "ops/op_types.h"
#include "ops/vector_loop.h"

namespace ops {

// The rows [0, rows) of `run` elements at ptr + row * stride, as a 2-D tensor view.
template <typename xpu, typename DType>
Tensor<xpu, 2, DType> RowsView(DType* ptr, index_t rows, index_t run, index_t stride,
                               mshadow::Stream<xpu>* s) {
  Tensor<xpu, 2, DType> view(ptr, mshadow::Shape2(rows, run), stride, s);
  return view;
}

// dst = src (or += for kAddTo; nothing for kNullOp), row by row. The CPU copies each row as
// one contiguous run (memcpy for writes), rows split over the library's threads; the GPU runs
// one elementwise kernel over the whole view.
template <typename xpu, typename DType>
void CopyRows(Tensor<xpu, 2, DType> dst, OpReqType req, Tensor<xpu, 2, DType> src) {
  if constexpr (std::is_same_v<xpu, cpu>) {
    const index_t run = dst.size(1);
    vec::WithReq(req, [&](auto add) {
      ParallelRows(dst.size(0), run, [&](index_t begin, index_t end) {
        for (index_t o = begin; o < end; ++o) {
          CopyRun<decltype(add)::value>(dst[o].dptr_, src[o].dptr_, run);
        }
      });
    });
  } else {
    Assign(dst, req, mshadow::expr::F<mshadow::op::identity>(src));
  }
}

}  // namespace ops

#endif  // OPS_COPY_ROWS_H_
