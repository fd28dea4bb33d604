// Accuracy of the packet math functions on every arch the build supports: the largest error
// in ULP against a double (float) or long double (double) reference over a dense sweep of
// the whole range, at most 4; and, for special values (inf, nan, zeros, overflow, underflow,
// denormals), the same class of result as the std:: function.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "mshadow/tensor.h"
#include "mshadow/ulp_error.h"

namespace mshadow {

// The primitives without an mshadow::op of their own, as operators for Apply: Expm1, and
// SelectPositive as x where x > 0, -x elsewhere.
struct expm1_primitive {
  template <typename DType>
  static DType Map(DType x) {
    return std::expm1(x);
  }
};
// The SLEEF functions the operators use beside mshadow::op's.
#define PRIMITIVE_OPERATOR(name, std_function, Primitive)                                 \
  struct name {                                                                           \
    template <typename DType>                                                             \
    static DType Map(DType x) {                                                           \
      return std::std_function(x);                                                        \
    }                                                                                     \
  };                                                                                      \
  namespace packet {                                                                      \
  template <typename DType, PacketArch Arch>                                              \
  struct PacketOp<name, DType, Arch> {                                                    \
    static constexpr bool kEnabled = true;                                                \
    static Packet<DType, Arch> Map(const Packet<DType, Arch>& x) { return Primitive(x); } \
  };                                                                                      \
  }
PRIMITIVE_OPERATOR(erf_primitive, erf, Erf)
PRIMITIVE_OPERATOR(log2_primitive, log2, Log2)
PRIMITIVE_OPERATOR(log10_primitive, log10, Log10)
PRIMITIVE_OPERATOR(sin_primitive, sin, Sin)
PRIMITIVE_OPERATOR(cos_primitive, cos, Cos)
PRIMITIVE_OPERATOR(atan_primitive, atan, Atan)
PRIMITIVE_OPERATOR(cbrt_primitive, cbrt, Cbrt)
#undef PRIMITIVE_OPERATOR
struct select_positive_primitive {
  template <typename DType>
  static DType Map(DType x) {
    return x > 0 ? x : -x;
  }
};
// The comparison selects as operators: x where the comparison of the operands holds, y
// elsewhere (x = 3, y = -5); and Hypot.
#define BINARY_PRIMITIVE_OPERATOR(name, scalar_expression, packet_expression) \
  struct name {                                                               \
    template <typename DType>                                                 \
    static DType Map(DType a, DType b) {                                      \
      return scalar_expression;                                               \
    }                                                                         \
  };                                                                          \
  namespace packet {                                                          \
  template <typename DType, PacketArch Arch>                                  \
  struct PacketOp<name, DType, Arch> {                                        \
    static constexpr bool kEnabled = true;                                    \
    using P = Packet<DType, Arch>;                                            \
    static P Map(const P& a, const P& b) { return packet_expression; }        \
  };                                                                          \
  }
BINARY_PRIMITIVE_OPERATOR(select_less_primitive, a < b ? DType(3) : DType(-5),
                          SelectLess(a, b, P::Fill(3), P::Fill(-5)))
BINARY_PRIMITIVE_OPERATOR(select_less_equal_primitive, a <= b ? DType(3) : DType(-5),
                          SelectLessEqual(a, b, P::Fill(3), P::Fill(-5)))
BINARY_PRIMITIVE_OPERATOR(select_equal_primitive, a == b ? DType(3) : DType(-5),
                          SelectEqual(a, b, P::Fill(3), P::Fill(-5)))
BINARY_PRIMITIVE_OPERATOR(hypot_primitive, std::hypot(a, b), Hypot(a, b))
#undef BINARY_PRIMITIVE_OPERATOR
namespace packet {
template <typename DType, PacketArch Arch>
struct PacketOp<expm1_primitive, DType, Arch> {
  static constexpr bool kEnabled = true;
  static Packet<DType, Arch> Map(const Packet<DType, Arch>& x) { return Expm1(x); }
};
template <typename DType, PacketArch Arch>
struct PacketOp<select_positive_primitive, DType, Arch> {
  static constexpr bool kEnabled = true;
  static Packet<DType, Arch> Map(const Packet<DType, Arch>& x) {
    return SelectPositive(x, x, Negate(x));
  }
};
}  // namespace packet

namespace {

using packet::PacketArch;

// out = F<OP>(in) on Arch, every element through the vector path (n a multiple of kSize).
template <PacketArch Arch, typename OP, typename T>
std::vector<T> Apply(const std::vector<T>& in) {
  const index_t n = static_cast<index_t>(in.size());
  std::vector<T> out(in.size());
  Tensor<cpu, 1, T> src(const_cast<T*>(in.data()), Shape1(n)), dst(out.data(), Shape1(n));
  expr::MapPacketPlan<sv::saveto>(dst, expr::MakePacketPlan<Arch>(expr::F<OP>(src).self()));
  return out;
}
template <PacketArch Arch, typename OP, typename T>
std::vector<T> Apply(const std::vector<T>& a, const std::vector<T>& b) {
  const index_t n = static_cast<index_t>(a.size());
  std::vector<T> out(a.size());
  Tensor<cpu, 1, T> ta(const_cast<T*>(a.data()), Shape1(n)), tb(const_cast<T*>(b.data()), Shape1(n)),
      dst(out.data(), Shape1(n));
  expr::MapPacketPlan<sv::saveto>(dst, expr::MakePacketPlan<Arch>(expr::F<OP>(ta, tb).self()));
  return out;
}

// Every 2053rd float bit pattern (both signs, every binade: ~2.1M values), the special
// values, padded to a multiple of 16 lanes.
std::vector<float> FloatSweep() {
  std::vector<float> values;
  for (uint64_t bits = 0; bits <= 0xffffffffull; bits += 2053) {
    const uint32_t b = static_cast<uint32_t>(bits);
    float f;
    std::memcpy(&f, &b, sizeof(f));
    values.push_back(f);
  }
  for (float f : {0.0f, -0.0f, INFINITY, -INFINITY, NAN, FLT_MAX, -FLT_MAX, FLT_MIN, -FLT_MIN,
                  1e-40f, -1e-40f, 88.72f, 88.73f, -87.3f, -103.9f, -104.0f, 1.0f, -1.0f}) {
    values.push_back(f);
  }
  while (values.size() % 16 != 0) values.push_back(0.5f);
  return values;
}

// 2^18 doubles: random bit patterns (every exponent) plus the special values.
std::vector<double> DoubleSweep() {
  std::mt19937_64 rng(5);
  std::vector<double> values;
  for (int i = 0; i < (1 << 18); ++i) {
    const uint64_t b = rng();
    double d;
    std::memcpy(&d, &b, sizeof(d));
    values.push_back(d);
  }
  for (double d : std::initializer_list<double>{0.0, -0.0, INFINITY, -INFINITY, NAN, DBL_MAX, DBL_MIN, 4.9e-324, 709.8, -745.2,
                   -708.5, 1.0, -1.0}) {
    values.push_back(d);
  }
  while (values.size() % 16 != 0) values.push_back(0.5);
  return values;
}

struct UnaryCase {
  std::string name;
  std::function<std::vector<float>(const std::vector<float>&)> run_float;
  std::function<std::vector<double>(const std::vector<double>&)> run_double;
  std::function<long double(long double)> reference;
};

template <PacketArch Arch, typename OP>
UnaryCase Case(const std::string& name, std::function<long double(long double)> reference) {
  return {name, [](const std::vector<float>& x) { return Apply<Arch, OP>(x); },
          [](const std::vector<double>& x) { return Apply<Arch, OP>(x); }, reference};
}

long double SigmoidReference(long double x) {
  const long double t = std::exp(-std::fabs(x));
  return x >= 0 ? 1 / (1 + t) : t / (1 + t);
}
long double SoftReLUReference(long double x) {
  return (x > 0 ? x : 0) + std::log1p(std::exp(-std::fabs(x)));
}

template <PacketArch Arch>
std::vector<UnaryCase> UnaryCases() {
  return {
      Case<Arch, op::exp>("exp", [](long double x) { return std::exp(x); }),
      Case<Arch, op::log>("log", [](long double x) { return std::log(x); }),
      Case<Arch, op::tanh>("tanh", [](long double x) { return std::tanh(x); }),
      Case<Arch, op::sigmoid>("sigmoid", SigmoidReference),
      Case<Arch, op::softrelu>("softrelu", SoftReLUReference),
      Case<Arch, op::sqrt>("sqrt", [](long double x) { return std::sqrt(x); }),
      Case<Arch, op::rsqrt>("rsqrt", [](long double x) { return 1 / std::sqrt(x); }),
      Case<Arch, op::abs>("abs", [](long double x) { return std::fabs(x); }),
      Case<Arch, op::negation>("negation", [](long double x) { return -x; }),
      Case<Arch, op::square>("square", [](long double x) { return x * x; }),
      Case<Arch, op::relu>("relu", [](long double x) { return x != x  ? x
                                                              : x > 0 ? x
                                                                      : 0; }),
      Case<Arch, expm1_primitive>("expm1", [](long double x) { return std::expm1(x); }),
      Case<Arch, erf_primitive>("erf", [](long double x) { return std::erf(x); }),
      Case<Arch, log2_primitive>("log2", [](long double x) { return std::log2(x); }),
      Case<Arch, log10_primitive>("log10", [](long double x) { return std::log10(x); }),
      Case<Arch, sin_primitive>("sin", [](long double x) { return std::sin(x); }),
      Case<Arch, cos_primitive>("cos", [](long double x) { return std::cos(x); }),
      Case<Arch, atan_primitive>("atan", [](long double x) { return std::atan(x); }),
      Case<Arch, cbrt_primitive>("cbrt", [](long double x) { return std::cbrt(x); }),
      Case<Arch, select_positive_primitive>("selectpos",
                                            [](long double x) { return x > 0 ? x : -x; }),
  };
}

template <PacketArch Arch>
void CheckUnaryAccuracy() {
  const std::vector<float> floats = FloatSweep();
  const std::vector<double> doubles = DoubleSweep();
  for (const UnaryCase& c : UnaryCases<Arch>()) {
    double worst_float = 0, worst_double = 0;
    const std::vector<float> fy = c.run_float(floats);
    for (size_t i = 0; i < floats.size(); ++i) {
      const double e = UlpError(fy[i], c.reference(floats[i]));
      EXPECT_LE(e, 4.0) << c.name << "(" << floats[i] << ") = " << fy[i] << ", reference "
                        << static_cast<double>(c.reference(floats[i]));
      if (e > worst_float) worst_float = e;
      if (e > 4.0) break;
    }
    const std::vector<double> dy = c.run_double(doubles);
    for (size_t i = 0; i < doubles.size(); ++i) {
      const double e = UlpError(dy[i], c.reference(doubles[i]));
      EXPECT_LE(e, 4.0) << c.name << "(" << doubles[i] << ") = " << dy[i];
      if (e > worst_double) worst_double = e;
      if (e > 4.0) break;
    }
    std::printf("arch %d %-9s max error %.2f ULP (float), %.2f ULP (double)\n", Arch,
                c.name.c_str(), worst_float, worst_double);
  }
}

TEST(PacketMathTest, UnaryPlain) { CheckUnaryAccuracy<packet::kPlain>(); }
#if MSHADOW_PACKET_HAS_SSE2
TEST(PacketMathTest, UnarySSE2) { CheckUnaryAccuracy<packet::kSSE2>(); }
#endif
#if MSHADOW_PACKET_HAS_AVX2
TEST(PacketMathTest, UnaryAVX2) { CheckUnaryAccuracy<packet::kAVX2>(); }
#endif
#if MSHADOW_PACKET_HAS_AVX512
TEST(PacketMathTest, UnaryAVX512) { CheckUnaryAccuracy<packet::kAVX512>(); }
#endif

// The project's own float kernels (float_math.h) where their results are not 0, 1 or inf:
// every 257th float with |x| <= 110 (8.7M values), and the signs of zero results.
template <PacketArch Arch>
void CheckFloatKernelsDensely() {
  std::vector<float> x;
  for (uint32_t bits = 0; bits <= 0x42dc0000u; bits += 257) {  // 0x42dc0000 is 110.0f
    float f;
    std::memcpy(&f, &bits, sizeof(f));
    x.push_back(f);
    x.push_back(-f);
  }
  while (x.size() % 16 != 0) x.push_back(0.5f);
  const std::vector<UnaryCase> cases = UnaryCases<Arch>();
  for (const UnaryCase& c : cases) {
    if (c.name != "exp" && c.name != "expm1" && c.name != "tanh" && c.name != "sigmoid" &&
        c.name != "softrelu") {
      continue;
    }
    const std::vector<float> y = c.run_float(x);
    double worst = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      const double e = UlpError(y[i], c.reference(x[i]));
      worst = std::max(worst, e);
      if (e > 4.0) {
        ADD_FAILURE() << c.name << "(" << x[i] << ") = " << y[i] << ", error " << e << " ULP";
        break;
      }
    }
    std::printf("arch %d %-9s max error %.2f ULP over |x| <= 110 (float)\n", Arch, c.name.c_str(), worst);
  }
  // tanh and expm1 keep the sign of a zero, as std:: does; exp(+-0) is 1.
  for (const float zero : {0.0f, -0.0f}) {
    const std::vector<float> zeros(16, zero);
    for (float t : Apply<Arch, op::tanh>(zeros))
      EXPECT_TRUE(t == 0.0f && std::signbit(t) == std::signbit(zero));
    for (float m : Apply<Arch, expm1_primitive>(zeros)) {
      EXPECT_TRUE(m == 0.0f && std::signbit(m) == std::signbit(zero));
    }
    for (float e : Apply<Arch, op::exp>(zeros)) EXPECT_EQ(e, 1.0f);
  }
}

TEST(PacketMathTest, FloatKernelsPlain) { CheckFloatKernelsDensely<packet::kPlain>(); }
#if MSHADOW_PACKET_HAS_SSE2
TEST(PacketMathTest, FloatKernelsSSE2) { CheckFloatKernelsDensely<packet::kSSE2>(); }
#endif
#if MSHADOW_PACKET_HAS_AVX2
TEST(PacketMathTest, FloatKernelsAVX2) { CheckFloatKernelsDensely<packet::kAVX2>(); }
#endif
#if MSHADOW_PACKET_HAS_AVX512
TEST(PacketMathTest, FloatKernelsAVX512) { CheckFloatKernelsDensely<packet::kAVX512>(); }
#endif

// power, maximum, minimum on pairs: random magnitudes and signs, plus special values.
template <PacketArch Arch>
void CheckPowerMaxMin() {
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> base(0.0f, 100.0f), exponent(-20.0f, 20.0f);
  std::vector<float> a, b;
  for (int i = 0; i < (1 << 18); ++i) {
    a.push_back(base(rng));
    b.push_back(exponent(rng));
  }
  const float specials[] = {0.0f, -0.0f, 1.0f, -1.0f, 2.0f, 0.5f, INFINITY, -INFINITY, NAN, 1e-40f};
  for (float x : specials) {
    for (float y : specials) {
      a.push_back(x);
      b.push_back(y);
    }
  }
  while (a.size() % 16 != 0) {
    a.push_back(1.0f);
    b.push_back(1.0f);
  }
  const auto pw = Apply<Arch, op::power>(a, b);
  const auto mx = Apply<Arch, op::maximum>(a, b);
  const auto mn = Apply<Arch, op::minimum>(a, b);
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double e = UlpError(pw[i], std::pow(static_cast<long double>(a[i]), static_cast<long double>(b[i])));
    EXPECT_LE(e, 4.0) << "pow(" << a[i] << ", " << b[i] << ") = " << pw[i];
    worst = std::max(worst, e);
    const bool nan = std::isnan(a[i]) || std::isnan(b[i]);
    EXPECT_EQ(std::isnan(mx[i]), nan) << a[i] << " " << b[i];
    EXPECT_EQ(std::isnan(mn[i]), nan) << a[i] << " " << b[i];
    if (!nan) {
      EXPECT_EQ(mx[i], std::max(a[i], b[i]));
      EXPECT_EQ(mn[i], std::min(a[i], b[i]));
    }
  }
  std::printf("arch %d power     max error %.2f ULP (float)\n", Arch, worst);
}

// The comparison selects against the scalar comparisons (ties, signed zeros, infinities and
// NaN among the pairs) and Hypot against a wider reference, in float and double.
template <PacketArch Arch, typename T>
void CheckSelectsAndHypot() {
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> small(-3, 3);  // ties are common
  std::uniform_real_distribution<double> wide(-1e6, 1e6), exponent(-300, 300);
  std::vector<T> a, b;
  for (int i = 0; i < (1 << 16); ++i) {
    a.push_back(static_cast<T>(small(rng)));
    b.push_back(static_cast<T>(small(rng)));
    a.push_back(static_cast<T>(wide(rng)));
    b.push_back(static_cast<T>(wide(rng) * std::pow(10.0, exponent(rng) / 10)));
  }
  const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
  const T big = std::numeric_limits<T>::max() / 2, tiny = std::numeric_limits<T>::denorm_min();
  const T specials[] = {T(0), -T(0), T(1), T(-1), inf, -inf, nan, big, tiny, -tiny};
  for (T x : specials) {
    for (T y : specials) {
      a.push_back(x);
      b.push_back(y);
    }
  }
  while (a.size() % 16 != 0) {
    a.push_back(T(1));
    b.push_back(T(1));
  }
  const auto less = Apply<Arch, select_less_primitive>(a, b);
  const auto less_equal = Apply<Arch, select_less_equal_primitive>(a, b);
  const auto equal = Apply<Arch, select_equal_primitive>(a, b);
  const auto hypot = Apply<Arch, hypot_primitive>(a, b);
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(less[i], a[i] < b[i] ? T(3) : T(-5)) << a[i] << " < " << b[i];
    EXPECT_EQ(less_equal[i], a[i] <= b[i] ? T(3) : T(-5)) << a[i] << " <= " << b[i];
    EXPECT_EQ(equal[i], a[i] == b[i] ? T(3) : T(-5)) << a[i] << " == " << b[i];
    const T expected = std::hypot(a[i], b[i]);
    if (std::isnan(expected) || std::isinf(expected)) {
      EXPECT_EQ(std::isnan(hypot[i]), std::isnan(expected)) << a[i] << " " << b[i];
      EXPECT_EQ(std::isinf(hypot[i]), std::isinf(expected)) << a[i] << " " << b[i];
      continue;
    }
    const long double la = a[i], lb = b[i];
    const double e = UlpError(hypot[i], std::sqrt(la * la + lb * lb));
    EXPECT_LE(e, 1.0) << "hypot(" << a[i] << ", " << b[i] << ") = " << hypot[i];
    worst = std::max(worst, e);
  }
  std::printf("arch %d hypot     max error %.2f ULP (%s)\n", Arch, worst,
              sizeof(T) == 4 ? "float" : "double");
}
template <PacketArch Arch>
void CheckBinary() {
  CheckPowerMaxMin<Arch>();
  CheckSelectsAndHypot<Arch, float>();
  CheckSelectsAndHypot<Arch, double>();
}

TEST(PacketMathTest, BinaryPlain) { CheckBinary<packet::kPlain>(); }
#if MSHADOW_PACKET_HAS_SSE2
TEST(PacketMathTest, BinarySSE2) { CheckBinary<packet::kSSE2>(); }
#endif
#if MSHADOW_PACKET_HAS_AVX2
TEST(PacketMathTest, BinaryAVX2) { CheckBinary<packet::kAVX2>(); }
#endif
#if MSHADOW_PACKET_HAS_AVX512
TEST(PacketMathTest, BinaryAVX512) { CheckBinary<packet::kAVX512>(); }
#endif

}  // namespace
}  // namespace mshadow
