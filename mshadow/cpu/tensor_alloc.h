// mshadow/cpu/tensor_alloc.h: tensor memory on the CPU: AllocSpace (rows padded to
// kAllocAlignBytes), FreeSpace and Copy, for the device-neutral API of mshadow/tensor_alloc.h.
#ifndef MSHADOW_CPU_TENSOR_ALLOC_H_
#define MSHADOW_CPU_TENSOR_ALLOC_H_

#include <cstring>

#include "mshadow/cpu/stream.h"
#include "mshadow/host_memory.h"
#include "mshadow/tensor_alloc.h"
#include "mshadow/tensor_core.h"

namespace mshadow {

// Allocates memory for `obj->shape_` (and sets dptr_ and stride_). Throws dmlc::Error if the
// memory cannot be had; the tensor is then left unchanged.
template <int dim, typename DType>
inline void AllocSpace(Tensor<cpu, dim, DType>* obj, bool pad = MSHADOW_ALLOC_PAD) {
  const AllocationPurpose what = detail::TensorOfShape(obj->shape_);
  const index_t rows = detail::AllocRows(obj->shape_, what);
  const index_t stride = detail::AllocStride<DType>(obj->shape_[dim - 1], rows, pad);
  const size_t bytes = detail::AllocBytes<DType>(rows, stride, what);
  void* ptr = AllocHost(bytes, kAllocAlignBytes, what);
  obj->dptr_ = static_cast<DType*>(ptr);
  obj->stride_ = stride;
}

// Frees memory from AllocSpace/NewTensor; dptr_ becomes null (freeing twice is harmless).
template <int dim, typename DType>
inline void FreeSpace(Tensor<cpu, dim, DType>* obj) {
  FreeHost(obj->dptr_);
  obj->dptr_ = nullptr;
}

// Copies src into dst; their shapes must be equal (strides may differ).
template <int dim, typename DType>
inline void Copy(Tensor<cpu, dim, DType> dst, const Tensor<cpu, dim, DType>& src,
                 Stream<cpu>* /*stream*/ = nullptr) {
  CHECK_EQ(dst.shape_, src.shape_) << "Copy: source and destination shapes differ";
  if (dst.shape_.Size() == 0) return;
  if (dst.CheckContiguous() && src.CheckContiguous()) {
    std::memmove(dst.dptr_, src.dptr_, sizeof(DType) * dst.shape_.Size());
    return;
  }
  const Tensor<cpu, 2, DType> d = dst.FlatTo2D();
  const Tensor<cpu, 2, DType> s = src.FlatTo2D();
  for (index_t y = 0; y < d.size(0); ++y) {
    std::memmove(d[y].dptr_, s[y].dptr_, sizeof(DType) * d.size(1));
  }
}

}  // namespace mshadow

#endif  // MSHADOW_CPU_TENSOR_ALLOC_H_
