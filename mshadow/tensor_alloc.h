// mshadow/tensor_alloc.h: the engine and memory API around tensors, for every device:
// InitTensorEngine, NewStream/DeleteStream, NewTensor, and the size rules AllocSpace follows.
// AllocSpace, FreeSpace and Copy are each backend's own overloads (mshadow/cpu/tensor_alloc.h,
// mshadow/tensor_gpu-inl.h): on a device without them, NewTensor does not compile.
//
//   InitTensorEngine<cpu>();
//   Tensor<cpu, 2> t = NewTensor<cpu>(Shape2(3, 5), 0.0f);  // rows padded for alignment
//   Copy(other, t);                                        // shapes must match
//   FreeSpace(&t);
//   ShutdownTensorEngine<cpu>();
#ifndef MSHADOW_TENSOR_ALLOC_H_
#define MSHADOW_TENSOR_ALLOC_H_

#include <sstream>

#include "mshadow/host_memory.h"
#include "mshadow/tensor_core.h"

namespace mshadow {

// Rows of padded allocations start on this boundary (bytes): a cache line, and the widest
// vector register (AVX-512).
constexpr index_t kAllocAlignBytes = 64;

// Sets up a device for use (nothing to do on the CPU; kept for code written for mshadow).
template <typename Device>
inline void InitTensorEngine(int /*dev_id*/ = 0) {}
template <typename Device>
inline void ShutdownTensorEngine() {}
template <typename Device>
inline void SetDevice(int /*devid*/) {}

template <typename Device>
inline Stream<Device>* NewStream(bool /*create_blas_handle*/ = true,
                                 bool /*create_dnn_handle*/ = false, int /*dev_id*/ = -1) {
  return new Stream<Device>();
}
template <typename Device>
inline void DeleteStream(Stream<Device>* stream) {
  delete stream;
}

namespace detail {

// Row stride for an allocation: padded to kAllocAlignBytes when `pad` is set and padding
// wastes at most 1/MSHADOW_MIN_PAD_RATIO of the memory.
template <typename DType>
inline index_t AllocStride(index_t width, index_t rows, bool pad) {
  const index_t align = kAllocAlignBytes / static_cast<index_t>(sizeof(DType));
  if (!pad || rows <= 1 || align <= 1) return width;
  const index_t padded = (width + align - 1) / align * align;
  return (padded - width) * MSHADOW_MIN_PAD_RATIO <= width ? padded : width;
}

// "a tensor of shape (2,3)", for allocation messages.
template <int dim>
inline AllocationPurpose TensorOfShape(const Shape<dim>& shape) {
  return [shape] {
    std::ostringstream os;
    os << "a tensor of shape " << shape;
    return os.str();
  };
}

// The rows (the product of every dimension but the last) of a tensor of `shape` to allocate,
// on any device. A negative extent or a product beyond index_t is a dmlc::Error naming the
// shape (FlatTo2D would wrap silently).
template <int dim>
inline index_t AllocRows(const Shape<dim>& shape, const AllocationPurpose& what) {
  for (int i = 0; i < dim; ++i) {
    CHECK_GE(shape[i], 0) << "AllocSpace: negative extent in " << what();
  }
  index_t rows = 1;
  bool overflow = false;
  for (int i = 0; i + 1 < dim; ++i) overflow |= __builtin_mul_overflow(rows, shape[i], &rows);
  CHECK(!overflow) << "AllocSpace: " << what() << " has more elements than index_t holds";
  return rows;
}

// The bytes of `rows` rows of `stride` elements of DType; an overflow is a dmlc::Error.
template <typename DType>
inline size_t AllocBytes(index_t rows, index_t stride, const AllocationPurpose& what) {
  index_t elements = 0;
  CHECK(!__builtin_mul_overflow(rows, stride, &elements))
      << "AllocSpace: " << what() << " has more elements than index_t holds";
  return BytesFor(elements, sizeof(DType), what);
}

}  // namespace detail

// Allocates a tensor of `shape` with every element set to `initv`.
template <typename Device, typename DType, int dim>
inline Tensor<Device, dim, DType> NewTensor(const Shape<dim>& shape, DType initv,
                                            bool pad = MSHADOW_ALLOC_PAD,
                                            Stream<Device>* stream = nullptr) {
  Tensor<Device, dim, DType> obj(shape);
  obj.stream_ = stream;
  AllocSpace(&obj, pad);
  obj = initv;
  return obj;
}

}  // namespace mshadow

#endif  // MSHADOW_TENSOR_ALLOC_H_
