// mshadow/operators.h: the elementwise vocabulary of expressions.
//
// - `op::*`: functors with a static `Map` (what `F<op::plus>(a, b)` and `a + b` compute);
// - `sv::*`: savers, how a result is stored into its destination (`=`, `+=`, ...);
// - `red::*`: reducers used by sum_rows, sumall_except_dim and the reduction kernels.
//
// A user-defined operator is any struct with a static `Map` of the right arity:
//   struct square_plus { template <typename T> MSHADOW_XINLINE static T Map(T a, T b)
//                        { return a * a + b; } };
//   C = F<square_plus>(A, B);
#ifndef MSHADOW_OPERATORS_H_
#define MSHADOW_OPERATORS_H_

#include <cmath>
#include <limits>

#include "mshadow/half.h"
#include "mshadow/macros.h"

namespace mshadow {
namespace op {

struct mul {
  template <typename DType>
  MSHADOW_XINLINE static DType Map(DType a, DType b) { return a * b; }
};
struct plus {
  template <typename DType>
  MSHADOW_XINLINE static DType Map(DType a, DType b) { return a + b; }
};
struct minus {
  template <typename DType>
  MSHADOW_XINLINE static DType Map(DType a, DType b) { return a - b; }
};
struct div {
  template <typename DType>
  MSHADOW_XINLINE static DType Map(DType a, DType b) { return a / b; }
};
// Returns its right operand: the operator behind plain assignment.
struct right {
  template <typename DType>
  MSHADOW_XINLINE static DType Map(DType /*a*/, DType b) { return b; }
};
struct identity {
  template <typename DType>
  MSHADOW_XINLINE static DType Map(DType a) { return a; }
};

// Math functions, elementwise: F<op::exp>(x), F<op::maximum>(a, b), ... Each follows the C
// library (std::exp, ...) for special values: inf, nan, overflow, underflow, denormals.
struct exp {
  template <typename DType>
  MSHADOW_XINLINE static DType Map(DType a) { return DType(std::exp(a)); }
};
struct log {
  template <typename DType>
  MSHADOW_XINLINE static DType Map(DType a) { return DType(std::log(a)); }
};
struct tanh {
  template <typename DType>
  MSHADOW_XINLINE static DType Map(DType a) { return DType(std::tanh(a)); }
};
struct sqrt {
  template <typename DType>
  MSHADOW_XINLINE static DType Map(DType a) { return DType(std::sqrt(a)); }
};
struct rsqrt {
  template <typename DType>
  MSHADOW_XINLINE static DType Map(DType a) { return DType(DType(1) / std::sqrt(a)); }
};
struct abs {
  template <typename DType>
  MSHADOW_XINLINE static DType Map(DType a) { return DType(std::fabs(a)); }
};
struct negation {
  template <typename DType>
  MSHADOW_XINLINE static DType Map(DType a) { return DType(-a); }
};
struct square {
  template <typename DType>
  MSHADOW_XINLINE static DType Map(DType a) { return DType(a * a); }
};
// 1 / (1 + e^-a), computed from t = e^-|a| so that it neither overflows nor loses the tiny
// values of large negative a: 1 / (1 + t) for a >= 0, t / (1 + t) otherwise.
struct sigmoid {
  template <typename DType>
  MSHADOW_XINLINE static DType Map(DType a) {
    const DType t = DType(std::exp(-std::fabs(a)));
    const DType s = DType(1) / (DType(1) + t);
    return a >= DType(0) ? s : t * s;
  }
};
// max(a, 0); NaN stays NaN.
struct relu {
  template <typename DType>
  MSHADOW_XINLINE static DType Map(DType a) { return a > DType(0) ? a : (a == a ? DType(0) : a); }
};
// log(1 + e^a), computed as max(a, 0) + log(1 + e^-|a|): no overflow, no lost precision.
struct softrelu {
  template <typename DType>
  MSHADOW_XINLINE static DType Map(DType a) {
    const DType positive = a != a ? a : (a > DType(0) ? a : DType(0));
    return positive + DType(std::log1p(std::exp(-std::fabs(a))));
  }
};
struct power {
  template <typename DType>
  MSHADOW_XINLINE static DType Map(DType a, DType b) { return DType(std::pow(a, b)); }
};
// The larger operand; NaN if either is NaN.
struct maximum {
  template <typename DType>
  MSHADOW_XINLINE static DType Map(DType a, DType b) {
    return a != a ? a : (b != b ? b : (a > b ? a : b));
  }
};
// The smaller operand; NaN if either is NaN.
struct minimum {
  template <typename DType>
  MSHADOW_XINLINE static DType Map(DType a, DType b) {
    return a != a ? a : (b != b ? b : (a < b ? a : b));
  }
};

}  // namespace op

// Savers: `Save(dst, src)` stores one element. `OPType` is the binary operator the saver
// applies (dst = OPType::Map(dst, src)); kAlphaBeta/kBetaVal express it as
// dst = kBetaVal * dst + kAlphaBeta * src for BLAS calls.
namespace sv {

struct saveto {
  template <typename DType>
  MSHADOW_XINLINE static void Save(DType& a, DType b) { a = b; }  // NOLINT(runtime/references)
  static constexpr float kAlphaBeta = 1.0f;
  static constexpr float kBetaVal = 0.0f;
  using OPType = op::right;
};
struct plusto {
  template <typename DType>
  MSHADOW_XINLINE static void Save(DType& a, DType b) { a += b; }  // NOLINT(runtime/references)
  static constexpr float kAlphaBeta = 1.0f;
  static constexpr float kBetaVal = 1.0f;
  using OPType = op::plus;
};
struct minusto {
  template <typename DType>
  MSHADOW_XINLINE static void Save(DType& a, DType b) { a -= b; }  // NOLINT(runtime/references)
  static constexpr float kAlphaBeta = -1.0f;
  static constexpr float kBetaVal = 1.0f;
  using OPType = op::minus;
};
struct multo {
  template <typename DType>
  MSHADOW_XINLINE static void Save(DType& a, DType b) { a *= b; }  // NOLINT(runtime/references)
  using OPType = op::mul;
};
struct divto {
  template <typename DType>
  MSHADOW_XINLINE static void Save(DType& a, DType b) { a /= b; }  // NOLINT(runtime/references)
  using OPType = op::div;
};

}  // namespace sv

namespace red {
namespace limits {

// Identity elements of max and min for each type; infinities where the type has them.
template <typename DType>
MSHADOW_XINLINE DType MinValue() {
  return std::numeric_limits<DType>::has_infinity ? -std::numeric_limits<DType>::infinity()
                                                  : std::numeric_limits<DType>::lowest();
}
template <typename DType>
MSHADOW_XINLINE DType MaxValue() {
  return std::numeric_limits<DType>::has_infinity ? std::numeric_limits<DType>::infinity()
                                                  : std::numeric_limits<DType>::max();
}
template <>
MSHADOW_XINLINE half::half_t MinValue<half::half_t>() { return half::half_t::Binary(0xfc00); }
template <>
MSHADOW_XINLINE half::half_t MaxValue<half::half_t>() { return half::half_t::Binary(0x7c00); }

}  // namespace limits

namespace detail {
template <typename DType>
MSHADOW_XINLINE bool IsNan(DType v) {
  return v != v;  // integers are never NaN; half_t compares through float
}
}  // namespace detail

// Reducers: `SetInitValue(init)` gives the identity, `Reduce(dst, src)` folds one value in,
// `Merge(dst, src)` combines two partial results, `PartialGrad(result, src)` is the
// derivative of the result with respect to one input (used by backward passes).
struct sum {
  template <typename DType>
  MSHADOW_XINLINE static void Reduce(DType& dst, DType src) { dst += src; }  // NOLINT
  template <typename DType>
  MSHADOW_XINLINE static void Merge(DType& dst, DType src) { dst += src; }  // NOLINT
  template <typename DType>
  MSHADOW_XINLINE static DType PartialGrad(DType /*redres*/, DType /*redsrc*/) { return DType(1); }
  template <typename DType>
  MSHADOW_XINLINE static void SetInitValue(DType& initv) { initv = DType(0); }  // NOLINT
};

// NaN propagates: the maximum of a set containing NaN is NaN (as NumPy does).
struct maximum {
  template <typename DType>
  MSHADOW_XINLINE static void Reduce(DType& dst, DType src) {  // NOLINT
    if (!detail::IsNan(dst) && !(dst >= src)) dst = src;
  }
  template <typename DType>
  MSHADOW_XINLINE static void Merge(DType& dst, DType src) { Reduce(dst, src); }  // NOLINT
  template <typename DType>
  MSHADOW_XINLINE static DType PartialGrad(DType redres, DType redsrc) {
    return redres == redsrc ? DType(1) : DType(0);
  }
  template <typename DType>
  MSHADOW_XINLINE static void SetInitValue(DType& initv) {  // NOLINT
    initv = limits::MinValue<DType>();
  }
};

struct minimum {
  template <typename DType>
  MSHADOW_XINLINE static void Reduce(DType& dst, DType src) {  // NOLINT
    if (!detail::IsNan(dst) && !(dst <= src)) dst = src;
  }
  template <typename DType>
  MSHADOW_XINLINE static void Merge(DType& dst, DType src) { Reduce(dst, src); }  // NOLINT
  template <typename DType>
  MSHADOW_XINLINE static DType PartialGrad(DType redres, DType redsrc) {
    return redres == redsrc ? DType(1) : DType(0);
  }
  template <typename DType>
  MSHADOW_XINLINE static void SetInitValue(DType& initv) {  // NOLINT
    initv = limits::MaxValue<DType>();
  }
};

}  // namespace red
}  // namespace mshadow

#endif  // MSHADOW_OPERATORS_H_
