// ops/dropout-inl.h: Dropout and its backward operator, written once for every device, with
// MXNet 1.9.1's semantics: in training (or with mode=always) each element is kept with
// probability 1 - p and scaled by 1 / (1 - p), otherwise the data passes unchanged. The mask
// (uint8, 1 where the element is kept) is a second, hidden output that the backward operator
// reads: a byte rather than a value per element, so the backward pass moves a third less
// memory (MXNet keeps a bit per element). As in MXNet, the backward pass scales by
// 1 / (1 - p) when its own call drops (training or mode=always), and is the identity otherwise.
// With `axes`, one draw is shared along those axes (variational dropout).
//
// The draws come from the random resource (ops/random_source.h): element j of the mask's own
// shape (broadcast axes collapsed) takes word j % 4 of Philox block counter + j / 4, so the
// mask depends only on the seed and the call order, never on threads or the device.
// dropout.cc registers the CPU, dropout.cu adds FCompute<gpu>.
#ifndef OPS_DROPOUT_INL_H_
#define OPS_DROPOUT_INL_H_

#include <sstream>
#include <type_traits>
#include <vector>

#include "mshadow/cpu/philox_lanes.h"
#include "mshadow/philox.h"
#include "mshadow/tensor.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"
#include "ops/vector_loop.h"

namespace ops {
namespace dropout {

enum Mode { kTraining = 0, kAlways = 1 };

struct DropoutParam : public dmlc::Parameter<DropoutParam> {
  float p;
  int mode;
  TShape axes;
  dmlc::optional<bool> cudnn_off;
  DMLC_DECLARE_PARAMETER(DropoutParam) {
    DMLC_DECLARE_FIELD(p).set_default(0.5f).set_range(0.0f, 1.0f).describe(
        "Fraction of the elements dropped in training.");
    DMLC_DECLARE_FIELD(mode)
        .add_enum("training", kTraining)
        .add_enum("always", kAlways)
        .set_default(kTraining)
        .describe("training: drop only when is_train; always: at inference too.");
    DMLC_DECLARE_FIELD(axes).set_default(TShape()).describe(
        "Axes along which one draw is shared (variational dropout).");
    DMLC_DECLARE_FIELD(cudnn_off).set_default(dmlc::optional<bool>()).describe(
        "Accepted for MXNet compatibility; ignored.");
  }
};

// Maps an element's flat index to its index in the mask's own shape (the data's with the
// shared axes collapsed to 1). At most kMaxDims axes.
struct SharedAxes {
  static constexpr int kMaxDims = 8;
  int ndim = 0;
  index_t extent[kMaxDims] = {};
  index_t draw_stride[kMaxDims] = {};  // 0 on shared axes

  MSHADOW_XINLINE index_t DrawIndex(index_t i) const {
    index_t draw = 0;
    for (int a = ndim - 1; a >= 0; --a) {
      draw += (i % extent[a]) * draw_stride[a];
      i /= extent[a];
    }
    return draw;
  }
};

// The shared-axes map for `data`; an axis out of range is a dmlc::Error.
inline SharedAxes SharedAxesOf(const TShape& axes, const TShape& data) {
  const int nd = static_cast<int>(data.ndim());
  if (nd > SharedAxes::kMaxDims) {
    std::ostringstream os;
    os << "Dropout with axes takes data of rank at most " << SharedAxes::kMaxDims << ", given "
       << data;
    throw dmlc::Error(os.str());
  }
  SharedAxes s;
  s.ndim = nd;
  bool shared[SharedAxes::kMaxDims] = {};
  for (int k = 0; k < axes.ndim(); ++k) shared[NormalizeAxis(axes[k], nd, "axes")] = true;
  index_t stride = 1;
  for (int a = nd - 1; a >= 0; --a) {
    s.extent[a] = data[a];
    s.draw_stride[a] = shared[a] ? 0 : stride;
    if (!shared[a]) stride *= data[a];
  }
  return s;
}

// Whether draw j keeps its element: the uniform word j % 4 of block counter + j / 4 is below
// 1 - p.
MSHADOW_XINLINE bool Keeps(PhiloxRange range, index_t j, float keep_probability) {
  const mshadow::PhiloxBlock block = mshadow::Philox4x32(
      mshadow::PhiloxKeyFromSeed(range.seed), range.counter + static_cast<uint64_t>(j) / 4);
  return mshadow::UnitFloat(block.w[j % 4]) < keep_probability;
}

// Element i kept (mask 1, x * scale) or dropped (mask 0, 0) as `keep` says; out written as
// kReq says. No branch: the draws are random.
template <int kReq, typename DType>
MSHADOW_XINLINE void DropElement(index_t i, bool keep, DType scale, const DType* x, DType* out,
                                 uint8_t* mask) {
  mask[i] = keep;
  AssignReq<kReq>(out + i, x[i] * (scale * DType(keep)));
}

// Item b: elements 4b .. 4b + 3 (one Philox block), without shared axes.
template <int kReq>
struct DropoutBlock {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t b, index_t n, PhiloxRange range,
                                  float keep_probability, DType scale, const DType* x,
                                  DType* out, uint8_t* mask) {
    const mshadow::PhiloxBlock block = mshadow::Philox4x32(
        mshadow::PhiloxKeyFromSeed(range.seed), range.counter + static_cast<uint64_t>(b));
    for (int k = 0; k < 4; ++k) {
      const index_t i = 4 * b + k;
      if (i >= n) return;
      DropElement<kReq>(i, mshadow::UnitFloat(block.w[k]) < keep_probability, scale, x, out,
                        mask);
    }
  }
};

// CPU item: the whole blocks [r * kBlocks, (r + 1) * kBlocks) of DropoutBlock without a bound
// check per element, kPhiloxLaneBlocks blocks' words at a time from SIMD lanes
// (mshadow/cpu/philox_lanes.h), their 4 * kPhiloxLaneBlocks elements then in one loop the
// compiler vectorizes; the last item also takes the blocks left and a partial last block.
template <int kReq>
struct DropoutRun {
  static constexpr index_t kBlocks = 1024;
  static_assert(kBlocks % mshadow::kPhiloxLaneBlocks == 0, "items of whole lane runs");
  template <typename DType>
  static void Map(index_t r, index_t n, PhiloxRange range, float keep_probability, DType scale,
                  const DType* __restrict__ x, DType* __restrict__ out,
                  uint8_t* __restrict__ mask) {
    constexpr index_t kLaneBlocks = mshadow::kPhiloxLaneBlocks;
    const index_t whole = n / 4;
    const index_t begin = r * kBlocks;
    const index_t end = begin + kBlocks < whole ? begin + kBlocks : whole;
    const mshadow::PhiloxKey key = mshadow::PhiloxKeyFromSeed(range.seed);
    mshadow::PhiloxLaneWords words;
    alignas(64) uint8_t keeps[4 * kLaneBlocks];
    index_t b = begin;
    for (; b + kLaneBlocks <= end; b += kLaneBlocks) {
      mshadow::PhiloxLanes(key, range.counter + static_cast<uint64_t>(b), 0, &words);
      // Element 4j + k of the run takes word k of block j.
      for (int k = 0; k < 4; ++k) {
        OPS_SIMD_LOOP
        for (int j = 0; j < kLaneBlocks; ++j) {
          keeps[4 * j + k] = mshadow::UnitFloat(words.w[k][j]) < keep_probability;
        }
      }
      const index_t first = 4 * b;
      OPS_SIMD_LOOP
      for (index_t e = 0; e < 4 * kLaneBlocks; ++e) {
        mask[first + e] = keeps[e];
        AssignReq<kReq>(out + first + e, x[first + e] * (scale * DType(keeps[e])));
      }
    }
    for (; b < end; ++b) {
      DropoutBlock<kReq>::Map(b, n, range, keep_probability, scale, x, out, mask);
    }
    if (r == whole / kBlocks && whole * 4 < n) {
      DropoutBlock<kReq>::Map(whole, n, range, keep_probability, scale, x, out, mask);
    }
  }
};

// Item i: element i, its draw shared along the shared axes.
template <int kReq>
struct DropoutShared {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, SharedAxes axes, PhiloxRange range,
                                  float keep_probability, DType scale, const DType* x,
                                  DType* out, uint8_t* mask) {
    DropElement<kReq>(i, Keeps(range, axes.DrawIndex(i), keep_probability), scale, x, out, mask);
  }
};

// out = x (written as kReq says) and mask = 1: dropout off.
template <int kReq>
struct DropoutPass {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, const DType* x, DType* out, uint8_t* mask) {
    mask[i] = 1;
    AssignReq<kReq>(out + i, x[i]);
  }
};

inline bool Drops(const DropoutParam& param, const OpContext& ctx) {
  return (ctx.is_train || param.mode == kAlways) && param.p > 0;
}

// Inputs: data. Outputs: out, mask (hidden; always written: the backward operator reads it).
template <typename xpu>
void DropoutCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const DropoutParam& param = GetParam<DropoutParam>(attrs);
  mshadow::Stream<xpu>* stream = ctx.get_stream<xpu>();
  const index_t n = static_cast<index_t>(in[0].Size());
  const float keep = 1.0f - param.p;
  MSHADOW_SGL_DBL_TYPE_SWITCH(in[0].type_flag_, DType, {
    const DType* x = in[0].dptr<DType>();
    DType* y = out[0].dptr<DType>();
    uint8_t* mask = out[1].dptr<uint8_t>();
    const DType scale = keep > 0 ? DType(1) / DType(keep) : DType(0);
    WithReqMode(req[0], [&](auto mode) {  // the mask is written whatever req[0] says
      constexpr int kReq = decltype(mode)::value;
      if (!Drops(param, ctx)) {
        Kernel<DropoutPass<kReq>, xpu>::Launch(stream, n, x, y, mask);
      } else if (param.axes.ndim() == 0) {
        const index_t blocks = (n + 3) / 4;
        const PhiloxRange range = ctx.requested[0].TakeRandom(blocks);
        if constexpr (std::is_same_v<xpu, cpu>) {
          constexpr index_t kBlocks = DropoutRun<kReq>::kBlocks;
          Kernel<DropoutRun<kReq>, cpu>::LaunchItems(stream, n / 4 / kBlocks + 1,
                                                     kBlocks * 64, n, range, keep, scale, x, y,
                                                     mask);
        } else {
          Kernel<DropoutBlock<kReq>, xpu>::LaunchItems(stream, blocks, 64, n, range, keep, scale,
                                                       x, y, mask);
        }
      } else {
        const SharedAxes axes = SharedAxesOf(param.axes, in[0].shape_);
        index_t draws = 1;
        for (int a = 0; a < axes.ndim; ++a) draws *= axes.draw_stride[a] != 0 ? axes.extent[a] : 1;
        const PhiloxRange range = ctx.requested[0].TakeRandom((draws + 3) / 4);
        Kernel<DropoutShared<kReq>, xpu>::LaunchItems(stream, n, 16, axes, range, keep, scale, x,
                                                      y, mask);
      }
    });
  });
}

// dx[i] = dy[i] * scale where the mask keeps element i, else 0 (written as kReq says).
template <int kReq>
struct DropoutGradient {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, const DType* dy, const uint8_t* mask, DType scale,
                                  DType* dx) {
    AssignReq<kReq>(dx + i, dy[i] * (scale * DType(mask[i])));  // no branch: masks are random
  }
};

// CPU item: elements [b * kRun, (b + 1) * kRun) of DropoutGradient, one vectorized loop.
template <int kReq>
struct DropoutGradientRun {
  static constexpr index_t kRun = 4096;
  template <typename DType>
  static void Map(index_t b, index_t n, const DType* __restrict__ dy,
                  const uint8_t* __restrict__ mask, DType scale, DType* __restrict__ dx) {
    const index_t begin = b * kRun, end = begin + kRun < n ? begin + kRun : n;
    OPS_SIMD_LOOP
    for (index_t i = begin; i < end; ++i) {
      const DType g = dy[i] * (scale * DType(mask[i]));
      dx[i] = kReq == kAddTo ? dx[i] + g : g;
    }
  }
};

// Inputs: the gradients of out and mask, out, mask. Output: data_grad.
template <typename xpu>
void DropoutBackwardCompute(const NodeAttrs& attrs, const OpContext& ctx,
                            const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                            const std::vector<TBlob>& out) {
  const DropoutParam& param = GetParam<DropoutParam>(attrs);
  mshadow::Stream<xpu>* stream = ctx.get_stream<xpu>();
  const index_t n = static_cast<index_t>(out[0].Size());
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    if (!Drops(param, ctx)) {
      Assign(Flat<xpu, DType>(out[0], stream), req[0],
             mshadow::expr::F<mshadow::op::identity>(Flat<xpu, DType>(in[0], stream)));
      return;
    }
    const float keep = 1.0f - param.p;
    const DType scale = keep > 0 ? DType(1) / DType(keep) : DType(0);
    OPS_REQ_SWITCH(req[0], Req, {
      if constexpr (std::is_same_v<xpu, cpu>) {
        constexpr index_t kRun = DropoutGradientRun<Req>::kRun;
        Kernel<DropoutGradientRun<Req>, cpu>::LaunchItems(
            stream, (n + kRun - 1) / kRun, kRun, n, in[0].dptr<DType>(), in[3].dptr<uint8_t>(),
            scale, out[0].dptr<DType>());
      } else {
        Kernel<DropoutGradient<Req>, xpu>::Launch(stream, n, in[0].dptr<DType>(),
                                                  in[3].dptr<uint8_t>(), scale,
                                                  out[0].dptr<DType>());
      }
    });
  });
}

// Adds FCompute<xpu> to Dropout and _backward_Dropout.
template <typename xpu>
void SetDropoutCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("Dropout").set_attr<FCompute>(attr_name, FCompute(DropoutCompute<xpu>));
  RegisterOp("_backward_Dropout")
      .set_attr<FCompute>(attr_name, FCompute(DropoutBackwardCompute<xpu>));
}

}  // namespace dropout
}  // namespace ops

#endif  // OPS_DROPOUT_INL_H_
