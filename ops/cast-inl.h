// ops/cast-inl.h: Cast(dtype), and amp_cast and amp_multicast (the casts MXNet's automatic
// mixed precision inserts, which convert only floating-point arrays), with their backward
// operators (the same conversion, back to the inputs' types), written once for every device.
// cast.cc registers them with FCompute<cpu>, cast.cu adds FCompute<gpu>.
#ifndef OPS_CAST_INL_H_
#define OPS_CAST_INL_H_

#include <algorithm>
#include <limits>
#include <type_traits>
#include <vector>

#include "mshadow/streaming_stores.h"
#include "mshadow/tensor.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"
#include "ops/vector_loop.h"

namespace ops {
namespace cast {

struct CastParam : public dmlc::Parameter<CastParam> {
  int dtype;
  DMLC_DECLARE_PARAMETER(CastParam) {
    DMLC_DECLARE_FIELD(dtype)
        .add_enum("float32", mshadow::kFloat32)
        .add_enum("float64", mshadow::kFloat64)
        .add_enum("float16", mshadow::kFloat16)
        .add_enum("uint8", mshadow::kUint8)
        .add_enum("int32", mshadow::kInt32)
        .add_enum("int8", mshadow::kInt8)
        .add_enum("int64", mshadow::kInt64)
        .add_enum("bool", mshadow::kBool)
        .add_enum("bfloat16", mshadow::kBfloat16)
        .describe("The type to convert to.");
  }
};

struct AmpMultiCastParam : public dmlc::Parameter<AmpMultiCastParam> {
  int num_outputs;
  bool cast_narrow;
  DMLC_DECLARE_PARAMETER(AmpMultiCastParam) {
    DMLC_DECLARE_FIELD(num_outputs)
        .set_lower_bound(1)
        .describe("The number of inputs (and outputs).");
    DMLC_DECLARE_FIELD(cast_narrow)
        .set_default(false)
        .describe(
            "Cast to the narrowest floating-point type among the inputs instead of the widest.");
  }
};

// One element converted to Dst. Floating point to integer saturates to the integer type's
// range and maps NaN to 0, where C++ would leave the result undefined. To bool is "not zero"
// (NaN is true), as NumPy and MXNet.
template <typename Dst>
struct convert_to {
  template <typename Src>
  MSHADOW_XINLINE static Dst Map(Src value) {
    if constexpr (std::is_same_v<Dst, bool>) {
      return !(static_cast<double>(value) == 0.0);
    } else if constexpr (std::is_integral_v<Dst> && !std::is_integral_v<Src>) {
      const double v = static_cast<double>(value);
      if (v != v) return Dst(0);
      if (v <= static_cast<double>(std::numeric_limits<Dst>::lowest())) {
        return std::numeric_limits<Dst>::lowest();
      }
      if (v >= static_cast<double>(std::numeric_limits<Dst>::max())) {
        return std::numeric_limits<Dst>::max();
      }
      return static_cast<Dst>(v);
    } else if constexpr (std::is_arithmetic_v<Src>) {
      return static_cast<Dst>(value);
    } else {  // half_t or bf16_t: one to the other only through float
      return static_cast<Dst>(static_cast<float>(value));
    }
  }
};

// Between float16 and float32 the CPU converts a packet at a time (mshadow/half.h), ranges of
// the elements on the engine's threads; one element at a time, float16 to float32 had run at
// a third of MXNet's speed. False for other types and write modes.
template <typename SrcType, typename DstType>
bool CastHalfOnCpu(const TBlob& in, OpReqType req, const TBlob& out) {
  using mshadow::half::half_t;
  constexpr bool kToFloat = std::is_same_v<SrcType, half_t> && std::is_same_v<DstType, float>;
  constexpr bool kToHalf = std::is_same_v<SrcType, float> && std::is_same_v<DstType, half_t>;
  if constexpr (kToFloat || kToHalf) {
    if (req != kWriteTo && req != kWriteInplace) return false;
    const SrcType* from = in.dptr<SrcType>();
    DstType* to = out.dptr<DstType>();
    ParallelRows(out.Size(), 1, [&](index_t begin, index_t end) {
      if constexpr (kToFloat) {
        mshadow::half::HalfToFloat(from + begin, to + begin, end - begin);
      } else {
        mshadow::half::FloatToHalf(from + begin, to + begin, end - begin);
      }
    });
    return true;
  }
  return false;
}

// A conversion whose output is large against the last-level cache (StreamsCopyOf, the
// engine's rule for its maps) goes on the CPU a block at a time: converted into a buffer in
// the L1 cache, then written out by streaming stores, which skip reading each output line in
// before writing it (float32 -> float64 of 4M elements 1.7x faster). Output types of 4 or 8
// bytes (packets of floats move them), write modes that overwrite; false otherwise.
template <typename SrcType, typename DstType>
bool CastStreamingOnCpu(const TBlob& in, OpReqType req, const TBlob& out) {
  if constexpr (sizeof(DstType) % sizeof(float) != 0 || std::is_same_v<SrcType, DstType>) {
    return false;
  } else {
    const index_t n = out.Size();
    if ((req != kWriteTo && req != kWriteInplace) || !StreamsCopyOf(n * sizeof(DstType))) {
      return false;
    }
    constexpr index_t kBlock = 2048 / sizeof(DstType);  // 2 KiB of output a block
    const SrcType* from = in.dptr<SrcType>();
    DstType* to = out.dptr<DstType>();
    // Whole blocks per range, so that every block starts where the output's alignment does.
    ParallelRows((n + kBlock - 1) / kBlock, kBlock, [&](index_t first, index_t last) {
      alignas(64) DstType block[kBlock];
      for (index_t start = first * kBlock; start < std::min(last * kBlock, n); start += kBlock) {
        const index_t count = std::min(kBlock, n - start);
        OPS_SIMD_LOOP
        for (index_t i = 0; i < count; ++i) {
          block[i] = convert_to<DstType>::Map(from[start + i]);
        }
        StreamRun(to + start, block, count);
      }
    });
    mshadow::FenceStreamingStores();  // this thread's blocks (ParallelFor fences its workers)
    return true;
  }
}

// out[i] = in[i] converted to the output's type, for any pair of types, bool and bfloat16
// included.
template <typename xpu>
void CastCompute(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  MSHADOW_TYPE_SWITCH_EXT_WITH_BOOL(in[0].type_flag_, SrcType, {
    MSHADOW_TYPE_SWITCH_EXT_WITH_BOOL(out[0].type_flag_, DstType, {
      if constexpr (std::is_same_v<xpu, cpu>) {
        if (CastHalfOnCpu<SrcType, DstType>(in[0], req[0], out[0])) return;
        if (CastStreamingOnCpu<SrcType, DstType>(in[0], req[0], out[0])) return;
      }
      OPS_REQ_SWITCH(req[0], Req, {
        Kernel<op_with_req<convert_to<DstType>, Req>, xpu>::Launch(
            s, out[0].Size(), out[0].dptr<DstType>(), in[0].dptr<SrcType>());
      });
    });
  });
}

// Every input converted to its output's type (amp_multicast and its gradient).
template <typename xpu>
void CastEachCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  for (size_t i = 0; i < in.size(); ++i) CastCompute<xpu>(attrs, ctx, {in[i]}, {req[i]}, {out[i]});
}

// Adds FCompute<xpu> to Cast, amp_cast, amp_multicast and their backward operators.
template <typename xpu>
void SetCastCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  for (const char* name : {"Cast", "_backward_Cast", "amp_cast", "_backward_amp_cast"}) {
    RegisterOp(name).set_attr<FCompute>(attr_name, FCompute(CastCompute<xpu>));
  }
  for (const char* name : {"amp_multicast", "_backward_amp_multicast"}) {
    RegisterOp(name).set_attr<FCompute>(attr_name, FCompute(CastEachCompute<xpu>));
  }
}

}  // namespace cast
}  // namespace ops

#endif  // OPS_CAST_INL_H_
