// mshadow/expr/packet_plan.h: evaluating elementwise expressions a packet at a time.
//
// PacketPlan mirrors Plan: EvalPacket(y, x) computes elements x .. x + kSize - 1 of row y,
// Eval(y, x) one element. PacketCheck says at compile time whether every node of an
// expression has a packet form (float/double tensors and scalars, operators with a
// PacketOp). Loads are unaligned, so padded rows, column slices and odd widths all take the
// vector path; PacketAlignCheck still says whether everything is aligned, for callers that
// care. Evaluating a plan into a tensor is a backend's job (the CPU's MapPacketPlan is in
// mshadow/cpu/packet_executor.h): this header knows nothing of threads or stores.
//
//   auto plan = MakePacketPlan<MSHADOW_DEFAULT_PACKET>((a * 2.0f + b).self());
//   packet::Packet<float, MSHADOW_DEFAULT_PACKET> p = plan.EvalPacket(y, x);
#ifndef MSHADOW_EXPR_PACKET_PLAN_H_
#define MSHADOW_EXPR_PACKET_PLAN_H_

#include <algorithm>
#include <type_traits>

#include "mshadow/device.h"
#include "mshadow/expr/elementwise.h"
#include "mshadow/expr/rvalue.h"
#include "mshadow/expr/scalar.h"
#include "mshadow/expr/tensor_plan.h"
#include "mshadow/packet-inl.h"
#include "mshadow/shape.h"

namespace mshadow {
namespace expr {

using packet::PacketArch;

template <typename ExpType, typename DType, PacketArch Arch>
class PacketPlan;

// A tensor (or container) read at dptr_[y * stride_ + x].
template <typename DType, PacketArch Arch>
class TensorPacketPlan {
 public:
  TensorPacketPlan(const DType* dptr, index_t stride) : dptr_(dptr), stride_(stride) {}
  MSHADOW_CINLINE packet::Packet<DType, Arch> EvalPacket(index_t y, index_t x) const {
    return packet::Packet<DType, Arch>::LoadUnAligned(dptr_ + y * stride_ + x);
  }
  MSHADOW_CINLINE DType Eval(index_t y, index_t x) const { return dptr_[y * stride_ + x]; }

 private:
  const DType* dptr_;
  index_t stride_;
};

template <typename Device, int dim, typename DType, PacketArch Arch>
class PacketPlan<Tensor<Device, dim, DType>, DType, Arch> : public TensorPacketPlan<DType, Arch> {
 public:
  explicit PacketPlan(const Tensor<Device, dim, DType>& t)
      : TensorPacketPlan<DType, Arch>(t.dptr_, t.stride_) {}
};

template <typename DType, PacketArch Arch>
class PacketPlan<ScalarExp<DType>, DType, Arch> {
 public:
  explicit PacketPlan(DType scalar) : scalar_(scalar) {}
  // The broadcast is loop-invariant and leaves the loop; a stored packet would give every
  // plan holding a scalar the packet's alignment, and every caller a realigned stack frame.
  MSHADOW_CINLINE packet::Packet<DType, Arch> EvalPacket(index_t, index_t) const {
    return packet::Packet<DType, Arch>::Fill(scalar_);
  }
  MSHADOW_CINLINE DType Eval(index_t, index_t) const { return scalar_; }

 private:
  DType scalar_;
};

template <typename OP, typename TA, typename DType, int etype, PacketArch Arch>
class PacketPlan<UnaryMapExp<OP, TA, DType, etype>, DType, Arch> {
 public:
  explicit PacketPlan(const PacketPlan<TA, DType, Arch>& src) : src_(src) {}
  MSHADOW_CINLINE packet::Packet<DType, Arch> EvalPacket(index_t y, index_t x) const {
    return packet::PacketOp<OP, DType, Arch>::Map(src_.EvalPacket(y, x));
  }
  MSHADOW_CINLINE DType Eval(index_t y, index_t x) const { return OP::Map(src_.Eval(y, x)); }

 private:
  PacketPlan<TA, DType, Arch> src_;
};

template <typename OP, typename TA, typename TB, typename DType, int etype, PacketArch Arch>
class PacketPlan<BinaryMapExp<OP, TA, TB, DType, etype>, DType, Arch> {
 public:
  PacketPlan(const PacketPlan<TA, DType, Arch>& lhs, const PacketPlan<TB, DType, Arch>& rhs)
      : lhs_(lhs), rhs_(rhs) {}
  MSHADOW_CINLINE packet::Packet<DType, Arch> EvalPacket(index_t y, index_t x) const {
    return packet::PacketOp<OP, DType, Arch>::Map(lhs_.EvalPacket(y, x), rhs_.EvalPacket(y, x));
  }
  MSHADOW_CINLINE DType Eval(index_t y, index_t x) const {
    return OP::Map(lhs_.Eval(y, x), rhs_.Eval(y, x));
  }

 private:
  PacketPlan<TA, DType, Arch> lhs_;
  PacketPlan<TB, DType, Arch> rhs_;
};

template <typename OP, typename TA, typename TB, typename TC, typename DType, int etype,
          PacketArch Arch>
class PacketPlan<TernaryMapExp<OP, TA, TB, TC, DType, etype>, DType, Arch> {
 public:
  PacketPlan(const PacketPlan<TA, DType, Arch>& item1, const PacketPlan<TB, DType, Arch>& item2,
             const PacketPlan<TC, DType, Arch>& item3)
      : item1_(item1), item2_(item2), item3_(item3) {}
  MSHADOW_CINLINE packet::Packet<DType, Arch> EvalPacket(index_t y, index_t x) const {
    return packet::PacketOp<OP, DType, Arch>::Map(item1_.EvalPacket(y, x), item2_.EvalPacket(y, x),
                                                  item3_.EvalPacket(y, x));
  }
  MSHADOW_CINLINE DType Eval(index_t y, index_t x) const {
    return OP::Map(item1_.Eval(y, x), item2_.Eval(y, x), item3_.Eval(y, x));
  }

 private:
  PacketPlan<TA, DType, Arch> item1_;
  PacketPlan<TB, DType, Arch> item2_;
  PacketPlan<TC, DType, Arch> item3_;
};

// ---- MakePacketPlan: the plan of an expression tree.

template <PacketArch Arch, typename T, typename DType>
inline PacketPlan<T, DType, Arch> MakePacketPlan(const RValueExp<T, DType>& e) {
  return PacketPlan<T, DType, Arch>(e.self());
}

template <PacketArch Arch, typename DType>
inline PacketPlan<ScalarExp<DType>, DType, Arch> MakePacketPlan(const ScalarExp<DType>& e) {
  return PacketPlan<ScalarExp<DType>, DType, Arch>(e.scalar_);
}

template <PacketArch Arch, typename OP, typename TA, typename DType, int etype>
inline PacketPlan<UnaryMapExp<OP, TA, DType, etype>, DType, Arch> MakePacketPlan(
    const UnaryMapExp<OP, TA, DType, etype>& e) {
  return PacketPlan<UnaryMapExp<OP, TA, DType, etype>, DType, Arch>(MakePacketPlan<Arch>(e.src_));
}

template <PacketArch Arch, typename OP, typename TA, typename TB, typename DType, int etype>
inline PacketPlan<BinaryMapExp<OP, TA, TB, DType, etype>, DType, Arch> MakePacketPlan(
    const BinaryMapExp<OP, TA, TB, DType, etype>& e) {
  return PacketPlan<BinaryMapExp<OP, TA, TB, DType, etype>, DType, Arch>(
      MakePacketPlan<Arch>(e.lhs_), MakePacketPlan<Arch>(e.rhs_));
}

template <PacketArch Arch, typename OP, typename TA, typename TB, typename TC, typename DType,
          int etype>
inline PacketPlan<TernaryMapExp<OP, TA, TB, TC, DType, etype>, DType, Arch> MakePacketPlan(
    const TernaryMapExp<OP, TA, TB, TC, DType, etype>& e) {
  return PacketPlan<TernaryMapExp<OP, TA, TB, TC, DType, etype>, DType, Arch>(
      MakePacketPlan<Arch>(e.item1_), MakePacketPlan<Arch>(e.item2_),
      MakePacketPlan<Arch>(e.item3_));
}

// ---- PacketCheck: whether every node has a packet form on Arch.

// Whether this build can run Arch.
template <PacketArch Arch>
struct PacketArchAvailable {
  static constexpr bool value =
      Arch == packet::kPlain || (Arch == packet::kSSE2 && MSHADOW_PACKET_HAS_SSE2) ||
      (Arch == packet::kAVX2 && MSHADOW_PACKET_HAS_AVX2) ||
      (Arch == packet::kAVX512 && MSHADOW_PACKET_HAS_AVX512);
};

template <typename E, PacketArch Arch>
struct PacketCheck {
  static constexpr bool kPass = false;
};
template <PacketArch Arch>
struct PacketCheck<float, Arch> {
  static constexpr bool kPass = PacketArchAvailable<Arch>::value;
};
template <PacketArch Arch>
struct PacketCheck<double, Arch> {
  static constexpr bool kPass = PacketArchAvailable<Arch>::value;
};
template <typename DType, PacketArch Arch>
struct PacketCheck<ScalarExp<DType>, Arch> {
  static constexpr bool kPass = PacketCheck<DType, Arch>::kPass;
};
template <int dim, typename DType, PacketArch Arch>
struct PacketCheck<Tensor<cpu, dim, DType>, Arch> {
  static constexpr bool kPass = PacketCheck<DType, Arch>::kPass;
};
template <typename OP, typename TA, typename DType, int etype, PacketArch Arch>
struct PacketCheck<UnaryMapExp<OP, TA, DType, etype>, Arch> {
  static constexpr bool kPass =
      PacketCheck<TA, Arch>::kPass && packet::PacketOp<OP, DType, Arch>::kEnabled;
};
template <typename OP, typename TA, typename TB, typename DType, int etype, PacketArch Arch>
struct PacketCheck<BinaryMapExp<OP, TA, TB, DType, etype>, Arch> {
  static constexpr bool kPass = packet::PacketOp<OP, DType, Arch>::kEnabled &&
                                PacketCheck<TA, Arch>::kPass && PacketCheck<TB, Arch>::kPass;
};
template <typename OP, typename TA, typename TB, typename TC, typename DType, int etype,
          PacketArch Arch>
struct PacketCheck<TernaryMapExp<OP, TA, TB, TC, DType, etype>, Arch> {
  static constexpr bool kPass = packet::PacketOp<OP, DType, Arch>::kEnabled &&
                                PacketCheck<TA, Arch>::kPass && PacketCheck<TB, Arch>::kPass &&
                                PacketCheck<TC, Arch>::kPass;
};

// ---- PacketAlignCheck: whether every tensor's rows start on Arch-aligned addresses.

template <int dim, typename E, PacketArch Arch>
struct PacketAlignCheck {
  static bool Check(const E&) { return false; }
};
template <int dim, typename DType, PacketArch Arch>
struct PacketAlignCheck<dim, ScalarExp<DType>, Arch> {
  static bool Check(const ScalarExp<DType>&) { return true; }
};
template <int dim, typename DType, PacketArch Arch>
struct PacketAlignCheck<dim, Tensor<cpu, dim, DType>, Arch> {
  static bool Check(const Tensor<cpu, dim, DType>& t) {
    return packet::CheckAlign<Arch>(const_cast<DType*>(t.dptr_)) &&
           packet::CheckAlign<Arch>(static_cast<size_t>(t.stride_) * sizeof(DType));
  }
};
template <int dim, typename OP, typename TA, typename DType, int etype, PacketArch Arch>
struct PacketAlignCheck<dim, UnaryMapExp<OP, TA, DType, etype>, Arch> {
  static bool Check(const UnaryMapExp<OP, TA, DType, etype>& t) {
    return PacketAlignCheck<dim, TA, Arch>::Check(t.src_);
  }
};
template <int dim, typename OP, typename TA, typename TB, typename DType, int etype,
          PacketArch Arch>
struct PacketAlignCheck<dim, BinaryMapExp<OP, TA, TB, DType, etype>, Arch> {
  static bool Check(const BinaryMapExp<OP, TA, TB, DType, etype>& t) {
    return PacketAlignCheck<dim, TA, Arch>::Check(t.lhs_) &&
           PacketAlignCheck<dim, TB, Arch>::Check(t.rhs_);
  }
};

}  // namespace expr
}  // namespace mshadow

#endif  // MSHADOW_EXPR_PACKET_PLAN_H_
