// mshadow/extension/broadcast.h: a 1-D expression repeated along every other dimension of a
// larger shape.
//
//   Tensor<cpu, 1> bias(Shape1(16));  Tensor<cpu, 4> out(Shape4(8, 16, 5, 5));
//   out += broadcast<1>(bias, out.shape_);   // out[n][c][h][w] += bias[c]
//   Tensor<cpu, 2> act(Shape2(32, 16));
//   act += repmat(bias, 32);                 // act[y][x] += bias[x]
#ifndef MSHADOW_EXTENSION_BROADCAST_H_
#define MSHADOW_EXTENSION_BROADCAST_H_

#include "mshadow/expr/make_tensor.h"
#include "mshadow/expr/type_check.h"

namespace mshadow {
namespace expr {

// dimdst_m_cast = dimdst - dimcast: counting from the end keeps the lowest-dimension case
// (dimdst_m_cast == 1, a plain column lookup) a distinct type.
template <typename SrcExp, typename DType, int dimdst, int dimdst_m_cast>
struct Broadcast1DExp : public MakeTensorExp<Broadcast1DExp<SrcExp, DType, dimdst, dimdst_m_cast>,
                                             SrcExp, dimdst, DType> {
  const SrcExp& src_;
  Broadcast1DExp(const SrcExp& src, Shape<dimdst> shape) : src_(src) { this->shape_ = shape; }
};

// out[..., i, ...] = src[i], with i at dimension dimcast of `shape`.
template <int dimcast, typename SrcExp, typename DType, int etype, int dimdst>
inline Broadcast1DExp<SrcExp, DType, dimdst, dimdst - dimcast> broadcast(
    const Exp<SrcExp, DType, etype>& src, Shape<dimdst> shape) {
  static_assert(ExpInfo<SrcExp>::kDim == 1, "broadcast: the source must be 1-D");
  static_assert(0 <= dimcast && dimcast < dimdst,
                "broadcast<dimcast>: dimcast must be a dimension of the target shape");
  const index_t length = ShapeCheck<1, SrcExp>::Check(src.self())[0];
  CHECK_EQ(length, shape[dimcast]) << "broadcast<" << dimcast << ">: the source's length must be "
                                   << "dimension " << dimcast << " of the target shape " << shape;
  return Broadcast1DExp<SrcExp, DType, dimdst, dimdst - dimcast>(src.self(), shape);
}

// A (nrow, length) matrix whose every row is src.
template <typename SrcExp, typename DType, int etype>
inline Broadcast1DExp<SrcExp, DType, 2, 1> repmat(const Exp<SrcExp, DType, etype>& src,
                                                  index_t nrow) {
  static_assert(ExpInfo<SrcExp>::kDim == 1, "repmat: the source must be 1-D");
  return broadcast<1>(src, Shape2(nrow, ShapeCheck<1, SrcExp>::Check(src.self())[0]));
}

template <typename SrcExp, typename DType, int dimdst, int dimdst_m_cast>
class Plan<Broadcast1DExp<SrcExp, DType, dimdst, dimdst_m_cast>, DType> {
 public:
  static constexpr int kDimCast = dimdst - dimdst_m_cast;
  explicit Plan(const Broadcast1DExp<SrcExp, DType, dimdst, dimdst_m_cast>& e)
      : src_(MakePlan(e.src_)),
        row_stride_(e.shape_.ProdShape(kDimCast + 1, dimdst - 1)),
        length_(e.shape_[kDimCast]) {}
  MSHADOW_XINLINE DType Eval(index_t y, index_t x) const {
    if constexpr (dimdst_m_cast == 1) {
      return src_.Eval(0, x);  // the last dimension: the column is the index
    } else {
      return src_.Eval(0, (y / row_stride_) % length_);
    }
  }

 private:
  Plan<SrcExp, DType> src_;
  // Rows of the 2-D view per step along dimcast, and the source's length.
  index_t row_stride_, length_;
};

}  // namespace expr
}  // namespace mshadow

#endif  // MSHADOW_EXTENSION_BROADCAST_H_
