// ops/math_functors.h: the elementwise math functions of MXNet's unary family beyond
// mshadow::op (logarithms and exponentials near zero, reciprocals, the error function and its
// inverse, gamma, trigonometric and hyperbolic functions, angle units, rounding) and their
// derivatives, on every device. As in grad_functors.h, a
// derivative's comment says what it reads: the input x or the output y, and those with a
// packet form (below) run on the engine's vector path.
#ifndef OPS_MATH_FUNCTORS_H_
#define OPS_MATH_FUNCTORS_H_

#include <cmath>

#include "mshadow/macros.h"
#include "mshadow/packet-inl.h"
#include "ops/special_functions.h"

namespace ops {
namespace fn {

// Declares a functor `name` whose Map(DType v) returns `expr` (in terms of v).
#define OPS_UNARY_FUNCTOR(name, expr)                     \
  struct name {                                           \
    template <typename DType>                             \
    MSHADOW_XINLINE static DType Map(DType v) { return expr; } \
  }

// ---- Forward functions.
OPS_UNARY_FUNCTOR(log1p, std::log1p(v));
OPS_UNARY_FUNCTOR(expm1, std::expm1(v));
OPS_UNARY_FUNCTOR(log2, std::log2(v));
OPS_UNARY_FUNCTOR(log10, std::log10(v));
OPS_UNARY_FUNCTOR(reciprocal, DType(1) / v);
OPS_UNARY_FUNCTOR(cbrt, std::cbrt(v));
OPS_UNARY_FUNCTOR(erf, std::erf(v));
OPS_UNARY_FUNCTOR(sin, std::sin(v));
OPS_UNARY_FUNCTOR(cos, std::cos(v));
OPS_UNARY_FUNCTOR(arctan, std::atan(v));
OPS_UNARY_FUNCTOR(tan, std::tan(v));
OPS_UNARY_FUNCTOR(arcsin, std::asin(v));
OPS_UNARY_FUNCTOR(arccos, std::acos(v));
OPS_UNARY_FUNCTOR(sinh, std::sinh(v));
OPS_UNARY_FUNCTOR(cosh, std::cosh(v));
OPS_UNARY_FUNCTOR(arcsinh, std::asinh(v));
OPS_UNARY_FUNCTOR(arccosh, std::acosh(v));
OPS_UNARY_FUNCTOR(arctanh, std::atanh(v));
OPS_UNARY_FUNCTOR(degrees, v* DType(57.295779513082320877));    // 180 / pi
OPS_UNARY_FUNCTOR(radians, v* DType(0.017453292519943295769));  // pi / 180
OPS_UNARY_FUNCTOR(rcbrt, DType(1) / std::cbrt(v));
OPS_UNARY_FUNCTOR(gamma, std::tgamma(v));
OPS_UNARY_FUNCTOR(gammaln, DType(special::LogGamma(v)));
OPS_UNARY_FUNCTOR(erfinv, DType(special::ErfInv(v)));
OPS_UNARY_FUNCTOR(logical_not, v == DType(0) ? DType(1) : DType(0));
OPS_UNARY_FUNCTOR(sign, v > DType(0) ? DType(1) : (v < DType(0) ? DType(-1) : DType(0)));
OPS_UNARY_FUNCTOR(floor, std::floor(v));
OPS_UNARY_FUNCTOR(ceil, std::ceil(v));
OPS_UNARY_FUNCTOR(round, std::round(v));  // halves away from zero, as MXNet's round
// The nearer integer, ties to the lower one, as MXNet's rint (NumPy's rint goes to even).
OPS_UNARY_FUNCTOR(rint, (v - std::floor(v)) <= (std::ceil(v) - v) ? std::floor(v) : std::ceil(v));
OPS_UNARY_FUNCTOR(trunc, std::trunc(v));  // towards zero (MXNet's trunc and fix)
template <int kValue>
struct constant {
  template <typename DType>
  MSHADOW_XINLINE static DType Map(DType) { return DType(kValue); }
};
using zero = constant<0>;
using one = constant<1>;

// ---- Derivatives.
OPS_UNARY_FUNCTOR(log1p_grad, DType(1) / (DType(1) + v));                 // from x
OPS_UNARY_FUNCTOR(expm1_grad, v + DType(1));                              // from y
OPS_UNARY_FUNCTOR(log2_grad, DType(1) / (v * DType(0.693147180559945309)));   // from x
OPS_UNARY_FUNCTOR(log10_grad, DType(1) / (v * DType(2.302585092994045684)));  // from x
OPS_UNARY_FUNCTOR(reciprocal_grad, DType(-1) / (v * v));                  // from x
OPS_UNARY_FUNCTOR(rsqrt_grad, DType(-0.5) / (v * std::sqrt(v)));          // from x
OPS_UNARY_FUNCTOR(cbrt_grad, DType(1) / (DType(3) * v * v));              // from y
OPS_UNARY_FUNCTOR(erf_grad, DType(1.128379167095512574) * std::exp(-v * v));  // 2/sqrt(pi), from x
OPS_UNARY_FUNCTOR(sin_grad, std::cos(v));                                 // from x
OPS_UNARY_FUNCTOR(cos_grad, -std::sin(v));                                // from x
OPS_UNARY_FUNCTOR(arctan_grad, DType(1) / (DType(1) + v * v));            // from x
OPS_UNARY_FUNCTOR(tan_grad, v* v + DType(1));                             // from y
OPS_UNARY_FUNCTOR(arcsin_grad, DType(1) / std::sqrt(DType(1) - v * v));   // from x
OPS_UNARY_FUNCTOR(arccos_grad, DType(-1) / std::sqrt(DType(1) - v * v));  // from x
OPS_UNARY_FUNCTOR(sinh_grad, std::cosh(v));                               // from x
OPS_UNARY_FUNCTOR(cosh_grad, std::sinh(v));                               // from x
OPS_UNARY_FUNCTOR(arcsinh_grad, DType(1) / std::sqrt(v * v + DType(1)));  // from x
OPS_UNARY_FUNCTOR(arccosh_grad, DType(1) / std::sqrt(v * v - DType(1)));  // from x
OPS_UNARY_FUNCTOR(arctanh_grad, DType(1) / (DType(1) - v * v));           // from x
OPS_UNARY_FUNCTOR(rcbrt_grad, DType(-1) / (DType(3) * std::cbrt(v) * v));    // from x
OPS_UNARY_FUNCTOR(gamma_grad, std::tgamma(v) * special::Narrowed<DType>(special::Digamma(v)));  // x
OPS_UNARY_FUNCTOR(gammaln_grad, special::Narrowed<DType>(special::Digamma(v)));  // from x
OPS_UNARY_FUNCTOR(erfinv_grad,
                  DType(0.886226925452758014) * std::exp(v * v));  // sqrt(pi)/2, from y
// sign's gradient from the output gradient: zero times it, as MXNet's (NaN where it is not
// finite; floor's and the other roundings' are zeros).
OPS_UNARY_FUNCTOR(sign_grad, DType(0) * v);

#undef OPS_UNARY_FUNCTOR

}  // namespace fn
}  // namespace ops

// The packet forms: the scalar formulas in the same order (the same results) where they are
// arithmetic; the functions on the packet primitives of the same names (within 2 ULP:
// mshadow/packet/float_math.h, SLEEF). SelectPositive is false for NaN, as `x > 0` is. The
// rounding functions stay one element at a time.
namespace mshadow {
namespace packet {

MSHADOW_DEFINE_PACKET_UNARY(ops::fn::log1p, Log1p(x))
MSHADOW_DEFINE_PACKET_UNARY(ops::fn::expm1, Expm1(x))
MSHADOW_DEFINE_PACKET_UNARY(ops::fn::erf, Erf(x))
MSHADOW_DEFINE_PACKET_UNARY(ops::fn::log2, Log2(x))
MSHADOW_DEFINE_PACKET_UNARY(ops::fn::log10, Log10(x))
MSHADOW_DEFINE_PACKET_UNARY(ops::fn::cbrt, Cbrt(x))
MSHADOW_DEFINE_PACKET_UNARY(ops::fn::sin, Sin(x))
MSHADOW_DEFINE_PACKET_UNARY(ops::fn::cos, Cos(x))
MSHADOW_DEFINE_PACKET_UNARY(ops::fn::arctan, Atan(x))
MSHADOW_DEFINE_PACKET_UNARY(ops::fn::reciprocal, P::Fill(DType(1)) / x)
MSHADOW_DEFINE_PACKET_UNARY(ops::fn::sign,
                            SelectPositive(x, P::Fill(DType(1)),
                                           SelectPositive(Negate(x), P::Fill(DType(-1)),
                                                          P::Fill(DType(0)))))
MSHADOW_DEFINE_PACKET_UNARY(ops::fn::log1p_grad, P::Fill(DType(1)) / (P::Fill(DType(1)) + x))
MSHADOW_DEFINE_PACKET_UNARY(ops::fn::expm1_grad, x + P::Fill(DType(1)))
MSHADOW_DEFINE_PACKET_UNARY(ops::fn::log2_grad,
                            P::Fill(DType(1)) / (x * P::Fill(DType(0.693147180559945309))))
MSHADOW_DEFINE_PACKET_UNARY(ops::fn::log10_grad,
                            P::Fill(DType(1)) / (x * P::Fill(DType(2.302585092994045684))))
MSHADOW_DEFINE_PACKET_UNARY(ops::fn::reciprocal_grad, P::Fill(DType(-1)) / (x * x))
MSHADOW_DEFINE_PACKET_UNARY(ops::fn::rsqrt_grad, P::Fill(DType(-0.5)) / (x * Sqrt(x)))
MSHADOW_DEFINE_PACKET_UNARY(ops::fn::cbrt_grad, P::Fill(DType(1)) / (P::Fill(DType(3)) * x * x))
MSHADOW_DEFINE_PACKET_UNARY(ops::fn::erf_grad,
                            P::Fill(DType(1.128379167095512574)) * Exp(Negate(x) * x))
MSHADOW_DEFINE_PACKET_UNARY(ops::fn::arctan_grad, P::Fill(DType(1)) / (P::Fill(DType(1)) + x * x))
MSHADOW_DEFINE_PACKET_UNARY(ops::fn::sign_grad, P::Fill(DType(0)) * x)
MSHADOW_DEFINE_PACKET_UNARY(ops::fn::sin_grad, Cos(x))
MSHADOW_DEFINE_PACKET_UNARY(ops::fn::cos_grad, Negate(Sin(x)))

}  // namespace packet
}  // namespace mshadow

#endif  // OPS_MATH_FUNCTORS_H_
