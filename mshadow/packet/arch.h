// mshadow/packet/arch.h: which SIMD instruction sets a Packet can use, the one chosen by
// default for this build, and the alignment each prefers.
//
// MSHADOW_DEFAULT_PACKET follows the ISA the compiler targets (-march): kAVX512 with
// AVX-512F, kAVX2 with AVX2 and FMA, kSSE2 on any x86-64, kPlain elsewhere. Define it to
// choose another; kPlain is always available.
#ifndef MSHADOW_PACKET_ARCH_H_
#define MSHADOW_PACKET_ARCH_H_

#include "mshadow/macros.h"

namespace mshadow {
namespace packet {

enum PacketArch {
  kPlain,   // one element at a time, portable C++
  kSSE2,    // 128-bit vectors
  kAVX2,    // 256-bit vectors, fused multiply-add
  kAVX512,  // 512-bit vectors
};

// log2 of the alignment, in bytes, that loads and stores of the arch prefer: 16, 32 or 64.
// (kPlain keeps mshadow's 16 so that allocations stay compatible.)
template <PacketArch Arch>
struct AlignBytes {
  static constexpr index_t value = Arch == kAVX512 ? 6 : Arch == kAVX2 ? 5 : 4;
};

}  // namespace packet
}  // namespace mshadow

#ifndef MSHADOW_DEFAULT_PACKET
#if defined(__AVX512F__)
#define MSHADOW_DEFAULT_PACKET ::mshadow::packet::kAVX512
#elif defined(__AVX2__) && defined(__FMA__)
#define MSHADOW_DEFAULT_PACKET ::mshadow::packet::kAVX2
#elif defined(__SSE2__)
#define MSHADOW_DEFAULT_PACKET ::mshadow::packet::kSSE2
#else
#define MSHADOW_DEFAULT_PACKET ::mshadow::packet::kPlain
#endif
#endif

// Which arches this build can run: each needs its instruction set enabled (1) or not (0).
#if defined(__SSE2__)
#define MSHADOW_PACKET_HAS_SSE2 1
#else
#define MSHADOW_PACKET_HAS_SSE2 0
#endif
#if defined(__AVX2__) && defined(__FMA__)
#define MSHADOW_PACKET_HAS_AVX2 1
#else
#define MSHADOW_PACKET_HAS_AVX2 0
#endif
// (mshadow/packet/avx512_emulation.h defines it to 1 first, for tests without AVX-512.)
#ifndef MSHADOW_PACKET_HAS_AVX512
#if defined(__AVX512F__)
#define MSHADOW_PACKET_HAS_AVX512 1
#else
#define MSHADOW_PACKET_HAS_AVX512 0
#endif
#endif

#endif  // MSHADOW_PACKET_ARCH_H_
