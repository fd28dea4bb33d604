// mshadow/expr/type_check.h: compile-time checks that an expression can be assigned to (or
// reduced into) a destination of a given device and rank.
#ifndef MSHADOW_EXPR_TYPE_CHECK_H_
#define MSHADOW_EXPR_TYPE_CHECK_H_

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

}  // namespace expr
}  // namespace mshadow

#endif  // MSHADOW_EXPR_TYPE_CHECK_H_
