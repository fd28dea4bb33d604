// mshadow/expr/exp_base.h: the roots of every expression: the type lattice, `Exp`, and the
// customization points each expression kind specializes (`Plan`, `ExpInfo`, `ShapeCheck`,
// `StreamInfo`).
//
// An expression is a lightweight object describing a computation; nothing runs until it is
// assigned to a tensor. Each kind of expression lives in its own header in this folder and
// provides, next to its type: a `Plan` (how to evaluate element (y, x) of its 2-D view), an
// `ExpInfo` (its rank and device mask, at compile time) and a `ShapeCheck` (its shape, at run
// time).
#ifndef MSHADOW_EXPR_EXP_BASE_H_
#define MSHADOW_EXPR_EXP_BASE_H_

#include <type_traits>

#include "mshadow/base.h"

namespace mshadow {

// Types of higher layers, named here so that plans can be written for them.
template <typename Device, int dim, typename DType>
struct Tensor;

namespace expr {

// The kinds of expression, ordered: combining two expressions yields the larger kind.
namespace type {
// Refers directly to data (a tensor); can be assigned to.
constexpr int kRValue = 0;
// Elementwise: the result has its operands' shape and element (y, x) depends only on
// element (y, x) of each operand.
constexpr int kMapper = 1;
// Any expression with a Plan (e.g. reshape, broadcast); can be chained with others.
constexpr int kChainer = 3;
// Needs its own evaluation engine and cannot be part of a larger expression (dot).
constexpr int kComplex = 7;
}  // namespace type

// Base of every expression (CRTP). `SubType` is the concrete expression, `DType` its element
// type, `exp_type` one of type::k*.
template <typename SubType, typename DType, int exp_type>
struct Exp {
  static constexpr int kExpType = exp_type;
  MSHADOW_XINLINE const SubType& self() const { return *static_cast<const SubType*>(this); }
  MSHADOW_XINLINE SubType* ptrself() { return static_cast<SubType*>(this); }
};

// Evaluates an expression element by element: `Eval(y, x)` is element x of row y of the
// expression viewed as 2-D (all leading dimensions folded into rows, see Shape::FlatTo2D).
// Each expression kind specializes it.
template <typename ExpType, typename DType>
class Plan;

// Compile-time facts about an expression: `kDim` (its rank; 0 for a scalar that fits any
// shape, -1 when operands disagree) and `kDevMask` (the devices all operands live on).
template <typename E>
struct ExpInfo {
  static constexpr int kDim = -1;
  static constexpr int kDevMask = 0;
};

// Run-time shape of an expression of rank `dim`; throws dmlc::Error when operands disagree.
template <int dim, typename E>
struct ShapeCheck;

// The stream an expression's data lives on, so that engines such as dot run on it (and its
// BLAS handle). Expressions that are not tensors have none.
template <typename Device, typename E>
struct StreamInfo {
  MSHADOW_XINLINE static Stream<Device>* Get(const E& /*t*/) { return nullptr; }
};

// How an expression node holds an operand. Tensors (and MakeTensorExp subtypes, which
// would be sliced by a copy) are held by reference; small expression nodes that mark
// themselves with `kStoredByValue` (scalars, maps, casts, transposes) are held by value.
// This keeps `A = B * 2.0f + C` safe: the scalar node created inside operator* outlives
// the call that made it.
template <typename T, typename = void>
struct ExpOperand {
  using type = const T&;
};
template <typename T>
struct ExpOperand<T, std::void_t<decltype(T::kStoredByValue)>> {
  using type = const T;
};

// Combined kind of two (or three) expressions: the larger one, but at least kMapper.
template <int a, int b>
struct CombinedType {
  static constexpr int kValue = (a | b | type::kMapper);
};

}  // namespace expr
}  // namespace mshadow

#endif  // MSHADOW_EXPR_EXP_BASE_H_
