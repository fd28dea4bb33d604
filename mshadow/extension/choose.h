// mshadow/extension/choose.h: one element from each row of a matrix, picked by a vector of
// column indices (a label's probability, for example).
//
//   Tensor<cpu, 2> prob(Shape2(32, 10));  Tensor<cpu, 1> label(Shape1(32)), picked(Shape1(32));
//   picked = mat_choose_row_element(prob, label);   // picked[y] = prob[y][label[y]]
//
// An index outside [0, columns) is clipped into it, so no value reads outside the matrix.
#ifndef MSHADOW_EXTENSION_CHOOSE_H_
#define MSHADOW_EXTENSION_CHOOSE_H_

#include "mshadow/expr/make_tensor.h"
#include "mshadow/extension/index.h"

namespace mshadow {
namespace expr {

template <typename SrcExp, typename IndexExp, typename DType, typename IDType>
struct MatChooseRowElementExp
    : public MakeTensorExp<MatChooseRowElementExp<SrcExp, IndexExp, DType, IDType>, SrcExp, 1,
                           DType> {
  const SrcExp& src_;
  const IndexExp& index_;
  index_t columns_;
  MatChooseRowElementExp(const SrcExp& src, const IndexExp& index) : src_(src), index_(index) {
    const Shape<2> src_shape = ShapeCheck<2, SrcExp>::Check(src);
    this->shape_ = ShapeCheck<1, IndexExp>::Check(index);
    CHECK_EQ(src_shape[0], this->shape_[0])
        << "mat_choose_row_element: " << this->shape_ << " indices for a matrix " << src_shape
        << "; one per row is needed";
    CHECK_GT(src_shape[1], 0) << "mat_choose_row_element: the matrix " << src_shape
                              << " has no columns to choose from";
    columns_ = src_shape[1];
  }
};

template <typename SrcExp, typename IndexExp, typename DType, typename IDType, int e1, int e2>
inline MatChooseRowElementExp<SrcExp, IndexExp, DType, IDType> mat_choose_row_element(
    const Exp<SrcExp, DType, e1>& src, const Exp<IndexExp, IDType, e2>& index) {
  static_assert(ExpInfo<SrcExp>::kDim == 2 && ExpInfo<IndexExp>::kDim == 1,
                "mat_choose_row_element(src, index): src is 2-D, index 1-D");
  static_assert(SameDevice<SrcExp, IndexExp>(),
                "mat_choose_row_element: both operands on one device");
  return MatChooseRowElementExp<SrcExp, IndexExp, DType, IDType>(src.self(), index.self());
}

template <typename SrcExp, typename IndexExp, typename DType, typename IDType>
class Plan<MatChooseRowElementExp<SrcExp, IndexExp, DType, IDType>, DType> {
 public:
  explicit Plan(const MatChooseRowElementExp<SrcExp, IndexExp, DType, IDType>& e)
      : src_(MakePlan(e.src_)), index_(MakePlan(e.index_)), columns_(e.columns_) {}
  // The result is 1-D: x is the row of the matrix.
  MSHADOW_XINLINE DType Eval(index_t /*y*/, index_t x) const {
    return src_.Eval(x, ClipIndex(index_.Eval(0, x), columns_));
  }

 private:
  Plan<SrcExp, DType> src_;
  Plan<IndexExp, IDType> index_;
  index_t columns_;
};

}  // namespace expr
}  // namespace mshadow

#endif  // MSHADOW_EXTENSION_CHOOSE_H_
