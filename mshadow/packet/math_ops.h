// mshadow/packet/math_ops.h: the packet forms of mshadow::op's math functions, written once
// in terms of the primitives every arch header provides (Exp, Expm1, Log, Log1p, Log2, Log10,
// Erf, Sin, Cos, Atan, Cbrt, Tanh, Pow, Hypot, Sqrt, Abs, Negate, SelectNonNegative,
// SelectPositive, SelectLess, SelectLessEqual, SelectEqual, Max, Min) and float_math.h's Sigmoid
// and SoftReLU. With them `F<op::exp>(x)`, `F<op::sigmoid>(x)`, ... run a packet at a time. The
// formulas match the scalar ones in mshadow/operators.h.
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

// The packet form of an elementwise operator OP, inside namespace mshadow::packet: its Map as
// `expression` of the packet x (unary) or a and b (binary), of type P = Packet<DType, Arch>.
// Operator authors give their own functors packet forms the same way, so that expressions
// using them take the engine's vector path:
//
//   namespace mshadow { namespace packet {
//   MSHADOW_DEFINE_PACKET_UNARY(my::relu_grad, SelectPositive(x, P::Fill(DType(1)),
//   P::Fill(DType(0)))) } }
#define MSHADOW_DEFINE_PACKET_UNARY(OP, expression)                 \
  template <typename DType, PacketArch Arch>                        \
  struct PacketOp<OP, DType, Arch> {                                \
    static constexpr bool kEnabled = true;                          \
    using P = Packet<DType, Arch>;                                  \
    MSHADOW_CINLINE static P Map(const P& x) { return expression; } \
  };
#define MSHADOW_DEFINE_PACKET_BINARY(OP, expression)                            \
  template <typename DType, PacketArch Arch>                                    \
  struct PacketOp<OP, DType, Arch> {                                            \
    static constexpr bool kEnabled = true;                                      \
    using P = Packet<DType, Arch>;                                              \
    MSHADOW_CINLINE static P Map(const P& a, const P& b) { return expression; } \
  };

MSHADOW_DEFINE_PACKET_UNARY(op::exp, Exp(x))
MSHADOW_DEFINE_PACKET_UNARY(op::log, Log(x))
MSHADOW_DEFINE_PACKET_UNARY(op::tanh, Tanh(x))
MSHADOW_DEFINE_PACKET_UNARY(op::sigmoid, Sigmoid(x))
MSHADOW_DEFINE_PACKET_UNARY(op::sqrt, Sqrt(x))
MSHADOW_DEFINE_PACKET_UNARY(op::rsqrt, P::Fill(DType(1)) / Sqrt(x))
MSHADOW_DEFINE_PACKET_UNARY(op::abs, Abs(x))
MSHADOW_DEFINE_PACKET_UNARY(op::negation, Negate(x))
MSHADOW_DEFINE_PACKET_UNARY(op::square, x* x)
MSHADOW_DEFINE_PACKET_UNARY(op::relu, Max(x, P::Fill(DType(0))))
MSHADOW_DEFINE_PACKET_UNARY(op::softrelu, SoftReLU(x))

MSHADOW_DEFINE_PACKET_BINARY(op::power, Pow(a, b))
MSHADOW_DEFINE_PACKET_BINARY(op::maximum, Max(a, b))
MSHADOW_DEFINE_PACKET_BINARY(op::minimum, Min(a, b))

}  // namespace packet
}  // namespace mshadow

#endif  // MSHADOW_PACKET_MATH_OPS_H_
