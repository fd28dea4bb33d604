// mshadow/packet/x86_intrinsics.h: the x86 SIMD intrinsics (through mshadow/immintrin.h, which
// keeps GCC 12.2's false warnings in them out of every build) and SLEEF's vector math,
// included once for every packet arch that needs them.
#ifndef MSHADOW_PACKET_X86_INTRINSICS_H_
#define MSHADOW_PACKET_X86_INTRINSICS_H_

#include <sleef.h>

#include "mshadow/immintrin.h"

#endif  // MSHADOW_PACKET_X86_INTRINSICS_H_
