// mshadow/expr/elementwise.h: unary, binary and ternary elementwise expressions, `F<OP>`, and
// the arithmetic operators that build them.
//
//   A = B * 2.0f + C;                      // BinaryMapExp<plus, BinaryMapExp<mul, ...>, ...>
//   A = F<op::maximum>(B, scalar(0.0f));   // any functor with a static Map
//   A = F<clip3>(B, lo, hi);               // ternary user operator
//
// The whole tree is evaluated in one loop over the destination: no temporaries.
#ifndef MSHADOW_EXPR_ELEMENTWISE_H_
#define MSHADOW_EXPR_ELEMENTWISE_H_

#include <type_traits>

#include "mshadow/expr/exp_base.h"
#include "mshadow/expr/scalar.h"

namespace mshadow {
namespace expr {

// Combining a complex expression (dot) with others is not possible: it needs its own engine.
template <int etype>
constexpr void CheckNotComplex() {
  static_assert(etype != type::kComplex,
                "mshadow: dot() cannot be part of a larger expression; assign it to a tensor "
                "first (the only extra allowed is a scale: dot(a, b) * s)");
}

template <typename OP, typename TA, typename DType, int etype>
struct UnaryMapExp : public Exp<UnaryMapExp<OP, TA, DType, etype>, DType, etype> {
  static constexpr bool kStoredByValue = true;
  typename ExpOperand<TA>::type src_;
  explicit UnaryMapExp(const TA& src) : src_(src) {}
};

template <typename OP, typename TA, typename TB, typename DType, int etype>
struct BinaryMapExp : public Exp<BinaryMapExp<OP, TA, TB, DType, etype>, DType, etype> {
  static constexpr bool kStoredByValue = true;
  typename ExpOperand<TA>::type lhs_;
  typename ExpOperand<TB>::type rhs_;
  BinaryMapExp(const TA& lhs, const TB& rhs) : lhs_(lhs), rhs_(rhs) {}
};

template <typename OP, typename TA, typename TB, typename TC, typename DType, int etype>
struct TernaryMapExp : public Exp<TernaryMapExp<OP, TA, TB, TC, DType, etype>, DType, etype> {
  static constexpr bool kStoredByValue = true;
  typename ExpOperand<TA>::type item1_;
  typename ExpOperand<TB>::type item2_;
  typename ExpOperand<TC>::type item3_;
  TernaryMapExp(const TA& item1, const TB& item2, const TC& item3)
      : item1_(item1), item2_(item2), item3_(item3) {}
};

// MakeExp builds the map expression; F<OP> is its public spelling.
template <typename OP, typename TA, typename DType, int ta>
inline UnaryMapExp<OP, TA, DType, (ta | type::kMapper)> MakeExp(const Exp<TA, DType, ta>& src) {
  CheckNotComplex<ta>();
  return UnaryMapExp<OP, TA, DType, (ta | type::kMapper)>(src.self());
}

template <typename OP, typename TA, typename TB, typename DType, int ta, int tb>
inline BinaryMapExp<OP, TA, TB, DType, (ta | tb | type::kMapper)> MakeExp(
    const Exp<TA, DType, ta>& lhs, const Exp<TB, DType, tb>& rhs) {
  CheckNotComplex<ta>();
  CheckNotComplex<tb>();
  return BinaryMapExp<OP, TA, TB, DType, (ta | tb | type::kMapper)>(lhs.self(), rhs.self());
}

template <typename OP, typename TA, typename TB, typename TC, typename DType, int ta, int tb,
          int tc>
inline TernaryMapExp<OP, TA, TB, TC, DType, (ta | tb | tc | type::kMapper)> MakeExp(
    const Exp<TA, DType, ta>& item1, const Exp<TB, DType, tb>& item2,
    const Exp<TC, DType, tc>& item3) {
  CheckNotComplex<ta>();
  CheckNotComplex<tb>();
  CheckNotComplex<tc>();
  return TernaryMapExp<OP, TA, TB, TC, DType, (ta | tb | tc | type::kMapper)>(
      item1.self(), item2.self(), item3.self());
}

// `F<OP>(a)`, `F<OP>(a, b)`, `F<OP>(a, b, c)`: apply a user functor elementwise.
template <typename OP, typename TA, typename DType, int ta>
inline UnaryMapExp<OP, TA, DType, (ta | type::kMapper)> F(const Exp<TA, DType, ta>& src) {
  return MakeExp<OP>(src);
}

template <typename OP, typename TA, typename TB, typename DType, int ta, int tb>
inline BinaryMapExp<OP, TA, TB, DType, (ta | tb | type::kMapper)> F(
    const Exp<TA, DType, ta>& lhs, const Exp<TB, DType, tb>& rhs) {
  return MakeExp<OP>(lhs, rhs);
}

template <typename OP, typename TA, typename TB, typename TC, typename DType, int ta, int tb,
          int tc>
inline TernaryMapExp<OP, TA, TB, TC, DType, (ta | tb | tc | type::kMapper)> F(
    const Exp<TA, DType, ta>& item1, const Exp<TB, DType, tb>& item2,
    const Exp<TC, DType, tc>& item3) {
  return MakeExp<OP>(item1, item2, item3);
}

// Plain numbers as operands: `F<op::maximum>(A, 0.0f)`, `B * 2`. The number converts to the
// expression's element type (NonDeduced keeps it out of template argument deduction).
template <typename T>
struct NonDeduced {
  using type = T;
};

template <typename OP, typename TA, typename DType, int ta>
inline BinaryMapExp<OP, TA, ScalarExp<DType>, DType, (ta | type::kMapper)> F(
    const Exp<TA, DType, ta>& lhs, typename NonDeduced<DType>::type rhs) {
  return MakeExp<OP>(lhs, scalar<DType>(rhs));
}

template <typename OP, typename TB, typename DType, int tb>
inline BinaryMapExp<OP, ScalarExp<DType>, TB, DType, (tb | type::kMapper)> F(
    typename NonDeduced<DType>::type lhs, const Exp<TB, DType, tb>& rhs) {
  return MakeExp<OP>(scalar<DType>(lhs), rhs);
}

// Arithmetic operators between expressions, and with a number on either side.
#define MSHADOW_DEFINE_ARITHMETIC_OPERATOR(symbol, OP)                                       \
  template <typename TA, typename TB, typename DType, int ta, int tb>                       \
  inline BinaryMapExp<OP, TA, TB, DType, (ta | tb | type::kMapper)> operator symbol(        \
      const Exp<TA, DType, ta>& lhs, const Exp<TB, DType, tb>& rhs) {                       \
    return MakeExp<OP>(lhs, rhs);                                                           \
  }                                                                                         \
  template <typename TA, typename DType, int ta>                                            \
  inline BinaryMapExp<OP, TA, ScalarExp<DType>, DType, (ta | type::kMapper)> operator symbol( \
      const Exp<TA, DType, ta>& lhs, typename NonDeduced<DType>::type rhs) {                \
    return MakeExp<OP>(lhs, scalar<DType>(rhs));                                            \
  }                                                                                         \
  template <typename TB, typename DType, int tb>                                            \
  inline BinaryMapExp<OP, ScalarExp<DType>, TB, DType, (tb | type::kMapper)> operator symbol( \
      typename NonDeduced<DType>::type lhs, const Exp<TB, DType, tb>& rhs) {                \
    return MakeExp<OP>(scalar<DType>(lhs), rhs);                                            \
  }
MSHADOW_DEFINE_ARITHMETIC_OPERATOR(+, op::plus)
MSHADOW_DEFINE_ARITHMETIC_OPERATOR(-, op::minus)
MSHADOW_DEFINE_ARITHMETIC_OPERATOR(*, op::mul)
MSHADOW_DEFINE_ARITHMETIC_OPERATOR(/, op::div)
#undef MSHADOW_DEFINE_ARITHMETIC_OPERATOR

// Plans: evaluate the operands' plans at (y, x) and apply OP::Map.
template <typename OP, typename TA, typename DType, int etype>
class Plan<UnaryMapExp<OP, TA, DType, etype>, DType> {
 public:
  explicit Plan(const Plan<TA, DType>& src) : src_(src) {}
  MSHADOW_XINLINE DType Eval(index_t y, index_t x) const { return OP::Map(src_.Eval(y, x)); }

 private:
  Plan<TA, DType> src_;
};

template <typename OP, typename TA, typename TB, typename DType, int etype>
class Plan<BinaryMapExp<OP, TA, TB, DType, etype>, DType> {
 public:
  Plan(const Plan<TA, DType>& lhs, const Plan<TB, DType>& rhs) : lhs_(lhs), rhs_(rhs) {}
  MSHADOW_XINLINE DType Eval(index_t y, index_t x) const {
    return OP::Map(lhs_.Eval(y, x), rhs_.Eval(y, x));
  }

 private:
  Plan<TA, DType> lhs_;
  Plan<TB, DType> rhs_;
};

template <typename OP, typename TA, typename TB, typename TC, typename DType, int etype>
class Plan<TernaryMapExp<OP, TA, TB, TC, DType, etype>, DType> {
 public:
  Plan(const Plan<TA, DType>& item1, const Plan<TB, DType>& item2, const Plan<TC, DType>& item3)
      : item1_(item1), item2_(item2), item3_(item3) {}
  MSHADOW_XINLINE DType Eval(index_t y, index_t x) const {
    return OP::Map(item1_.Eval(y, x), item2_.Eval(y, x), item3_.Eval(y, x));
  }

 private:
  Plan<TA, DType> item1_;
  Plan<TB, DType> item2_;
  Plan<TC, DType> item3_;
};

template <typename OP, typename TA, typename DType, int etype>
inline Plan<UnaryMapExp<OP, TA, DType, etype>, DType> MakePlan(
    const UnaryMapExp<OP, TA, DType, etype>& e) {
  return Plan<UnaryMapExp<OP, TA, DType, etype>, DType>(MakePlan(e.src_));
}

template <typename OP, typename TA, typename TB, typename DType, int etype>
inline Plan<BinaryMapExp<OP, TA, TB, DType, etype>, DType> MakePlan(
    const BinaryMapExp<OP, TA, TB, DType, etype>& e) {
  return Plan<BinaryMapExp<OP, TA, TB, DType, etype>, DType>(MakePlan(e.lhs_), MakePlan(e.rhs_));
}

template <typename OP, typename TA, typename TB, typename TC, typename DType, int etype>
inline Plan<TernaryMapExp<OP, TA, TB, TC, DType, etype>, DType> MakePlan(
    const TernaryMapExp<OP, TA, TB, TC, DType, etype>& e) {
  return Plan<TernaryMapExp<OP, TA, TB, TC, DType, etype>, DType>(
      MakePlan(e.item1_), MakePlan(e.item2_), MakePlan(e.item3_));
}

// Rank of a combination: a scalar (rank 0) takes the other operand's rank; different ranks
// (or an operand that already failed) give -1, which TypeCheck rejects at compile time.
constexpr int CombinedDim(int a, int b) {
  return (a < 0 || b < 0) ? -1 : a == 0 ? b : (b == 0 || a == b) ? a : -1;
}

template <typename OP, typename TA, typename DType, int etype>
struct ExpInfo<UnaryMapExp<OP, TA, DType, etype>> {
  static constexpr int kDim = ExpInfo<TA>::kDim;
  static constexpr int kDevMask = ExpInfo<TA>::kDevMask;
};

template <typename OP, typename TA, typename TB, typename DType, int etype>
struct ExpInfo<BinaryMapExp<OP, TA, TB, DType, etype>> {
  static constexpr int kDim = CombinedDim(ExpInfo<TA>::kDim, ExpInfo<TB>::kDim);
  static constexpr int kDevMask = ExpInfo<TA>::kDevMask & ExpInfo<TB>::kDevMask;
};

template <typename OP, typename TA, typename TB, typename TC, typename DType, int etype>
struct ExpInfo<TernaryMapExp<OP, TA, TB, TC, DType, etype>> {
  static constexpr int kDim =
      CombinedDim(CombinedDim(ExpInfo<TA>::kDim, ExpInfo<TB>::kDim), ExpInfo<TC>::kDim);
  static constexpr int kDevMask =
      ExpInfo<TA>::kDevMask & ExpInfo<TB>::kDevMask & ExpInfo<TC>::kDevMask;
};

// Shape of a combination: the operands' common shape; scalars do not take part.
template <int dim, typename TA, typename TB>
inline Shape<dim> CommonShape(const TA& a, const TB& b, const char* what) {
  if (ExpInfo<TA>::kDim == 0) return ShapeCheck<dim, TB>::Check(b);
  Shape<dim> shape_a = ShapeCheck<dim, TA>::Check(a);
  if (ExpInfo<TB>::kDim == 0) return shape_a;
  Shape<dim> shape_b = ShapeCheck<dim, TB>::Check(b);
  CHECK_EQ(shape_a, shape_b) << what << ": shapes of operands are not the same";
  return shape_a;
}

template <int dim, typename OP, typename TA, typename DType, int etype>
struct ShapeCheck<dim, UnaryMapExp<OP, TA, DType, etype>> {
  static Shape<dim> Check(const UnaryMapExp<OP, TA, DType, etype>& t) {
    return ShapeCheck<dim, TA>::Check(t.src_);
  }
};

template <int dim, typename OP, typename TA, typename TB, typename DType, int etype>
struct ShapeCheck<dim, BinaryMapExp<OP, TA, TB, DType, etype>> {
  static Shape<dim> Check(const BinaryMapExp<OP, TA, TB, DType, etype>& t) {
    return CommonShape<dim>(t.lhs_, t.rhs_, "BinaryMapExp");
  }
};

template <int dim, typename OP, typename TA, typename TB, typename TC, typename DType, int etype>
struct ShapeCheck<dim, TernaryMapExp<OP, TA, TB, TC, DType, etype>> {
  static Shape<dim> Check(const TernaryMapExp<OP, TA, TB, TC, DType, etype>& t) {
    if (ExpInfo<TA>::kDim == 0) return CommonShape<dim>(t.item2_, t.item3_, "TernaryMapExp");
    if (ExpInfo<TB>::kDim == 0) return CommonShape<dim>(t.item1_, t.item3_, "TernaryMapExp");
    CommonShape<dim>(t.item2_, t.item3_, "TernaryMapExp");
    return CommonShape<dim>(t.item1_, t.item2_, "TernaryMapExp");
  }
};

}  // namespace expr
}  // namespace mshadow

#endif  // MSHADOW_EXPR_ELEMENTWISE_H_
