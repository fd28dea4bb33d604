// mshadow/cuda/flat_eval.cuh: which expressions the GPU may evaluate as one flat run of
// elements. An expression built only of elementwise maps, scalars and tensors whose rows are
// packed (stride == width) reads element k of the flattened shape at plan.Eval(0, k), so
// MapExp<gpu> can skip the row/column split (an integer division per element) and batch
// several independent loads per thread before any store. Anything else (broadcasts,
// transposes, reductions, casts, extensions) takes the general 2-D path.
//
//   if constexpr (cuda::FlatEval<E>::kPass) {
//     if (cuda::FlatEval<E>::Packed(exp.self())) ...  // run time: every tensor packed
//   }
#ifndef MSHADOW_CUDA_FLAT_EVAL_CUH_
#define MSHADOW_CUDA_FLAT_EVAL_CUH_

#include "mshadow/expr/elementwise.h"
#include "mshadow/expr/scalar.h"
#include "mshadow/tensor_core.h"

namespace mshadow {
namespace cuda {

// kPass: the expression's type can be evaluated flat; Packed(e): its tensors are all packed.
template <typename E>
struct FlatEval {
  static constexpr bool kPass = false;
  static bool Packed(const E&) { return false; }
};

template <int dim, typename DType>
struct FlatEval<Tensor<gpu, dim, DType>> {
  static constexpr bool kPass = true;
  static bool Packed(const Tensor<gpu, dim, DType>& t) {
    return dim == 1 || t.stride_ == t.size(dim - 1) || t.shape_.FlatTo2D()[0] <= 1;
  }
};

template <typename DType>
struct FlatEval<expr::ScalarExp<DType>> {
  static constexpr bool kPass = true;
  static bool Packed(const expr::ScalarExp<DType>&) { return true; }
};

template <typename OP, typename TA, typename DType, int etype>
struct FlatEval<expr::UnaryMapExp<OP, TA, DType, etype>> {
  static constexpr bool kPass = FlatEval<TA>::kPass;
  static bool Packed(const expr::UnaryMapExp<OP, TA, DType, etype>& e) {
    return FlatEval<TA>::Packed(e.src_);
  }
};

template <typename OP, typename TA, typename TB, typename DType, int etype>
struct FlatEval<expr::BinaryMapExp<OP, TA, TB, DType, etype>> {
  static constexpr bool kPass = FlatEval<TA>::kPass && FlatEval<TB>::kPass;
  static bool Packed(const expr::BinaryMapExp<OP, TA, TB, DType, etype>& e) {
    return FlatEval<TA>::Packed(e.lhs_) && FlatEval<TB>::Packed(e.rhs_);
  }
};

template <typename OP, typename TA, typename TB, typename TC, typename DType, int etype>
struct FlatEval<expr::TernaryMapExp<OP, TA, TB, TC, DType, etype>> {
  static constexpr bool kPass = FlatEval<TA>::kPass && FlatEval<TB>::kPass && FlatEval<TC>::kPass;
  static bool Packed(const expr::TernaryMapExp<OP, TA, TB, TC, DType, etype>& e) {
    return FlatEval<TA>::Packed(e.item1_) && FlatEval<TB>::Packed(e.item2_) &&
           FlatEval<TC>::Packed(e.item3_);
  }
};

}  // namespace cuda
}  // namespace mshadow

#endif  // MSHADOW_CUDA_FLAT_EVAL_CUH_
