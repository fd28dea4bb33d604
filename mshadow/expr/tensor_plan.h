// mshadow/expr/tensor_plan.h: how the expression engine reads and writes a Tensor.
//
// Tensor is defined a layer above (mshadow/tensor.h); these templates only name it, so the
// expression target does not depend on the tensor target.
#ifndef MSHADOW_EXPR_TENSOR_PLAN_H_
#define MSHADOW_EXPR_TENSOR_PLAN_H_

#include "mshadow/expr/exp_base.h"

namespace mshadow {
namespace expr {

// Element (y, x) of the tensor's 2-D view lives at dptr_[y * stride_ + x]: rows may be
// padded (stride_ > width) or be a strided view into a larger tensor.
template <typename Device, int dim, typename DType>
class Plan<Tensor<Device, dim, DType>, DType> {
 public:
  explicit Plan(const Tensor<Device, dim, DType>& t) : dptr_(t.dptr_), stride_(t.stride_) {}
  MSHADOW_XINLINE DType& REval(index_t y, index_t x) { return dptr_[y * stride_ + x]; }
  MSHADOW_XINLINE const DType& Eval(index_t y, index_t x) const { return dptr_[y * stride_ + x]; }

 private:
  DType* dptr_;
  index_t stride_;
};

// A 1-D tensor is a single row; y is always 0.
template <typename Device, typename DType>
class Plan<Tensor<Device, 1, DType>, DType> {
 public:
  explicit Plan(const Tensor<Device, 1, DType>& t) : dptr_(t.dptr_) {}
  MSHADOW_XINLINE DType& REval(index_t /*y*/, index_t x) { return dptr_[x]; }
  MSHADOW_XINLINE const DType& Eval(index_t /*y*/, index_t x) const { return dptr_[x]; }

 private:
  DType* dptr_;
};

template <typename Device, int dim, typename DType>
inline Plan<Tensor<Device, dim, DType>, DType> MakePlan(const Tensor<Device, dim, DType>& t) {
  return Plan<Tensor<Device, dim, DType>, DType>(t);
}

template <typename Device, int dim, typename DType>
struct ExpInfo<Tensor<Device, dim, DType>> {
  static constexpr int kDim = dim;
  static constexpr int kDevMask = Device::kDevMask;
};

template <int dim, typename Device, int tdim, typename DType>
struct ShapeCheck<dim, Tensor<Device, tdim, DType>> {
  static Shape<dim> Check(const Tensor<Device, tdim, DType>& t) { return t.shape_; }
};

template <typename Device, int dim, typename DType>
struct StreamInfo<Device, Tensor<Device, dim, DType>> {
  MSHADOW_XINLINE static Stream<Device>* Get(const Tensor<Device, dim, DType>& t) {
    return t.stream_;
  }
};

}  // namespace expr
}  // namespace mshadow

#endif  // MSHADOW_EXPR_TENSOR_PLAN_H_
