// mshadow/extension/choose.h: one element from each row of a matrix, picked by a vector of
// column indices (a label's probability, for example).
//
//   Tensor<cpu, 2> prob(Shape2(32, 10));  Tensor<cpu, 1> label(Shape1(32)), picked(Shape1(32));
//   picked = mat_choose_row_element(prob, label);   // picked[y] = prob[y][label[y]]
//
// An index outside [0, columns) is clipped into it, so no value reads outside the matrix.
#ifndef MSHADOW_EXTENSION_CHOOSE_H_
#define MSHADOW_EXTENSION_CHOOSE_H_

#include "mshadow/expr/exp_base.h"
#include "mshadow/extension/index.h"
#include "mshadow/shape.h"

namespace mshadow {
namespace expr {

template <typename SrcExp, typename IndexExp, typename DType, typename IDType>
struct MatChooseRowElementExp
    : public Exp<MatChooseRowElementExp<SrcExp, IndexExp, DType, IDType>, DType, type::kChainer> {
  const SrcExp& src_;
  const IndexExp& index_;
  MatChooseRowElementExp(const SrcExp& src, const IndexExp& index) : src_(src), index_(index) {}
};

template <typename SrcExp, typename IndexExp, typename DType, typename IDType, int e1, int e2>
inline MatChooseRowElementExp<SrcExp, IndexExp, DType, IDType> mat_choose_row_element(
    const Exp<SrcExp, DType, e1>& src, const Exp<IndexExp, IDType, e2>& index) {
  static_assert(ExpInfo<SrcExp>::kDim == 2 && ExpInfo<IndexExp>::kDim == 1,
                "mat_choose_row_element(src, index): src is 2-D, index 1-D");
  return MatChooseRowElementExp<SrcExp, IndexExp, DType, IDType>(src.self(), index.self());
}

template <typename SrcExp, typename IndexExp, typename DType, typename IDType>
class Plan<MatChooseRowElementExp<SrcExp, IndexExp, DType, IDType>, DType> {
 public:
  explicit Plan(const MatChooseRowElementExp<SrcExp, IndexExp, DType, IDType>& e)
      : src_(MakePlan(e.src_)),
        index_(MakePlan(e.index_)),
        columns_(ShapeCheck<2, SrcExp>::Check(e.src_)[1]) {}
  // The result is 1-D: x is the row of the matrix.
  MSHADOW_XINLINE DType Eval(index_t /*y*/, index_t x) const {
    return src_.Eval(x, ClipIndex(index_.Eval(0, x), columns_));
  }

 private:
  Plan<SrcExp, DType> src_;
  Plan<IndexExp, IDType> index_;
  index_t columns_;
};

template <typename SrcExp, typename IndexExp, typename DType, typename IDType>
inline Plan<MatChooseRowElementExp<SrcExp, IndexExp, DType, IDType>, DType> MakePlan(
    const MatChooseRowElementExp<SrcExp, IndexExp, DType, IDType>& e) {
  return Plan<MatChooseRowElementExp<SrcExp, IndexExp, DType, IDType>, DType>(e);
}

template <int dim, typename SrcExp, typename IndexExp, typename DType, typename IDType>
struct ShapeCheck<dim, MatChooseRowElementExp<SrcExp, IndexExp, DType, IDType>> {
  static Shape<dim> Check(const MatChooseRowElementExp<SrcExp, IndexExp, DType, IDType>& t) {
    static_assert(dim == 1, "mat_choose_row_element gives a 1-D result");
    const Shape<2> src_shape = ShapeCheck<2, SrcExp>::Check(t.src_);
    const Shape<1> index_shape = ShapeCheck<1, IndexExp>::Check(t.index_);
    CHECK_EQ(src_shape[0], index_shape[0])
        << "mat_choose_row_element: " << index_shape << " indices for a matrix " << src_shape
        << "; one per row is needed";
    CHECK_GT(src_shape[1], 0) << "mat_choose_row_element: the matrix " << src_shape
                              << " has no columns to choose from";
    return index_shape;
  }
};

template <typename SrcExp, typename IndexExp, typename DType, typename IDType>
struct ExpInfo<MatChooseRowElementExp<SrcExp, IndexExp, DType, IDType>> {
  static constexpr int kDim = 1;
  static constexpr int kDevMask = ExpInfo<SrcExp>::kDevMask & ExpInfo<IndexExp>::kDevMask;
};

}  // namespace expr
}  // namespace mshadow

#endif  // MSHADOW_EXTENSION_CHOOSE_H_
