// mshadow/immintrin.h: <immintrin.h>, the x86 SIMD intrinsics, for every header of the library
// that uses them (half.h's F16C conversions, the packet arches through
// mshadow/packet/x86_intrinsics.h).
//
// GCC 12.2 (Debian 12's compiler) reports every inlined AVX-512 intrinsic that takes an
// "undefined" pass-through vector (_mm512_max_ps, _mm512_slli_epi32, ...) as reading an
// uninitialised variable: its headers write the placeholder as `__m512 __Y = __Y;` (GCC bug
// 105593, fixed in 12.3). The warning's location is inside the header, so silencing it here,
// around the include, keeps it out of every user's build (nvcc, which makes host warnings
// errors, included) without hiding a real one in the library's own code. Whichever header
// includes <immintrin.h> first decides, so none includes it but this one.
#ifndef MSHADOW_IMMINTRIN_H_
#define MSHADOW_IMMINTRIN_H_

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <immintrin.h>

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#endif  // MSHADOW_IMMINTRIN_H_
