// mshadow/expr/type_check.h: the checks that an expression can be assigned to (or reduced
// into) a destination: device and rank at compile time, shapes at run time. Every device's
// evaluator (MapExp, MapReduceKeepLowest, ...) makes them the same way.
#ifndef MSHADOW_EXPR_TYPE_CHECK_H_
#define MSHADOW_EXPR_TYPE_CHECK_H_

#include "dmlc/logging.h"
#include "mshadow/expr/exp_base.h"

namespace mshadow {
namespace expr {

// Whether expression E can be evaluated into a `dim`-dimensional tensor on `Device`.
template <typename Device, int dim, typename DType, typename E>
struct TypeCheck {
  // Rank of the expression (0 for scalars, -1 if its operands disagree).
  static constexpr int kExpDim = ExpInfo<E>::kDim;
  // Every operand lives on Device.
  static constexpr bool kDevPass = (ExpInfo<E>::kDevMask & Device::kDevMask) != 0;
  // Elementwise assignment needs the same rank (or a scalar).
  static constexpr bool kMapPass = (kExpDim == 0 || kExpDim == dim) && kDevPass;
  // Reductions (sum_rows, sumall_except_dim) fold a higher-rank expression into a lower-rank
  // destination, so they need the expression's rank to exceed the destination's.
  static constexpr bool kRedPass = (kExpDim > dim) && kDevPass;
};

// Turns a failed TypeCheck into a readable compile error. mshadow made these functions
// missing on failure; here they exist and carry a static_assert with a plain message.
template <bool kPass>
struct TypeCheckPass {
  static void Error_All_Tensor_in_Exp_Must_Have_Same_Type() {
    static_assert(kPass,
                  "mshadow: every tensor in an expression must be on the destination's device "
                  "and have the destination's rank (scalars fit any rank)");
  }
  static void Error_TypeCheck_Not_Pass_For_Reduce_Exp() {
    static_assert(kPass,
                  "mshadow: a reduction needs an expression of higher rank than its destination, "
                  "on the destination's device");
  }
  static void Error_Expression_Does_Not_Meet_Dimension_Req() {
    static_assert(kPass, "mshadow: the expression does not have the rank this function needs");
  }
};

// dst SV= exp on Device: the compile-time checks, then the shapes (a dmlc::Error naming both
// when they differ; a scalar fits any shape). Returns the destination's shape.
template <typename Device, int dim, typename DType, typename R, typename E>
inline Shape<dim> CheckMapAssignment(const R& dst, const E& exp) {
  TypeCheckPass<TypeCheck<Device, dim, DType, E>::kMapPass>::
      Error_All_Tensor_in_Exp_Must_Have_Same_Type();
  const Shape<dim> dshape = ShapeCheck<dim, R>::Check(dst);
  if (ExpInfo<E>::kDim != 0) {
    const Shape<dim> eshape = ShapeCheck<dim, E>::Check(exp);
    CHECK_EQ(eshape, dshape) << "Assignment: the expression's shape differs from the target's";
  }
  return dshape;
}

// dst[x] SV= Reduce_y exp[y][x] on Device (MapReduceKeepLowest): the compile-time checks,
// then that exp's lowest dimension is dst's length. Returns exp's shape as (rows, width).
template <typename Device, typename DType, typename R, typename E>
inline Shape<2> CheckReduceKeepLowest(const R& dst, const E& exp) {
  TypeCheckPass<TypeCheck<Device, 1, DType, E>::kRedPass>::
      Error_TypeCheck_Not_Pass_For_Reduce_Exp();
  const Shape<2> eshape = ShapeCheck<ExpInfo<E>::kDim, E>::Check(exp).FlatTo2D();
  const Shape<1> dshape = ShapeCheck<1, R>::Check(dst);
  CHECK_EQ(eshape[1], dshape[0]) << "MapReduceKeepLowest: the expression's lowest dimension "
                                    "must equal the destination's length";
  return eshape;
}

// dst[c] SV= Reduce over all but dimension dimkeep of exp (MapReduceKeepHighDim): the
// compile-time checks, then that exp's dimension dimkeep is dst's length. Returns exp's shape.
template <typename Device, int dimkeep, typename DType, typename R, typename E>
inline Shape<ExpInfo<E>::kDim> CheckReduceKeepHighDim(const R& dst, const E& exp) {
  TypeCheckPass<TypeCheck<Device, dimkeep, DType, E>::kRedPass>::
      Error_TypeCheck_Not_Pass_For_Reduce_Exp();
  constexpr int kSrcDim = ExpInfo<E>::kDim;
  static_assert(0 <= dimkeep && dimkeep < kSrcDim - 1,
                "MapReduceKeepHighDim: dimkeep must be below the lowest dimension");
  const Shape<kSrcDim> eshape = ShapeCheck<kSrcDim, E>::Check(exp);
  const Shape<1> dshape = ShapeCheck<1, R>::Check(dst);
  CHECK_EQ(eshape[dimkeep], dshape[0]) << "MapReduceKeepHighDim: dimension " << dimkeep
                                       << " of the expression must equal the destination's length";
  return eshape;
}

}  // namespace expr
}  // namespace mshadow

#endif  // MSHADOW_EXPR_TYPE_CHECK_H_
