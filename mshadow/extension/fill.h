// mshadow/extension/fill.h: a matrix with one element of each row replaced, at a column given
// per row (the gradient of a chosen element, for example).
//
//   grad = mat_fill_row_element(zeros, values, label);   // grad[y][label[y]] = values[y]
//
// A row whose index is outside [0, columns) is left as the source has it.
#ifndef MSHADOW_EXTENSION_FILL_H_
#define MSHADOW_EXTENSION_FILL_H_

#include "mshadow/expr/exp_base.h"
#include "mshadow/extension/index.h"
#include "mshadow/shape.h"

namespace mshadow {
namespace expr {

template <typename SrcExp, typename ValExp, typename IndexExp, typename DType, typename VDType,
          typename IDType>
struct MatFillRowElementExp
    : public Exp<MatFillRowElementExp<SrcExp, ValExp, IndexExp, DType, VDType, IDType>, DType,
                 type::kChainer> {
  const SrcExp& src_;
  const ValExp& val_;
  const IndexExp& index_;
  MatFillRowElementExp(const SrcExp& src, const ValExp& val, const IndexExp& index)
      : src_(src), val_(val), index_(index) {}
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
        columns_(ShapeCheck<2, SrcExp>::Check(e.src_)[1]) {}
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

template <typename SrcExp, typename ValExp, typename IndexExp, typename DType, typename VDType,
          typename IDType>
inline Plan<MatFillRowElementExp<SrcExp, ValExp, IndexExp, DType, VDType, IDType>, DType> MakePlan(
    const MatFillRowElementExp<SrcExp, ValExp, IndexExp, DType, VDType, IDType>& e) {
  return Plan<MatFillRowElementExp<SrcExp, ValExp, IndexExp, DType, VDType, IDType>, DType>(e);
}

template <int dim, typename SrcExp, typename ValExp, typename IndexExp, typename DType,
          typename VDType, typename IDType>
struct ShapeCheck<dim, MatFillRowElementExp<SrcExp, ValExp, IndexExp, DType, VDType, IDType>> {
  static Shape<dim> Check(
      const MatFillRowElementExp<SrcExp, ValExp, IndexExp, DType, VDType, IDType>& t) {
    static_assert(dim == 2, "mat_fill_row_element gives a 2-D result");
    const Shape<2> src_shape = ShapeCheck<2, SrcExp>::Check(t.src_);
    const Shape<1> val_shape = ShapeCheck<1, ValExp>::Check(t.val_);
    const Shape<1> index_shape = ShapeCheck<1, IndexExp>::Check(t.index_);
    CHECK(src_shape[0] == val_shape[0] && src_shape[0] == index_shape[0])
        << "mat_fill_row_element: the matrix " << src_shape << " needs one value and one index "
        << "per row; got values " << val_shape << " and indices " << index_shape;
    return src_shape;
  }
};

template <typename SrcExp, typename ValExp, typename IndexExp, typename DType, typename VDType,
          typename IDType>
struct ExpInfo<MatFillRowElementExp<SrcExp, ValExp, IndexExp, DType, VDType, IDType>> {
  static constexpr int kDim = 2;
  static constexpr int kDevMask =
      ExpInfo<SrcExp>::kDevMask & ExpInfo<ValExp>::kDevMask & ExpInfo<IndexExp>::kDevMask;
};

}  // namespace expr
}  // namespace mshadow

#endif  // MSHADOW_EXTENSION_FILL_H_
