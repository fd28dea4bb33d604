// ops/arithmetic_functors.h: the binary operations (the four arithmetic ones, maximum,
// minimum, power, hypot, mod, comparisons, logical) and their partial derivatives, shared by the
// elementwise (elemwise_add, _maximum), scalar (_plus_scalar, _maximum_scalar) and
// broadcasting (broadcast_add, broadcast_maximum) families, on every device.
//
// Each operation names its forward functor (mshadow's, so that the CPU engine vectorizes it)
// and the derivatives d(a op b)/da and d(a op b)/db as functors of (a, b). kGradReadsOperands
// says whether the derivatives depend on a and b (a backward operator then needs the inputs).
#ifndef OPS_ARITHMETIC_FUNCTORS_H_
#define OPS_ARITHMETIC_FUNCTORS_H_

#include <cmath>
#include <type_traits>

#include "mshadow/operators.h"
#include "mshadow/packet-inl.h"
#include "ops/registration_util.h"

namespace ops {
namespace arith {

// A constant derivative, as a functor of (a, b).
template <int kValue>
struct constant {
  template <typename DType>
  MSHADOW_XINLINE static DType Map(DType, DType) { return DType(kValue); }
};

struct add {
  using forward = mshadow::op::plus;
  using lhs_grad = constant<1>;
  using rhs_grad = constant<1>;
  static constexpr bool kGradReadsOperands = false;
};

struct sub {
  using forward = mshadow::op::minus;
  using lhs_grad = constant<1>;
  using rhs_grad = constant<-1>;
  static constexpr bool kGradReadsOperands = false;
};

struct mul {
  using forward = mshadow::op::mul;
  struct lhs_grad {
    template <typename DType>
    MSHADOW_XINLINE static DType Map(DType, DType b) { return b; }
  };
  struct rhs_grad {
    template <typename DType>
    MSHADOW_XINLINE static DType Map(DType a, DType) { return a; }
  };
  static constexpr bool kGradReadsOperands = true;
};

struct div {
  using forward = mshadow::op::div;
  struct lhs_grad {
    template <typename DType>
    MSHADOW_XINLINE static DType Map(DType, DType b) { return DType(1) / b; }
  };
  struct rhs_grad {
    template <typename DType>
    MSHADOW_XINLINE static DType Map(DType a, DType b) { return -a / (b * b); }
  };
  static constexpr bool kGradReadsOperands = true;
};

// Maximum and minimum: the gradient goes to lhs on ties and to neither operand where one is
// NaN, as in MXNet.
struct maximum {
  using forward = mshadow::op::maximum;
  struct lhs_grad {
    template <typename DType>
    MSHADOW_XINLINE static DType Map(DType a, DType b) { return a >= b ? DType(1) : DType(0); }
  };
  struct rhs_grad {
    template <typename DType>
    MSHADOW_XINLINE static DType Map(DType a, DType b) {
      return a < b ? DType(1) : DType(0);
    }
  };
  static constexpr bool kGradReadsOperands = true;
};

struct minimum {
  using forward = mshadow::op::minimum;
  struct lhs_grad {
    template <typename DType>
    MSHADOW_XINLINE static DType Map(DType a, DType b) { return a <= b ? DType(1) : DType(0); }
  };
  struct rhs_grad {
    template <typename DType>
    MSHADOW_XINLINE static DType Map(DType a, DType b) {
      return b < a ? DType(1) : DType(0);
    }
  };
  static constexpr bool kGradReadsOperands = true;
};

struct power {
  using forward = mshadow::op::power;
  struct lhs_grad {  // b * a^(b-1)
    template <typename DType>
    MSHADOW_XINLINE static DType Map(DType a, DType b) { return b * std::pow(a, b - DType(1)); }
  };
  struct rhs_grad {  // a^b * log(a)
    template <typename DType>
    MSHADOW_XINLINE static DType Map(DType a, DType b) { return std::pow(a, b) * std::log(a); }
  };
  static constexpr bool kGradReadsOperands = true;
};

struct hypot {
  struct forward {
    template <typename DType>
    MSHADOW_XINLINE static DType Map(DType a, DType b) { return std::hypot(a, b); }
  };
  struct lhs_grad {
    template <typename DType>
    MSHADOW_XINLINE static DType Map(DType a, DType b) { return a / std::hypot(a, b); }
  };
  struct rhs_grad {
    template <typename DType>
    MSHADOW_XINLINE static DType Map(DType a, DType b) { return b / std::hypot(a, b); }
  };
  static constexpr bool kGradReadsOperands = true;
};

// The remainder with the divisor's sign (Python's %, MXNet's mod), computed in double as
// MXNet does; 0 where the divisor is 0. d/da = 1; d/db = -floor(a / b), in the operands' type.
struct mod {
  struct forward {
    template <typename DType>
    MSHADOW_XINLINE static DType Map(DType a, DType b) {
      const double x = static_cast<double>(a), y = static_cast<double>(b);
      if (y == 0) return DType(0);
      const double r = std::fmod(x, y);  // the dividend's sign
      return DType(r != 0 && (r < 0) != (y < 0) ? r + y : r);
    }
  };
  using lhs_grad = constant<1>;
  struct rhs_grad {
    template <typename DType>
    MSHADOW_XINLINE static DType Map(DType a, DType b) {
      return -std::floor(a / b);
    }
  };
  static constexpr bool kGradReadsOperands = true;
};

// A comparison or logical operation: 1 where `Test` holds, else 0, in the operands' type;
// zero gradients, as in MXNet.
template <typename Test>
struct predicate_forward {
  template <typename DType>
  MSHADOW_XINLINE static DType Map(DType a, DType b) {
    return Test::Holds(a, b) ? DType(1) : DType(0);
  }
};
template <typename Test>
struct predicate {
  using forward = predicate_forward<Test>;
  using lhs_grad = constant<0>;
  using rhs_grad = constant<0>;
  static constexpr bool kGradReadsOperands = false;
};

// Whether OP's gradients are zero whatever the output gradient: the predicates', whose
// backward operators write zeros, as MXNet's do (out_grad * 0 would be NaN where out_grad is
// not finite).
template <typename OP>
struct ZeroGradients : std::false_type {};
template <typename Test>
struct ZeroGradients<predicate<Test>> : std::true_type {};

// Declares the predicate operation `name`, true where `test` (of a and b) holds, and `select`,
// the same test on packets a and b: t where it holds, f elsewhere (NaN operands as in `test`).
#define OPS_PREDICATE(name, test, select)                                             \
  struct name##_test {                                                                \
    template <typename DType>                                                         \
    MSHADOW_XINLINE static bool Holds(DType a, DType b) {                             \
      return test;                                                                    \
    }                                                                                 \
    template <typename P>                                                             \
    MSHADOW_CINLINE static P Select(const P& a, const P& b, const P& t, const P& f) { \
      return select;                                                                  \
    }                                                                                 \
  };                                                                                  \
  using name = predicate<name##_test>

OPS_PREDICATE(equal, a == b, SelectEqual(a, b, t, f));
OPS_PREDICATE(not_equal, a != b, SelectEqual(a, b, f, t));
OPS_PREDICATE(greater, a > b, SelectLess(b, a, t, f));
OPS_PREDICATE(greater_equal, a >= b, SelectLessEqual(b, a, t, f));
OPS_PREDICATE(lesser, a < b, SelectLess(a, b, t, f));
OPS_PREDICATE(lesser_equal, a <= b, SelectLessEqual(a, b, t, f));
OPS_PREDICATE(logical_and, a != DType(0) && b != DType(0),
              SelectEqual(a, P::Fill(0), f, SelectEqual(b, P::Fill(0), f, t)));
OPS_PREDICATE(logical_or, a != DType(0) || b != DType(0),
              SelectEqual(a, P::Fill(0), SelectEqual(b, P::Fill(0), f, t), t));
OPS_PREDICATE(logical_xor, (a != DType(0)) != (b != DType(0)),
              SelectEqual(a, P::Fill(0), SelectEqual(b, P::Fill(0), f, t),
                          SelectEqual(b, P::Fill(0), t, f)));

#undef OPS_PREDICATE

// MXNet's smooth_l1 with sigma = b: 0.5 (sigma a)^2 where |a| < 1 / sigma^2, else |a| - 0.5 /
// sigma^2 (the scalar family's smooth_l1; sigma is its parameter).
struct smooth_l1 {
  struct forward {
    template <typename DType>
    MSHADOW_XINLINE static DType Map(DType a, DType b) {
      const DType s2 = b * b;
      const DType abs_a = a < DType(0) ? -a : a;
      return abs_a < DType(1) / s2 ? DType(0.5) * s2 * a * a : abs_a - DType(0.5) / s2;
    }
  };
  struct lhs_grad {
    template <typename DType>
    MSHADOW_XINLINE static DType Map(DType a, DType b) {
      const DType s2 = b * b;
      if (a > DType(1) / s2) return DType(1);
      if (a < DType(-1) / s2) return DType(-1);
      return s2 * a;
    }
  };
  using rhs_grad = constant<0>;  // sigma is a parameter
  static constexpr bool kGradReadsOperands = true;
};

// Calls fn(TypeTag<OP>(), name, description) for the operations beyond the four arithmetic
// ones; each family registers them under its own prefix and suffix (broadcast_maximum,
// _maximum, _maximum_scalar).
template <typename Fn>
void ForEachMathOperation(Fn&& fn) {
  fn(TypeTag<maximum>(), "maximum", "max(lhs, rhs)");
  fn(TypeTag<minimum>(), "minimum", "min(lhs, rhs)");
  fn(TypeTag<power>(), "power", "lhs ^ rhs");
  fn(TypeTag<hypot>(), "hypot", "sqrt(lhs^2 + rhs^2), without overflow");
  fn(TypeTag<mod>(), "mod", "lhs modulo rhs, with rhs's sign (0 where rhs is 0)");
  fn(TypeTag<equal>(), "equal", "1 where lhs == rhs, else 0");
  fn(TypeTag<not_equal>(), "not_equal", "1 where lhs != rhs, else 0");
  fn(TypeTag<greater>(), "greater", "1 where lhs > rhs, else 0");
  fn(TypeTag<greater_equal>(), "greater_equal", "1 where lhs >= rhs, else 0");
  fn(TypeTag<lesser>(), "lesser", "1 where lhs < rhs, else 0");
  fn(TypeTag<lesser_equal>(), "lesser_equal", "1 where lhs <= rhs, else 0");
  fn(TypeTag<logical_and>(), "logical_and", "1 where lhs and rhs are both nonzero, else 0");
  fn(TypeTag<logical_or>(), "logical_or", "1 where lhs or rhs is nonzero, else 0");
  fn(TypeTag<logical_xor>(), "logical_xor", "1 where exactly one of lhs and rhs is nonzero");
}

}  // namespace arith
}  // namespace ops

// Packet forms, so that expressions of these functors run on the engine's vector path.
namespace mshadow {
namespace packet {

// The derivatives, for the backward operators' `og * F<lhs_grad>(lhs, rhs)`. mul's and div's:
// the scalar formulas, in the same order (the same results).
template <typename DType, PacketArch Arch>
struct PacketOp<ops::arith::mul::lhs_grad, DType, Arch> {
  static constexpr bool kEnabled = true;
  using P = Packet<DType, Arch>;
  MSHADOW_CINLINE static P Map(const P&, const P& b) { return b; }
};
template <typename DType, PacketArch Arch>
struct PacketOp<ops::arith::mul::rhs_grad, DType, Arch> {
  static constexpr bool kEnabled = true;
  using P = Packet<DType, Arch>;
  MSHADOW_CINLINE static P Map(const P& a, const P&) { return a; }
};
template <typename DType, PacketArch Arch>
struct PacketOp<ops::arith::div::lhs_grad, DType, Arch> {
  static constexpr bool kEnabled = true;
  using P = Packet<DType, Arch>;
  MSHADOW_CINLINE static P Map(const P&, const P& b) { return P::Fill(DType(1)) / b; }
};
MSHADOW_DEFINE_PACKET_BINARY(ops::arith::div::rhs_grad, Negate(a) / (b * b))
// power's: the same formulas on the packet Pow and Log that power's forward and log use
// (SLEEF's on the SIMD arches: within 1 ULP, std::pow's and std::log's results at 0, inf,
// nan and negative bases).
MSHADOW_DEFINE_PACKET_BINARY(ops::arith::power::lhs_grad, b* Pow(a, b - P::Fill(DType(1))))
MSHADOW_DEFINE_PACKET_BINARY(ops::arith::power::rhs_grad, Pow(a, b) * Log(a))

// maximum's and minimum's: the scalar comparisons (a >= b as b <= a), ties and NaN alike.
MSHADOW_DEFINE_PACKET_BINARY(ops::arith::maximum::lhs_grad,
                             SelectLessEqual(b, a, P::Fill(DType(1)), P::Fill(DType(0))))
MSHADOW_DEFINE_PACKET_BINARY(ops::arith::maximum::rhs_grad,
                             SelectLess(a, b, P::Fill(DType(1)), P::Fill(DType(0))))
MSHADOW_DEFINE_PACKET_BINARY(ops::arith::minimum::lhs_grad,
                             SelectLessEqual(a, b, P::Fill(DType(1)), P::Fill(DType(0))))
MSHADOW_DEFINE_PACKET_BINARY(ops::arith::minimum::rhs_grad,
                             SelectLess(b, a, P::Fill(DType(1)), P::Fill(DType(0))))
// hypot's: SLEEF's 0.5-ULP hypot on the SIMD arches, std::hypot on kPlain.
MSHADOW_DEFINE_PACKET_BINARY(ops::arith::hypot::forward, Hypot(a, b))
MSHADOW_DEFINE_PACKET_BINARY(ops::arith::hypot::lhs_grad, a / Hypot(a, b))
MSHADOW_DEFINE_PACKET_BINARY(ops::arith::hypot::rhs_grad, b / Hypot(a, b))
// The comparisons and logical operations: their tests on packets.
template <typename Test, typename DType, PacketArch Arch>
struct PacketOp<ops::arith::predicate_forward<Test>, DType, Arch> {
  static constexpr bool kEnabled = true;
  using P = Packet<DType, Arch>;
  MSHADOW_CINLINE static P Map(const P& a, const P& b) {
    return Test::Select(a, b, P::Fill(DType(1)), P::Fill(DType(0)));
  }
};

// smooth_l1: the same comparisons, as selects (NaN takes the last branch as the scalar form
// does). a: the data, b: sigma; 1 / sigma^2 - |a| > 0 where |a| < 1 / sigma^2.
MSHADOW_DEFINE_PACKET_BINARY(ops::arith::smooth_l1::forward,
                             SelectPositive(P::Fill(DType(1)) / (b * b) - Abs(a),
                                            P::Fill(DType(0.5)) * (b * b) * a * a,
                                            Abs(a) - P::Fill(DType(0.5)) / (b * b)))
MSHADOW_DEFINE_PACKET_BINARY(ops::arith::smooth_l1::lhs_grad,
                             SelectPositive(a - P::Fill(DType(1)) / (b * b), P::Fill(DType(1)),
                                            SelectPositive(P::Fill(DType(-1)) / (b * b) - a,
                                                           P::Fill(DType(-1)), (b * b) * a)))

}  // namespace packet
}  // namespace mshadow

#endif  // OPS_ARITHMETIC_FUNCTORS_H_
