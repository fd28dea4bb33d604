// mshadow/tensor_container.h: `TensorContainer`, a Tensor that owns its memory.
//
//   TensorContainer<cpu, 2> w(Shape2(64, 128), 0.0f);  // allocated and filled
//   w = dot(x, y);                                     // evaluates into it
//   w.Resize(Shape2(10, 10));                           // reuses memory when it fits
// Copying a container copies its data; moving transfers the memory.
#ifndef MSHADOW_TENSOR_CONTAINER_H_
#define MSHADOW_TENSOR_CONTAINER_H_

#include <utility>

#include "mshadow/tensor_alloc.h"

namespace mshadow {

template <typename Device, int dimension, typename DType = default_real_t>
class TensorContainer : public Tensor<Device, dimension, DType> {
 public:
  explicit TensorContainer(bool pad = MSHADOW_ALLOC_PAD) : pad_(pad) {
    this->shape_[0] = 0;
    this->stride_ = 0;
  }
  explicit TensorContainer(const Shape<dimension>& shape, bool pad = MSHADOW_ALLOC_PAD)
      : pad_(pad) {
    Resize(shape);
  }
  TensorContainer(const Shape<dimension>& shape, DType initv, bool pad = MSHADOW_ALLOC_PAD)
      : pad_(pad) {
    Resize(shape, initv);
  }
  TensorContainer(const TensorContainer& src) : Tensor<Device, dimension, DType>(), pad_(src.pad_) {
    this->stream_ = src.stream_;
    Resize(src.shape_);
    Copy(static_cast<Tensor<Device, dimension, DType>&>(*this), src);
  }
  TensorContainer(TensorContainer&& src) noexcept
      : Tensor<Device, dimension, DType>(src), pad_(src.pad_), data_(src.data_) {
    src.data_ = Tensor<Device, 1, DType>();
    src.dptr_ = nullptr;
    src.shape_ = Shape<dimension>();
  }
  ~TensorContainer() { Release(); }

  TensorContainer& operator=(const TensorContainer& src) {
    if (this == &src) return *this;
    pad_ = src.pad_;
    Resize(src.shape_);
    Copy(static_cast<Tensor<Device, dimension, DType>&>(*this), src);
    return *this;
  }
  TensorContainer& operator=(TensorContainer&& src) noexcept {
    std::swap(static_cast<Tensor<Device, dimension, DType>&>(*this),
              static_cast<Tensor<Device, dimension, DType>&>(src));
    std::swap(data_, src.data_);
    pad_ = src.pad_;
    return *this;
  }
  // Evaluating assignment; the shape must already match (dmlc::Error otherwise).
  template <typename E, int etype>
  TensorContainer& operator=(const expr::Exp<E, DType, etype>& exp) {
    this->__assign(exp);
    return *this;
  }
  TensorContainer& operator=(DType s) {
    this->__assign(s);
    return *this;
  }

  // Changes the shape; keeps the memory when it is large enough (contents are unspecified
  // after a resize).
  void Resize(const Shape<dimension>& shape) {
    const Shape<2> s2 = shape.FlatTo2D();
    const index_t stride = detail::AllocStride<DType>(s2[1], s2[0], pad_);
    if (data_.dptr_ != nullptr && s2[0] * stride <= data_.size(0)) {
      this->dptr_ = data_.dptr_;
      this->shape_ = shape;
      this->stride_ = stride;
      return;
    }
    Tensor<Device, dimension, DType> fresh(shape);
    AllocSpace(&fresh, pad_);  // throws before anything changes
    Release();
    this->dptr_ = fresh.dptr_;
    this->shape_ = shape;
    this->stride_ = fresh.stride_;
    data_ = Tensor<Device, 1, DType>(fresh.dptr_, Shape1(s2[0] * fresh.stride_));
  }
  void Resize(const Shape<dimension>& shape, DType initv) {
    Resize(shape);
    *this = initv;
  }
  void set_pad(bool pad) { pad_ = pad; }
  // Frees the memory; the container becomes empty.
  void Release() {
    if (data_.dptr_ != nullptr) FreeSpace(&data_);
    this->dptr_ = nullptr;
    this->shape_ = Shape<dimension>();
    this->stride_ = 0;
  }

 private:
  bool pad_;
  // The allocation, as a flat buffer (the tensor's view may use less of it).
  Tensor<Device, 1, DType> data_;
};

}  // namespace mshadow

#endif  // MSHADOW_TENSOR_CONTAINER_H_
