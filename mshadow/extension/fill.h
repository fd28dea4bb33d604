// mshadow/extension/fill.h: a matrix with one element of each row replaced, at a column given
// per row (the gradient of a chosen element, for example).
//
//   grad = mat_fill_row_element(zeros, values, label);   // grad[y][label[y]] = values[y]
//
// A row whose index is outside [0, columns) is left as the source has it.
#ifndef MSHADOW_EXTENSION_FILL_H_
#define MSHADOW_EXTENSION_FILL_H_

#include "mshadow/expr/make_tensor.h"
#include "mshadow/extension/index.h"

namespace mshadow {
namespace expr {

template <typename SrcExp, typename ValExp, typename IndexExp, typename DType, typename VDType,
          typename IDType>
struct MatFillRowElementExp
    : public MakeTensorExp<MatFillRowElementExp<SrcExp, ValExp, IndexExp, DType, VDType, IDType>,
                           SrcExp, 2, DType> {
  const SrcExp& src_;
  const ValExp& val_;
  const IndexExp& index_;
  MatFillRowElementExp(const SrcExp& src, const ValExp& val, const IndexExp& index)
      : src_(src), val_(val), index_(index) {
    this->shape_ = ShapeCheck<2, SrcExp>::Check(src);
    const Shape<1> val_shape = ShapeCheck<1, ValExp>::Check(val);
    const Shape<1> index_shape = ShapeCheck<1, IndexExp>::Check(index);
    CHECK(this->shape_[0] == val_shape[0] && this->shape_[0] == index_shape[0])
        << "mat_fill_row_element: the matrix " << this->shape_
        << " needs one value and one index per row; got values " << val_shape << " and indices "
        << index_shape;
  }
};

// out[y][x] = x == index[y] ? val[y] : src[y][x].
template <typename SrcExp, typename ValExp, typename IndexExp, typename SDType, typename VDType,
          typename IDType, int e1, int e2, int e3>
inline MatFillRowElementExp<SrcExp, ValExp, IndexExp, SDType, VDType, IDType> mat_fill_row_element(
    const Exp<SrcExp, SDType, e1>& src, const Exp<ValExp, VDType, e2>& val,
    const Exp<IndexExp, IDType, e3>& index) {
  static_assert(
      ExpInfo<SrcExp>::kDim == 2 && ExpInfo<ValExp>::kDim == 1 && ExpInfo<IndexExp>::kDim == 1,
      "mat_fill_row_element(src, val, index): src is 2-D, val and index 1-D");
  static_assert(SameDevice<SrcExp, ValExp, IndexExp>(),
                "mat_fill_row_element: every operand on one device");
  return MatFillRowElementExp<SrcExp, ValExp, IndexExp, SDType, VDType, IDType>(
      src.self(), val.self(), index.self());
}

template <typename SrcExp, typename ValExp, typename IndexExp, typename DType, typename VDType,
          typename IDType>
class Plan<MatFillRowElementExp<SrcExp, ValExp, IndexExp, DType, VDType, IDType>, DType> {
 public:
  explicit Plan(const MatFillRowElementExp<SrcExp, ValExp, IndexExp, DType, VDType, IDType>& e)
      : src_(MakePlan(e.src_)),
        val_(MakePlan(e.val_)),
        index_(MakePlan(e.index_)),
        columns_(e.shape_[1]) {}
  MSHADOW_XINLINE DType Eval(index_t y, index_t x) const {
    if (IndexInRange(index_.Eval(0, y), columns_) == x) {
      return static_cast<DType>(val_.Eval(0, y));
    }
    return src_.Eval(y, x);
  }

 private:
  Plan<SrcExp, DType> src_;
  Plan<ValExp, VDType> val_;
  Plan<IndexExp, IDType> index_;
  index_t columns_;
};

}  // namespace expr
}  // namespace mshadow

#endif  // MSHADOW_EXTENSION_FILL_H_
