// mshadow/extension/one_hot.h: a matrix with a single 1 per row, at the column a vector of
// indices names.
//
//   Tensor<cpu, 1> label(Shape1(32));  Tensor<cpu, 2> target(Shape2(32, 10));
//   target = one_hot_encode(label, 10);   // target[y][x] = (x == label[y])
//
// A row whose index is outside [0, num_choices) is all zeros. The result is float unless
// asked otherwise: one_hot_encode<double>(label, 10).
#ifndef MSHADOW_EXTENSION_ONE_HOT_H_
#define MSHADOW_EXTENSION_ONE_HOT_H_

#include "mshadow/expr/make_tensor.h"
#include "mshadow/extension/index.h"

namespace mshadow {
namespace expr {

template <typename IndexExp, typename DType, typename IDType>
struct OneHotEncodeExp
    : public MakeTensorExp<OneHotEncodeExp<IndexExp, DType, IDType>, IndexExp, 2, DType> {
  const IndexExp& index_;
  OneHotEncodeExp(const IndexExp& index, index_t num_choices) : index_(index) {
    CHECK_GE(num_choices, 0) << "one_hot_encode: num_choices must not be negative";
    this->shape_ = Shape2(ShapeCheck<1, IndexExp>::Check(index)[0], num_choices);
  }
};

template <typename DType = default_real_t, typename IndexExp, typename IDType, int e1>
inline OneHotEncodeExp<IndexExp, DType, IDType> one_hot_encode(
    const Exp<IndexExp, IDType, e1>& index, index_t num_choices) {
  static_assert(ExpInfo<IndexExp>::kDim == 1, "one_hot_encode: the indices must be 1-D");
  return OneHotEncodeExp<IndexExp, DType, IDType>(index.self(), num_choices);
}

template <typename IndexExp, typename DType, typename IDType>
class Plan<OneHotEncodeExp<IndexExp, DType, IDType>, DType> {
 public:
  explicit Plan(const OneHotEncodeExp<IndexExp, DType, IDType>& e)
      : index_(MakePlan(e.index_)), num_choices_(e.shape_[1]) {}
  MSHADOW_XINLINE DType Eval(index_t y, index_t x) const {
    return DType(IndexInRange(index_.Eval(0, y), num_choices_) == x ? 1 : 0);
  }

 private:
  Plan<IndexExp, IDType> index_;
  index_t num_choices_;
};

}  // namespace expr
}  // namespace mshadow

#endif  // MSHADOW_EXTENSION_ONE_HOT_H_
