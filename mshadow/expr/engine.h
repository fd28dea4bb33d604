// mshadow/expr/engine.h: `ExpEngine`, which routes an assignment `dst SV= exp` to the
// evaluator for the expression's kind.
#ifndef MSHADOW_EXPR_ENGINE_H_
#define MSHADOW_EXPR_ENGINE_H_

#include "mshadow/expr/rvalue.h"

namespace mshadow {

template <typename Container, typename Device, int dimension, typename DType>
struct TRValue;

// Elementwise evaluation into a tensor: defined by each device backend (mshadow/tensor_cpu.h).
template <typename Saver, typename R, int dim, typename DType, typename E, int etype>
inline void MapExp(TRValue<R, cpu, dim, DType>* dst, const expr::Exp<E, DType, etype>& exp);
template <typename Saver, typename R, int dim, typename DType, typename E, int etype>
inline void MapExp(TRValue<R, gpu, dim, DType>* dst, const expr::Exp<E, DType, etype>& exp);

namespace expr {

template <typename SV, typename RV, typename DType>
struct ExpEngine {
  // Elementwise and chainable expressions: one fused loop over the destination.
  template <typename E>
  inline static void Eval(RV* dst, const Exp<E, DType, type::kMapper>& exp) {
    MapExp<SV>(dst, exp);
  }
  template <typename E>
  inline static void Eval(RV* dst, const Exp<E, DType, type::kChainer>& exp) {
    MapExp<SV>(dst, exp);
  }
  template <typename E>
  inline static void Eval(RV* dst, const Exp<E, DType, type::kRValue>& exp) {
    MapExp<SV>(dst, exp);
  }
  // Complex expressions (dot) have an engine of their own.
  template <typename E>
  inline static void Eval(RV* dst, const Exp<E, DType, type::kComplex>& exp) {
    ExpComplexEngine<SV, RV, E, DType>::Eval(dst->ptrself(), exp.self());
  }
};

}  // namespace expr
}  // namespace mshadow

#endif  // MSHADOW_EXPR_ENGINE_H_
