// mshadow/extension/reduceto1d.h: reductions of an expression to a 1-D tensor.
//
//   Tensor<cpu, 2> m;  Tensor<cpu, 1> v;
//   v = sum_rows(m);                         // v[x] = sum_y m[y][x]
//   v = sumall_except_dim<1>(t4) * 0.5f;     // v[c] = 0.5 * sum over n, h, w of t4[n][c][h][w]
#ifndef MSHADOW_EXTENSION_REDUCETO1D_H_
#define MSHADOW_EXTENSION_REDUCETO1D_H_

#include "mshadow/tensor_cpu-inl.h"

namespace mshadow {
namespace expr {

// Reduces every dimension of SrcExp except one. `m_dimkeep` counts the kept dimension from
// the end (1 = the lowest), so that it does not depend on the source's rank.
template <typename SrcExp, typename DType, typename Reducer, int m_dimkeep>
struct ReduceTo1DExp
    : public Exp<ReduceTo1DExp<SrcExp, DType, Reducer, m_dimkeep>, DType, type::kComplex> {
  const SrcExp& src_;
  DType scale_;
  ReduceTo1DExp(const SrcExp& src, DType scale) : src_(src), scale_(scale) {}
};

// v[x] = sum over all other indices of exp[..., x].
template <typename SrcExp, typename DType, int etype>
inline ReduceTo1DExp<SrcExp, DType, red::sum, 1> sum_rows(const Exp<SrcExp, DType, etype>& exp) {
  return ReduceTo1DExp<SrcExp, DType, red::sum, 1>(exp.self(), DType(1));
}

// v[i] = sum over all other indices of exp, with i indexing dimension dimkeep.
template <int dimkeep, typename SrcExp, typename DType, int etype>
inline ReduceTo1DExp<SrcExp, DType, red::sum, ExpInfo<SrcExp>::kDim - dimkeep>
sumall_except_dim(const Exp<SrcExp, DType, etype>& exp) {
  static_assert(0 <= dimkeep && dimkeep < ExpInfo<SrcExp>::kDim,
                "sumall_except_dim<dimkeep>: dimkeep must be a dimension of the expression");
  return ReduceTo1DExp<SrcExp, DType, red::sum, ExpInfo<SrcExp>::kDim - dimkeep>(exp.self(),
                                                                                  DType(1));
}

// Same, with another reducer: reduce_except_dim<1, red::maximum>(t).
template <int dimkeep, typename Reducer, typename SrcExp, typename DType, int etype>
inline ReduceTo1DExp<SrcExp, DType, Reducer, ExpInfo<SrcExp>::kDim - dimkeep>
reduce_except_dim(const Exp<SrcExp, DType, etype>& exp) {
  static_assert(0 <= dimkeep && dimkeep < ExpInfo<SrcExp>::kDim,
                "reduce_except_dim<dimkeep>: dimkeep must be a dimension of the expression");
  return ReduceTo1DExp<SrcExp, DType, Reducer, ExpInfo<SrcExp>::kDim - dimkeep>(exp.self(),
                                                                                DType(1));
}

template <typename SrcExp, typename DType, typename Reducer, int m_dimkeep>
inline ReduceTo1DExp<SrcExp, DType, Reducer, m_dimkeep> operator*(
    const ReduceTo1DExp<SrcExp, DType, Reducer, m_dimkeep>& e,
    typename NonDeduced<DType>::type scale) {
  return ReduceTo1DExp<SrcExp, DType, Reducer, m_dimkeep>(e.src_, e.scale_ * scale);
}
template <typename SrcExp, typename DType, typename Reducer, int m_dimkeep>
inline ReduceTo1DExp<SrcExp, DType, Reducer, m_dimkeep> operator*(
    typename NonDeduced<DType>::type scale,
    const ReduceTo1DExp<SrcExp, DType, Reducer, m_dimkeep>& e) {
  return e * scale;
}

template <typename SV, typename Device, typename DType, typename SrcExp, typename Reducer,
          int m_dimkeep>
struct ExpComplexEngine<SV, Tensor<Device, 1, DType>,
                        ReduceTo1DExp<SrcExp, DType, Reducer, m_dimkeep>, DType> {
  static constexpr int kDimKeep = ExpInfo<SrcExp>::kDim - m_dimkeep;
  static void Eval(Tensor<Device, 1, DType>* dst,
                   const ReduceTo1DExp<SrcExp, DType, Reducer, m_dimkeep>& exp) {
    if constexpr (m_dimkeep == 1) {
      MapReduceKeepLowest<SV, Reducer>(dst, exp.src_, exp.scale_);
    } else {
      MapReduceKeepHighDim<SV, Reducer, kDimKeep>(dst, exp.src_, exp.scale_);
    }
  }
};

}  // namespace expr
}  // namespace mshadow

#endif  // MSHADOW_EXTENSION_REDUCETO1D_H_
