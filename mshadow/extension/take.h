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

#include "mshadow/expr/exp_base.h"
#include "mshadow/extension/index.h"
#include "mshadow/shape.h"

namespace mshadow {
namespace expr {

template <typename IndexExp, typename SrcExp, typename DType, typename IDType, bool clip>
struct TakeExp : public Exp<TakeExp<IndexExp, SrcExp, DType, IDType, clip>, DType, type::kChainer> {
  const IndexExp& index_;
  const SrcExp& src_;
  TakeExp(const IndexExp& index, const SrcExp& src) : index_(index), src_(src) {}
};

template <bool clip = true, typename IndexExp, typename SrcExp, typename DType, typename IDType,
          int e1, int e2>
inline TakeExp<IndexExp, SrcExp, DType, IDType, clip> take(const Exp<IndexExp, IDType, e1>& index,
                                                           const Exp<SrcExp, DType, e2>& src) {
  static_assert(ExpInfo<IndexExp>::kDim == 1 && ExpInfo<SrcExp>::kDim == 2,
                "take(index, src): index is 1-D, src 2-D");
  return TakeExp<IndexExp, SrcExp, DType, IDType, clip>(index.self(), src.self());
}

template <typename IndexExp, typename SrcExp, typename DType, typename IDType, bool clip>
class Plan<TakeExp<IndexExp, SrcExp, DType, IDType, clip>, DType> {
 public:
  explicit Plan(const TakeExp<IndexExp, SrcExp, DType, IDType, clip>& e)
      : index_(MakePlan(e.index_)),
        src_(MakePlan(e.src_)),
        rows_(ShapeCheck<2, SrcExp>::Check(e.src_)[0]) {}
  MSHADOW_XINLINE DType Eval(index_t y, index_t x) const {
    const IDType id = index_.Eval(0, y);
    return src_.Eval(clip ? ClipIndex(id, rows_) : WrapIndex(id, rows_), x);
  }

 private:
  Plan<IndexExp, IDType> index_;
  Plan<SrcExp, DType> src_;
  index_t rows_;
};

template <typename IndexExp, typename SrcExp, typename DType, typename IDType, bool clip>
inline Plan<TakeExp<IndexExp, SrcExp, DType, IDType, clip>, DType> MakePlan(
    const TakeExp<IndexExp, SrcExp, DType, IDType, clip>& e) {
  return Plan<TakeExp<IndexExp, SrcExp, DType, IDType, clip>, DType>(e);
}

template <int dim, typename IndexExp, typename SrcExp, typename DType, typename IDType, bool clip>
struct ShapeCheck<dim, TakeExp<IndexExp, SrcExp, DType, IDType, clip>> {
  static Shape<dim> Check(const TakeExp<IndexExp, SrcExp, DType, IDType, clip>& t) {
    static_assert(dim == 2, "take gives a 2-D result");
    const Shape<1> index_shape = ShapeCheck<1, IndexExp>::Check(t.index_);
    const Shape<2> src_shape = ShapeCheck<2, SrcExp>::Check(t.src_);
    CHECK_GT(src_shape[0], 0) << "take: the table " << src_shape << " has no rows to take";
    return Shape2(index_shape[0], src_shape[1]);
  }
};

template <typename IndexExp, typename SrcExp, typename DType, typename IDType, bool clip>
struct ExpInfo<TakeExp<IndexExp, SrcExp, DType, IDType, clip>> {
  static constexpr int kDim = 2;
  static constexpr int kDevMask = ExpInfo<IndexExp>::kDevMask & ExpInfo<SrcExp>::kDevMask;
};

}  // namespace expr
}  // namespace mshadow

#endif  // MSHADOW_EXTENSION_TAKE_H_
