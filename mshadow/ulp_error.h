// mshadow/ulp_error.h: the error of a computed value in units of the last place (ULP) of the
// correctly rounded result, the measure the packet math accuracy checks use.
//
//   double e = mshadow::UlpError(y_float, std::tanh(static_cast<double>(x)));
#ifndef MSHADOW_ULP_ERROR_H_
#define MSHADOW_ULP_ERROR_H_

#include <cmath>
#include <limits>

namespace mshadow {

// `reference` is the exact result in a wider type Wide; the ULP is that of the reference
// rounded to T, and below T's smallest normal the denormal spacing. A NaN or an overflow in
// the reference must be matched exactly (0 or infinite error).
template <typename T, typename Wide>
double UlpError(T actual, Wide reference) {
  if (std::isnan(reference)) return std::isnan(actual) ? 0.0 : INFINITY;
  const T rounded = static_cast<T>(reference);
  if (std::isinf(rounded)) return actual == rounded ? 0.0 : INFINITY;  // overflow must match
  if (std::isnan(actual) || std::isinf(actual)) return INFINITY;
  const Wide magnitude = std::fabs(reference);
  const int exponent = magnitude < std::numeric_limits<T>::min()
                           ? std::numeric_limits<T>::min_exponent - 1
                           : std::ilogb(magnitude);
  const Wide ulp = std::ldexp(Wide(1), exponent - (std::numeric_limits<T>::digits - 1));
  return static_cast<double>(std::fabs(static_cast<Wide>(actual) - reference) / ulp);
}

}  // namespace mshadow

#endif  // MSHADOW_ULP_ERROR_H_
