// mshadow/extension/index.h: turning an index value held in a tensor (often float, as in
// mshadow's label tensors) into a row or column number that can never address memory
// outside the indexed tensor, whatever the value: negative, too large, NaN.
//
//   ClipIndex(7.0f, 5)      // 4: clipped into [0, 5)
//   WrapIndex(-1, 5)        // 4: taken modulo 5
//   IndexInRange(5.0f, 5)   // -1: outside [0, 5), matches no position
//
// Fractional values truncate toward zero first, as mshadow's static_cast did.
#ifndef MSHADOW_EXTENSION_INDEX_H_
#define MSHADOW_EXTENSION_INDEX_H_

#include <cmath>

#include "mshadow/base.h"

namespace mshadow {
namespace expr {

// Compared as double: exact for every integer index below 2^53 and for every float.
template <typename IDType>
MSHADOW_XINLINE double IndexValue(IDType value) {
  return static_cast<double>(value);
}

// The value clipped into [0, n); NaN gives 0. n must be positive.
template <typename IDType>
MSHADOW_XINLINE index_t ClipIndex(IDType value, index_t n) {
  const double v = IndexValue(value);
  if (!(v > 0)) return 0;  // also NaN
  if (!(v < static_cast<double>(n))) return n - 1;
  return static_cast<index_t>(v);
}

// The value modulo n, in [0, n); NaN and infinities give 0. n must be positive.
template <typename IDType>
MSHADOW_XINLINE index_t WrapIndex(IDType value, index_t n) {
  const double v = IndexValue(value);
  if (!(v - v == 0)) return 0;  // NaN or infinite
  double wrapped = fmod(trunc(v), static_cast<double>(n));
  if (wrapped < 0) wrapped += static_cast<double>(n);
  return static_cast<index_t>(wrapped);
}

// The value as a position in [0, n), or -1 when it is outside (or NaN).
template <typename IDType>
MSHADOW_XINLINE index_t IndexInRange(IDType value, index_t n) {
  const double v = IndexValue(value);
  if (!(v > -1) || !(v < static_cast<double>(n))) return -1;
  return static_cast<index_t>(v);
}

}  // namespace expr
}  // namespace mshadow

#endif  // MSHADOW_EXTENSION_INDEX_H_
