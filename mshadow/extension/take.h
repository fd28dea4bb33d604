// mshadow/extension/take.h: rows of a matrix gathered by a vector of row indices (an embedding
// lookup).
//
//   Tensor<cpu, 1> ids(Shape1(32));  Tensor<cpu, 2> table(Shape2(50000, 512)), out(Shape2(32,
//   512)); out = take(ids, table);          // out[i] = table[ids[i]], ids clipped into [0, 50000)
//   out = take<false>(ids, table);   // ids taken modulo 50000 instead
//
// Either way no index reads outside the table.
#ifndef MSHADOW_EXTENSION_TAKE_H_
#define MSHADOW_EXTENSION_TAKE_H_

#include "mshadow/expr/make_tensor.h"
#include "mshadow/extension/index.h"

namespace mshadow {
namespace expr {

template <typename IndexExp, typename SrcExp, typename DType, typename IDType, bool clip>
struct TakeExp
    : public MakeTensorExp<TakeExp<IndexExp, SrcExp, DType, IDType, clip>, SrcExp, 2, DType> {
  const IndexExp& index_;
  const SrcExp& src_;
  index_t rows_;
  TakeExp(const IndexExp& index, const SrcExp& src) : index_(index), src_(src) {
    const Shape<2> src_shape = ShapeCheck<2, SrcExp>::Check(src);
    CHECK_GT(src_shape[0], 0) << "take: the table " << src_shape << " has no rows to take";
    rows_ = src_shape[0];
    this->shape_ = Shape2(ShapeCheck<1, IndexExp>::Check(index)[0], src_shape[1]);
  }
};

template <bool clip = true, typename IndexExp, typename SrcExp, typename DType, typename IDType,
          int e1, int e2>
inline TakeExp<IndexExp, SrcExp, DType, IDType, clip> take(const Exp<IndexExp, IDType, e1>& index,
                                                           const Exp<SrcExp, DType, e2>& src) {
  static_assert(ExpInfo<IndexExp>::kDim == 1 && ExpInfo<SrcExp>::kDim == 2,
                "take(index, src): index is 1-D, src 2-D");
  static_assert(SameDevice<SrcExp, IndexExp>(), "take: both operands on one device");
  return TakeExp<IndexExp, SrcExp, DType, IDType, clip>(index.self(), src.self());
}

template <typename IndexExp, typename SrcExp, typename DType, typename IDType, bool clip>
class Plan<TakeExp<IndexExp, SrcExp, DType, IDType, clip>, DType> {
 public:
  explicit Plan(const TakeExp<IndexExp, SrcExp, DType, IDType, clip>& e)
      : index_(MakePlan(e.index_)), src_(MakePlan(e.src_)), rows_(e.rows_) {}
  MSHADOW_XINLINE DType Eval(index_t y, index_t x) const {
    const IDType id = index_.Eval(0, y);
    return src_.Eval(clip ? ClipIndex(id, rows_) : WrapIndex(id, rows_), x);
  }

 private:
  Plan<IndexExp, IDType> index_;
  Plan<SrcExp, DType> src_;
  index_t rows_;
};

}  // namespace expr
}  // namespace mshadow

#endif  // MSHADOW_EXTENSION_TAKE_H_
