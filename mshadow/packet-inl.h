// mshadow/packet-inl.h: SIMD packets for the CPU expression engine: `Packet<DType, Arch>`
// per instruction set (mshadow/packet/*.h), alignment helpers, the operators a packet
// supports (PacketOp) and how a packet is stored (Saver).
//
//   using namespace mshadow::packet;
//   using P = Packet<float, MSHADOW_DEFAULT_PACKET>;        // 8 floats with AVX2
//   P a = P::LoadUnAligned(x), b = P::Fill(2.0f);
//   Saver<sv::plusto, float, MSHADOW_DEFAULT_PACKET>::Save(y, a * b);   // y[0..7] += 2 x
//   LowerAlign<float, kSSE2>(50) == 48;   // elements the vector loop covers
//
// Differences from mshadow, on purpose: AVX2 (+FMA) and AVX-512 arches; UpperAlign and
// LowerAlign use the arch they are asked about; stores have an unaligned form, so that any
// pointer and stride can take the vector path (alignment is a speed hint, not a gate).
#ifndef MSHADOW_PACKET_INL_H_
#define MSHADOW_PACKET_INL_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "dmlc/logging.h"
#include "mshadow/host_memory.h"
#include "mshadow/operators.h"
#include "mshadow/packet/arch.h"
#include "mshadow/packet/avx2.h"
#include "mshadow/packet/avx512.h"
#include "mshadow/packet/plain.h"
#include "mshadow/packet/sse2.h"

namespace mshadow {
namespace packet {

// Allocates num_line rows of at least lspace bytes each, every row starting on the default
// arch's alignment; *out_pitch receives the bytes between row starts. Throws dmlc::Error
// when out of memory.
inline void* AlignedMallocPitch(size_t* out_pitch, size_t lspace, size_t num_line) {
  const size_t alignment = size_t{1} << AlignBytes<MSHADOW_DEFAULT_PACKET>::value;
  CHECK_LE(lspace, SIZE_MAX - alignment) << "AlignedMallocPitch: rows of " << lspace << " bytes";
  const size_t pitch = (lspace + alignment - 1) / alignment * alignment;
  *out_pitch = pitch;
  const auto what = [&] {
    return std::to_string(num_line) + " rows of " + std::to_string(pitch) + " bytes";
  };
  size_t bytes = 0;
  CHECK(!__builtin_mul_overflow(pitch, num_line, &bytes))
      << "AlignedMallocPitch: " << what() << " overflow the address space";
  return AllocHost(bytes, alignment, what);
}

inline void AlignedFree(void* ptr) { FreeHost(ptr); }

// Whether a byte count (a pitch) or an address is a multiple of the arch's alignment.
template <PacketArch Arch>
inline bool CheckAlign(size_t pitch) {
  return (pitch & ((size_t{1} << AlignBytes<Arch>::value) - 1)) == 0;
}
template <PacketArch Arch>
inline bool CheckAlign(void* ptr) {
  return CheckAlign<Arch>(reinterpret_cast<size_t>(ptr));
}

// `size` elements rounded up (Upper) or down (Lower) to a whole number of Arch-aligned
// blocks: LowerAlign<float, kSSE2>(50) == 48, UpperAlign<float, kSSE2>(50) == 52.
template <typename DType, PacketArch Arch>
inline index_t UpperAlign(index_t size) {
  const index_t block = (index_t{1} << AlignBytes<Arch>::value) / static_cast<index_t>(sizeof(DType));
  return (size + block - 1) / block * block;
}
template <typename DType, PacketArch Arch>
inline index_t LowerAlign(index_t size) {
  const index_t block = (index_t{1} << AlignBytes<Arch>::value) / static_cast<index_t>(sizeof(DType));
  return size / block * block;
}

// The packet form of an elementwise operator; kEnabled is false for operators without one
// (the engine then evaluates the expression one element at a time).
template <typename OP, typename DType, PacketArch Arch>
struct PacketOp {
  static constexpr bool kEnabled = false;
};

#define MSHADOW_PACKET_BINARY_OP(OP, expression)                                           \
  template <typename DType, PacketArch Arch>                                               \
  struct PacketOp<OP, DType, Arch> {                                                       \
    static constexpr bool kEnabled = true;                                                 \
    MSHADOW_CINLINE static Packet<DType, Arch> Map(const Packet<DType, Arch>& lhs,         \
                                                   const Packet<DType, Arch>& rhs) {       \
      return expression;                                                                   \
    }                                                                                      \
  };
MSHADOW_PACKET_BINARY_OP(op::plus, lhs + rhs)
MSHADOW_PACKET_BINARY_OP(op::minus, lhs - rhs)
MSHADOW_PACKET_BINARY_OP(op::mul, lhs* rhs)
MSHADOW_PACKET_BINARY_OP(op::div, lhs / rhs)
MSHADOW_PACKET_BINARY_OP(op::right, rhs)
#undef MSHADOW_PACKET_BINARY_OP

template <typename DType, PacketArch Arch>
struct PacketOp<op::identity, DType, Arch> {
  static constexpr bool kEnabled = true;
  MSHADOW_CINLINE static Packet<DType, Arch> Map(const Packet<DType, Arch>& src) { return src; }
};

// Stores a packet into dst as the saver SV does elementwise: dst = dst OP src.
template <typename SV, typename DType, PacketArch Arch>
struct Saver {
  MSHADOW_CINLINE static void Save(DType* dst, const Packet<DType, Arch>& src) {
    const Packet<DType, Arch> lhs = Packet<DType, Arch>::LoadUnAligned(dst);
    PacketOp<typename SV::OPType, DType, Arch>::Map(lhs, src).StoreUnAligned(dst);
  }
};
template <typename DType, PacketArch Arch>
struct Saver<sv::saveto, DType, Arch> {
  MSHADOW_CINLINE static void Save(DType* dst, const Packet<DType, Arch>& src) {
    src.StoreUnAligned(dst);
  }
};

}  // namespace packet
}  // namespace mshadow

#include "mshadow/packet/math_ops.h"  // needs the primary PacketOp above

#endif  // MSHADOW_PACKET_INL_H_
