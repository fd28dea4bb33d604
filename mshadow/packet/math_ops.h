// mshadow/packet/math_ops.h: the packet forms of mshadow::op's math functions, written once
// in terms of the primitives every arch header provides (Exp, Expm1, Log, Log1p, Tanh, Pow,
// Sqrt, Abs, Negate, SelectNonNegative, SelectPositive, Max, Min) and float_math.h's Sigmoid. With
// them `F<op::exp>(x)`, `F<op::sigmoid>(x)`, ... run a packet at a time. The formulas match the
// scalar ones in mshadow/operators.h.
#ifndef MSHADOW_PACKET_MATH_OPS_H_
#define MSHADOW_PACKET_MATH_OPS_H_

#include "mshadow/operators.h"
#include "mshadow/packet/arch.h"
#include "mshadow/packet/avx2.h"
#include "mshadow/packet/avx512.h"
#include "mshadow/packet/float_math.h"
#include "mshadow/packet/plain.h"
#include "mshadow/packet/sse2.h"

namespace mshadow {
namespace packet {

template <typename OP, typename DType, PacketArch Arch>
struct PacketOp;

#define MSHADOW_PACKET_UNARY_MATH(OP, expression)                                     \
  template <typename DType, PacketArch Arch>                                          \
  struct PacketOp<OP, DType, Arch> {                                                  \
    static constexpr bool kEnabled = true;                                            \
    using P = Packet<DType, Arch>;                                                    \
    MSHADOW_CINLINE static P Map(const P& x) { return expression; }                   \
  };
MSHADOW_PACKET_UNARY_MATH(op::exp, Exp(x))
MSHADOW_PACKET_UNARY_MATH(op::log, Log(x))
MSHADOW_PACKET_UNARY_MATH(op::tanh, Tanh(x))
MSHADOW_PACKET_UNARY_MATH(op::sigmoid, Sigmoid(x))
MSHADOW_PACKET_UNARY_MATH(op::sqrt, Sqrt(x))
MSHADOW_PACKET_UNARY_MATH(op::rsqrt, P::Fill(DType(1)) / Sqrt(x))
MSHADOW_PACKET_UNARY_MATH(op::abs, Abs(x))
MSHADOW_PACKET_UNARY_MATH(op::negation, Negate(x))
MSHADOW_PACKET_UNARY_MATH(op::square, x* x)
MSHADOW_PACKET_UNARY_MATH(op::relu, Max(x, P::Fill(DType(0))))
MSHADOW_PACKET_UNARY_MATH(op::softrelu,
                          Max(x, P::Fill(DType(0))) + Log1p(Exp(Negate(Abs(x)))))
#undef MSHADOW_PACKET_UNARY_MATH

#define MSHADOW_PACKET_BINARY_MATH(OP, expression)                                    \
  template <typename DType, PacketArch Arch>                                          \
  struct PacketOp<OP, DType, Arch> {                                                  \
    static constexpr bool kEnabled = true;                                            \
    using P = Packet<DType, Arch>;                                                    \
    MSHADOW_CINLINE static P Map(const P& a, const P& b) { return expression; }       \
  };
MSHADOW_PACKET_BINARY_MATH(op::power, Pow(a, b))
MSHADOW_PACKET_BINARY_MATH(op::maximum, Max(a, b))
MSHADOW_PACKET_BINARY_MATH(op::minimum, Min(a, b))
#undef MSHADOW_PACKET_BINARY_MATH

}  // namespace packet
}  // namespace mshadow

#endif  // MSHADOW_PACKET_MATH_OPS_H_
