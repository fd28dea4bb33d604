// mshadow/tensor_core.h: `Tensor<Device, dim, DType>`, a typed, shaped view of memory that
// it does not own, and `TRValue`, the base of everything expressions can be assigned to.
//
//   float data[30];
//   Tensor<cpu, 3> t(data, Shape3(2, 5, 3));  // 2 x 5 x 3 floats, rows contiguous
//   t[1][4][2] = 1.0f;                        // operator[] drops the highest dimension
//   t = 0.5f;                                 // fills (evaluating assignment)
//   Tensor<cpu, 2> rows = t.FlatTo2D();        // (10,3) view of the same memory
//
// `stride_` is the distance, in elements, between consecutive rows of the lowest dimension;
// it exceeds shape_[dim - 1] for padded allocations and for column views. Copying a Tensor
// copies the handle, never the data; `=` from a scalar or an expression evaluates into it.
#ifndef MSHADOW_TENSOR_CORE_H_
#define MSHADOW_TENSOR_CORE_H_

#include "mshadow/base.h"
#include "mshadow/device.h"
#include "mshadow/expr_engine-inl.h"

namespace mshadow {

// Base of tensors and containers: an RValueExp that knows its device and rank.
template <typename Container, typename Device, int dimension, typename DType>
struct TRValue : public expr::RValueExp<Container, DType> {};

template <typename Device, int dimension, typename DType MSHADOW_DEFAULT_DTYPE>
struct Tensor : public TRValue<Tensor<Device, dimension, DType>, Device, dimension, DType> {
 public:
  static constexpr bool kDevCPU = Device::kDevCPU;
  static constexpr int kSubdim = dimension - 1;

  DType* dptr_ = nullptr;
  Shape<dimension> shape_;
  // Elements between the starts of consecutive lowest-dimension rows.
  index_t stride_ = 0;
  Stream<Device>* stream_ = nullptr;

  MSHADOW_XINLINE Tensor() {}
  Tensor(const Tensor&) = default;
  MSHADOW_XINLINE Tensor(const Shape<dimension>& shape)  // NOLINT(runtime/explicit)
      : shape_(shape), stride_(shape[kSubdim]) {}
  MSHADOW_XINLINE Tensor(DType* dptr, const Shape<dimension>& shape)
      : dptr_(dptr), shape_(shape), stride_(shape[kSubdim]) {}
  MSHADOW_XINLINE Tensor(DType* dptr, const Shape<dimension>& shape, Stream<Device>* stream)
      : dptr_(dptr), shape_(shape), stride_(shape[kSubdim]), stream_(stream) {}
  MSHADOW_XINLINE Tensor(DType* dptr, const Shape<dimension>& shape, index_t stride,
                         Stream<Device>* stream)
      : dptr_(dptr), shape_(shape), stride_(stride), stream_(stream) {}

  inline void set_stream(Stream<Device>* stream) { stream_ = stream; }

  // Elements spanned in memory, counting row padding.
  MSHADOW_XINLINE index_t MSize() const { return MemSize<0>(); }
  // Elements spanned by one slice along dimension startdim - 1 (MemSize<1>() is the distance
  // between t[i] and t[i + 1]).
  template <int startdim>
  MSHADOW_XINLINE index_t MemSize() const {
    index_t memsz = stride_;
    for (int i = startdim; i < kSubdim; ++i) memsz *= shape_[i];
    return memsz;
  }
  MSHADOW_XINLINE index_t size(int idx) const { return shape_[idx]; }
  // Whether the rows are packed with no padding between them.
  MSHADOW_XINLINE bool CheckContiguous() const { return shape_[dimension - 1] == stride_; }

  MSHADOW_XINLINE Tensor<Device, 1, DType> FlatTo1D() const {
    return Tensor<Device, 1, DType>(dptr_, shape_.FlatTo1D(), stride_, stream_);
  }
  MSHADOW_XINLINE Tensor<Device, 2, DType> FlatTo2D() const {
    return Tensor<Device, 2, DType>(dptr_, shape_.FlatTo2D(), stride_, stream_);
  }
  // The idx-th slice along the highest dimension: (128,3,224,224)[5] is a (3,224,224) tensor.
  MSHADOW_XINLINE Tensor<Device, kSubdim, DType> operator[](index_t idx) const {
    return Tensor<Device, kSubdim, DType>(dptr_ + MemSize<1>() * idx, shape_.SubShape(), stride_,
                                          stream_);
  }
  // Slices [begin, end) of the highest dimension: (128,3,224,224) -> (end-begin,3,224,224).
  MSHADOW_XINLINE Tensor<Device, dimension, DType> Slice(index_t begin, index_t end) const {
    Shape<dimension> s = shape_;
    s[0] = end - begin;
    return Tensor<Device, dimension, DType>(dptr_ + MemSize<1>() * begin, s, stride_, stream_);
  }

  // Handle assignment: shares the memory of the other tensor.
  Tensor& operator=(const Tensor&) = default;
  // Evaluating assignment: computes the expression into this tensor's memory.
  template <typename E, int etype>
  inline Tensor& operator=(const expr::Exp<E, DType, etype>& exp) {
    return this->__assign(exp);
  }
  inline Tensor& operator=(const DType& exp) { return this->__assign(exp); }
};

// A 1-D tensor: operator[] returns elements.
template <typename Device, typename DType>
struct Tensor<Device, 1, DType> : public TRValue<Tensor<Device, 1, DType>, Device, 1, DType> {
 public:
  static constexpr bool kDevCPU = Device::kDevCPU;
  static constexpr int kSubdim = 0;

  DType* dptr_ = nullptr;
  Shape<1> shape_;
  index_t stride_ = 0;
  Stream<Device>* stream_ = nullptr;

  MSHADOW_XINLINE Tensor() {}
  Tensor(const Tensor&) = default;
  MSHADOW_XINLINE Tensor(const Shape<1>& shape)  // NOLINT(runtime/explicit)
      : shape_(shape), stride_(shape[0]) {}
  MSHADOW_XINLINE Tensor(DType* dptr, Shape<1> shape)
      : dptr_(dptr), shape_(shape), stride_(shape[0]) {}
  MSHADOW_XINLINE Tensor(DType* dptr, Shape<1> shape, Stream<Device>* stream)
      : dptr_(dptr), shape_(shape), stride_(shape[0]), stream_(stream) {}
  MSHADOW_XINLINE Tensor(DType* dptr, Shape<1> shape, index_t stride, Stream<Device>* stream)
      : dptr_(dptr), shape_(shape), stride_(stride), stream_(stream) {}

  inline void set_stream(Stream<Device>* stream) { stream_ = stream; }
  MSHADOW_XINLINE Tensor<Device, 1, DType> FlatTo1D() const { return *this; }
  MSHADOW_XINLINE Tensor<Device, 2, DType> FlatTo2D() const {
    return Tensor<Device, 2, DType>(dptr_, shape_.FlatTo2D(), stride_, stream_);
  }
  MSHADOW_XINLINE Tensor<Device, 1, DType> Slice(index_t begin, index_t end) const {
    Shape<1> s;
    s[0] = end - begin;
    return Tensor<Device, 1, DType>(dptr_ + begin, s, s[0], stream_);
  }
  MSHADOW_XINLINE bool CheckContiguous() const { return true; }
  MSHADOW_XINLINE index_t MSize() const { return shape_[0]; }
  template <int startdim>
  MSHADOW_XINLINE index_t MemSize() const { return shape_[0]; }
  MSHADOW_XINLINE index_t size(index_t /*idx*/) const { return shape_[0]; }
  MSHADOW_XINLINE DType& operator[](index_t idx) { return dptr_[idx]; }
  MSHADOW_XINLINE const DType& operator[](index_t idx) const { return dptr_[idx]; }

  Tensor& operator=(const Tensor&) = default;
  template <typename E, int etype>
  inline Tensor& operator=(const expr::Exp<E, DType, etype>& exp) {
    return this->__assign(exp);
  }
  inline Tensor& operator=(const DType& exp) { return this->__assign(exp); }
};

}  // namespace mshadow

#endif  // MSHADOW_TENSOR_CORE_H_
