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

#include "mshadow/expr/exp_base.h"
#include "mshadow/extension/index.h"
#include "mshadow/shape.h"

namespace mshadow {
namespace expr {

template <typename IndexExp, typename DType, typename IDType>
struct OneHotEncodeExp
    : public Exp<OneHotEncodeExp<IndexExp, DType, IDType>, DType, type::kChainer> {
  const IndexExp& index_;
  index_t num_choices_;
  OneHotEncodeExp(const IndexExp& index, index_t num_choices)
      : index_(index), num_choices_(num_choices) {}
};

template <typename DType = default_real_t, typename IndexExp, typename IDType, int e1>
inline OneHotEncodeExp<IndexExp, DType, IDType> one_hot_encode(
    const Exp<IndexExp, IDType, e1>& index, index_t num_choices) {
  static_assert(ExpInfo<IndexExp>::kDim == 1, "one_hot_encode: the indices must be 1-D");
  CHECK_GE(num_choices, 0) << "one_hot_encode: num_choices must not be negative";
  return OneHotEncodeExp<IndexExp, DType, IDType>(index.self(), num_choices);
}

template <typename IndexExp, typename DType, typename IDType>
class Plan<OneHotEncodeExp<IndexExp, DType, IDType>, DType> {
 public:
  explicit Plan(const OneHotEncodeExp<IndexExp, DType, IDType>& e)
      : index_(MakePlan(e.index_)), num_choices_(e.num_choices_) {}
  MSHADOW_XINLINE DType Eval(index_t y, index_t x) const {
    return DType(IndexInRange(index_.Eval(0, y), num_choices_) == x ? 1 : 0);
  }

 private:
  Plan<IndexExp, IDType> index_;
  index_t num_choices_;
};

template <typename IndexExp, typename DType, typename IDType>
inline Plan<OneHotEncodeExp<IndexExp, DType, IDType>, DType> MakePlan(
    const OneHotEncodeExp<IndexExp, DType, IDType>& e) {
  return Plan<OneHotEncodeExp<IndexExp, DType, IDType>, DType>(e);
}

template <int dim, typename IndexExp, typename DType, typename IDType>
struct ShapeCheck<dim, OneHotEncodeExp<IndexExp, DType, IDType>> {
  static Shape<dim> Check(const OneHotEncodeExp<IndexExp, DType, IDType>& t) {
    static_assert(dim == 2, "one_hot_encode gives a 2-D result");
    return Shape2(ShapeCheck<1, IndexExp>::Check(t.index_)[0], t.num_choices_);
  }
};

template <typename IndexExp, typename DType, typename IDType>
struct ExpInfo<OneHotEncodeExp<IndexExp, DType, IDType>> {
  static constexpr int kDim = 2;
  static constexpr int kDevMask = ExpInfo<IndexExp>::kDevMask;
};

}  // namespace expr
}  // namespace mshadow

#endif  // MSHADOW_EXTENSION_ONE_HOT_H_
