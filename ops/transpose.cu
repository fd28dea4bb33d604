// FCompute<gpu> of transpose and its backward operator: one thread per output element,
// reading the input at the permuted strides.
#include <vector>

#include "mshadow/tensor.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_launch_gpu.cuh"
#include "ops/strided_index.h"
#include "ops/transpose-inl.h"

namespace ops {
namespace transpose {
namespace {

// out[i] = in at output element i's offset.
template <int kReq>
struct gather_kernel {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* out, const DType* in, StridedIndex<1> at) {
    index_t o;
    at.Offsets(i, &o);
    AssignReq<kReq>(out + i, in[o]);
  }
};

// The forward operator permutes by perm; the backward operator, by its inverse.
template <bool kBackward>
void TransposeComputeGpu(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                         const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const int ndim = in[0].ndim();
  const std::vector<int> perm = PermutationFor(attrs, ndim, kBackward);
  const std::vector<index_t> in_strides = RowMajorStrides(in[0].shape_);
  std::vector<index_t> extents(ndim), strides(ndim);
  for (int d = 0; d < ndim; ++d) {  // output axis d is input axis perm[d]
    extents[d] = in[0].shape_[perm[d]];
    strides[d] = in_strides[perm[d]];
  }
  const auto at = StridedIndex<1>::Of(extents, {strides});
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    OPS_REQ_SWITCH(req[0], Req, {
      Kernel<gather_kernel<Req>, gpu>::Launch(ctx.get_stream<gpu>(), out[0].Size(),
                                              out[0].dptr<DType>(), in[0].dptr<DType>(), at);
    });
  });
}

const bool kRegistered = [] {
  RegisterOp("transpose").set_attr<FCompute>("FCompute<gpu>", TransposeComputeGpu<false>);
  RegisterOp("_backward_transpose").set_attr<FCompute>("FCompute<gpu>", TransposeComputeGpu<true>);
  return true;
}();

}  // namespace
}  // namespace transpose
}  // namespace ops
