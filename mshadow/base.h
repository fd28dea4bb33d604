// mshadow/base.h: the base vocabulary of mshadow: index type, devices, data types, the
// per-element operators and savers, layouts and shapes.
//
//   #include "mshadow/base.h"
//   mshadow::Shape<3> s = mshadow::Shape3(2, 3, 4);   // s.Size() == 24
//   MSHADOW_TYPE_SWITCH(flag, DType, { Fill<DType>(ptr); });
//
// Differences from the original, on purpose: `index_t` is a signed 64-bit integer (tensors of
// more than 2^32 elements, no unsigned wrap-around in loops); device traits are constexpr
// (usable by reference without a definition in a .cc file).
#ifndef MSHADOW_BASE_H_
#define MSHADOW_BASE_H_

#include "mshadow/device.h"
#include "mshadow/layout.h"
#include "mshadow/macros.h"
#include "mshadow/operators.h"
#include "mshadow/shape.h"
#include "mshadow/type_flag.h"

#endif  // MSHADOW_BASE_H_
