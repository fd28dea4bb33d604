// mshadow/cuda/flat_eval.cuh: which expressions the GPU may evaluate as one flat run of
// elements. An expression built only of elementwise maps, scalars and tensors whose rows are
// packed (stride == width) reads element k of the flattened shape at plan.Eval(0, k), so
// MapExp<gpu> can skip the row/column split (an integer division per element) and batch
// several independent loads per thread before any store. Anything else (broadcasts,
// transposes, reductions, casts, extensions) takes the general 2-D path. Where every tensor
// is also 16-byte aligned, VecPlan evaluates 16 bytes of elements per load.
//
//   if constexpr (cuda::FlatEval<E>::kPass) {
//     if (cuda::FlatEval<E>::Packed(exp.self())) ...  // run time: every tensor packed
//   }
#ifndef MSHADOW_CUDA_FLAT_EVAL_CUH_
#define MSHADOW_CUDA_FLAT_EVAL_CUH_

#include <cstdint>

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
  static bool Aligned16(const E&) { return false; }
};

template <int dim, typename DType>
struct FlatEval<Tensor<gpu, dim, DType>> {
  static constexpr bool kPass = true;
  static bool Packed(const Tensor<gpu, dim, DType>& t) {
    return dim == 1 || t.stride_ == t.size(dim - 1) || t.shape_.FlatTo2D()[0] <= 1;
  }
  static bool Aligned16(const Tensor<gpu, dim, DType>& t) {
    return reinterpret_cast<uintptr_t>(t.dptr_) % 16 == 0;
  }
};

template <typename DType>
struct FlatEval<expr::ScalarExp<DType>> {
  static constexpr bool kPass = true;
  static bool Packed(const expr::ScalarExp<DType>&) { return true; }
  static bool Aligned16(const expr::ScalarExp<DType>&) { return true; }
};

template <typename OP, typename TA, typename DType, int etype>
struct FlatEval<expr::UnaryMapExp<OP, TA, DType, etype>> {
  static constexpr bool kPass = FlatEval<TA>::kPass;
  static bool Packed(const expr::UnaryMapExp<OP, TA, DType, etype>& e) {
    return FlatEval<TA>::Packed(e.src_);
  }
  static bool Aligned16(const expr::UnaryMapExp<OP, TA, DType, etype>& e) {
    return FlatEval<TA>::Aligned16(e.src_);
  }
};

template <typename OP, typename TA, typename TB, typename DType, int etype>
struct FlatEval<expr::BinaryMapExp<OP, TA, TB, DType, etype>> {
  static constexpr bool kPass = FlatEval<TA>::kPass && FlatEval<TB>::kPass;
  static bool Packed(const expr::BinaryMapExp<OP, TA, TB, DType, etype>& e) {
    return FlatEval<TA>::Packed(e.lhs_) && FlatEval<TB>::Packed(e.rhs_);
  }
  static bool Aligned16(const expr::BinaryMapExp<OP, TA, TB, DType, etype>& e) {
    return FlatEval<TA>::Aligned16(e.lhs_) && FlatEval<TB>::Aligned16(e.rhs_);
  }
};

template <typename OP, typename TA, typename TB, typename TC, typename DType, int etype>
struct FlatEval<expr::TernaryMapExp<OP, TA, TB, TC, DType, etype>> {
  static constexpr bool kPass = FlatEval<TA>::kPass && FlatEval<TB>::kPass && FlatEval<TC>::kPass;
  static bool Packed(const expr::TernaryMapExp<OP, TA, TB, TC, DType, etype>& e) {
    return FlatEval<TA>::Packed(e.item1_) && FlatEval<TB>::Packed(e.item2_) &&
           FlatEval<TC>::Packed(e.item3_);
  }
  static bool Aligned16(const expr::TernaryMapExp<OP, TA, TB, TC, DType, etype>& e) {
    return FlatEval<TA>::Aligned16(e.item1_) && FlatEval<TB>::Aligned16(e.item2_) &&
           FlatEval<TC>::Aligned16(e.item3_);
  }
};

// Elements of a 16-byte vector of DType.
template <typename DType>
constexpr int kVecLanes = 16 / static_cast<int>(sizeof(DType));

template <typename DType>
struct alignas(16) Vec16 {
  DType lane[kVecLanes<DType>];
};

// VecPlan<E, DType>: Load(i, v) evaluates elements i .. i + kVecLanes - 1 of an expression
// that FlatEval passes, one 16-byte load per tensor (i a multiple of kVecLanes, every tensor
// 16-byte aligned: FlatEval::Aligned16).
template <typename E, typename DType>
struct VecPlan;

template <int dim, typename DType>
struct VecPlan<Tensor<gpu, dim, DType>, DType> {
  const DType* data;
  explicit VecPlan(const Tensor<gpu, dim, DType>& t) : data(t.dptr_) {}
  __device__ void Load(index_t i, Vec16<DType>* v) const {
    *v = *reinterpret_cast<const Vec16<DType>*>(data + i);
  }
};

template <typename DType>
struct VecPlan<expr::ScalarExp<DType>, DType> {
  DType value;
  explicit VecPlan(const expr::ScalarExp<DType>& e) : value(e.scalar_) {}
  __device__ void Load(index_t, Vec16<DType>* v) const {
#pragma unroll
    for (int k = 0; k < kVecLanes<DType>; ++k) v->lane[k] = value;
  }
};

template <typename OP, typename TA, typename DType, int etype>
struct VecPlan<expr::UnaryMapExp<OP, TA, DType, etype>, DType> {
  VecPlan<TA, DType> src;
  explicit VecPlan(const expr::UnaryMapExp<OP, TA, DType, etype>& e) : src(e.src_) {}
  __device__ void Load(index_t i, Vec16<DType>* v) const {
    src.Load(i, v);
#pragma unroll
    for (int k = 0; k < kVecLanes<DType>; ++k) v->lane[k] = OP::Map(v->lane[k]);
  }
};

template <typename OP, typename TA, typename TB, typename DType, int etype>
struct VecPlan<expr::BinaryMapExp<OP, TA, TB, DType, etype>, DType> {
  VecPlan<TA, DType> lhs;
  VecPlan<TB, DType> rhs;
  explicit VecPlan(const expr::BinaryMapExp<OP, TA, TB, DType, etype>& e)
      : lhs(e.lhs_), rhs(e.rhs_) {}
  __device__ void Load(index_t i, Vec16<DType>* v) const {
    Vec16<DType> b;
    lhs.Load(i, v);
    rhs.Load(i, &b);
#pragma unroll
    for (int k = 0; k < kVecLanes<DType>; ++k) v->lane[k] = OP::Map(v->lane[k], b.lane[k]);
  }
};

template <typename OP, typename TA, typename TB, typename TC, typename DType, int etype>
struct VecPlan<expr::TernaryMapExp<OP, TA, TB, TC, DType, etype>, DType> {
  VecPlan<TA, DType> item1;
  VecPlan<TB, DType> item2;
  VecPlan<TC, DType> item3;
  explicit VecPlan(const expr::TernaryMapExp<OP, TA, TB, TC, DType, etype>& e)
      : item1(e.item1_), item2(e.item2_), item3(e.item3_) {}
  __device__ void Load(index_t i, Vec16<DType>* v) const {
    Vec16<DType> b, c;
    item1.Load(i, v);
    item2.Load(i, &b);
    item3.Load(i, &c);
#pragma unroll
    for (int k = 0; k < kVecLanes<DType>; ++k) {
      v->lane[k] = OP::Map(v->lane[k], b.lane[k], c.lane[k]);
    }
  }
};

}  // namespace cuda
}  // namespace mshadow

#endif  // MSHADOW_CUDA_FLAT_EVAL_CUH_
