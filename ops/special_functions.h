// ops/special_functions.h: the special functions the unary family needs that C++'s <cmath>
// lacks, on every device, in double (their float results are these rounded):
//
//   LogGamma(x)  log|Gamma(x)| (gammaln), safe to call from many threads at once.
//   Digamma(x)   d/dx log|Gamma(x)| (gammaln's derivative): the largest double at the poles
//                (0, -1, -2, ...), as MXNet 1.9.1 gives.
//   ErfInv(y)    the x with erf(x) = y: +-infinity at +-1, NaN outside [-1, 1].
//   Narrowed<DType>(d)  d as float or double, infinite beyond float's range (where a plain
//                conversion is undefined): digamma's poles in float are infinite.
#ifndef OPS_SPECIAL_FUNCTIONS_H_
#define OPS_SPECIAL_FUNCTIONS_H_

#include <math.h>  // lgamma_r, lgammaf_r (glibc)
#include <cfloat>
#include <cmath>

#include "mshadow/macros.h"

namespace ops {
namespace special {

constexpr double kPi = 3.14159265358979323846;

// libm's lgamma stores the sign of Gamma(x) in the global signgam: two threads calling it at
// once race on that word (ThreadSanitizer reports it). glibc's lgamma_r returns the sign to
// its caller instead; device code has no signgam.
MSHADOW_XINLINE double LogGamma(double x) {
#ifdef __CUDA_ARCH__
  return lgamma(x);
#else
  int sign;
  return lgamma_r(x, &sign);
#endif
}
MSHADOW_XINLINE float LogGamma(float x) {
#ifdef __CUDA_ARCH__
  return lgammaf(x);
#else
  int sign;
  return lgammaf_r(x, &sign);
#endif
}

MSHADOW_XINLINE double Digamma(double x) {
  double shift = 0;
  if (x <= 0) {
    if (x == std::floor(x)) return DBL_MAX;  // a pole
    // Reflection: psi(x) = psi(1 - x) - pi / tan(pi x).
    shift = -kPi / std::tan(kPi * x);
    x = 1 - x;
  }
  // psi(x) = psi(x + 1) - 1 / x up to x >= 10, where the asymptotic series is within 1e-13.
  for (; x < 10; x += 1) shift -= 1 / x;
  const double r = 1 / (x * x);
  const double series =
      r * (1.0 / 12 - r * (1.0 / 120 - r * (1.0 / 252 - r * (1.0 / 240 - r * (1.0 / 132)))));
  return shift + std::log(x) - 0.5 / x - series;
}

// Giles' polynomial approximation ("Approximating the erfinv function", GPU Computing Gems,
// 2011; single precision), then two Newton steps on erf in double.
MSHADOW_XINLINE double ErfInv(double y) {
  if (!(y >= -1 && y <= 1)) return NAN;
  if (y == 1 || y == -1) return y * INFINITY;
  double w = -std::log((1 - y) * (1 + y)), p;
  if (w < 5) {
    w -= 2.5;
    p = 2.81022636e-08;
    p = 3.43273939e-07 + p * w;
    p = -3.5233877e-06 + p * w;
    p = -4.39150654e-06 + p * w;
    p = 0.00021858087 + p * w;
    p = -0.00125372503 + p * w;
    p = -0.00417768164 + p * w;
    p = 0.246640727 + p * w;
    p = 1.50140941 + p * w;
  } else {
    w = std::sqrt(w) - 3;
    p = -0.000200214257;
    p = 0.000100950558 + p * w;
    p = 0.00134934322 + p * w;
    p = -0.00367342844 + p * w;
    p = 0.00573950773 + p * w;
    p = -0.0076224613 + p * w;
    p = 0.00943887047 + p * w;
    p = 1.00167406 + p * w;
    p = 2.83297682 + p * w;
  }
  double x = p * y;
  for (int step = 0; step < 2; ++step) {
    const double slope = 1.1283791670955126 * std::exp(-x * x);  // erf'(x) = 2/sqrt(pi) e^-x^2
    if (slope == 0) break;
    x -= (std::erf(x) - y) / slope;
  }
  return x;
}

template <typename DType>
MSHADOW_XINLINE DType Narrowed(double d) {
  if (sizeof(DType) < sizeof(double) && !(d >= -FLT_MAX && d <= FLT_MAX) && d == d) {
    return DType(d > 0 ? INFINITY : -INFINITY);
  }
  return DType(d);
}

}  // namespace special
}  // namespace ops

#endif  // OPS_SPECIAL_FUNCTIONS_H_
