// ops/creation-inl.h: the operators that make an array from their parameters alone, with
// MXNet 1.9.1's names and semantics: _zeros, _ones, _full (value), _arange (start, stop, step,
// repeat), _eye (N, M, k) and _linspace (start, stop, num, endpoint), in any of the library's
// types (dtype), written once for every device: each output element is a function of its
// index. `ctx` is accepted and ignored (the host places the output). creation.cc registers
// them with FCompute<cpu>; creation.cu adds FCompute<gpu>.
#ifndef OPS_CREATION_INL_H_
#define OPS_CREATION_INL_H_

#include <cmath>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"

namespace ops {
namespace creation {

// dtype and ctx, the fields every creation operator has.
#define OPS_CREATION_DTYPE_AND_CTX_FIELDS                               \
  DMLC_DECLARE_FIELD(ctx).set_default("").describe(                     \
      "Accepted for MXNet compatibility; the host places the output."); \
  DMLC_DECLARE_FIELD(dtype)                                             \
      .add_enum("float32", mshadow::kFloat32)                           \
      .add_enum("float64", mshadow::kFloat64)                           \
      .add_enum("float16", mshadow::kFloat16)                           \
      .add_enum("bfloat16", mshadow::kBfloat16)                         \
      .add_enum("uint8", mshadow::kUint8)                               \
      .add_enum("int8", mshadow::kInt8)                                 \
      .add_enum("int32", mshadow::kInt32)                               \
      .add_enum("int64", mshadow::kInt64)                               \
      .add_enum("bool", mshadow::kBool)                                 \
      .set_default(mshadow::kFloat32)                                   \
      .describe("The output's type.")

struct InitParam : public dmlc::Parameter<InitParam> {
  TShape shape;
  std::string ctx;
  int dtype;
  DMLC_DECLARE_PARAMETER(InitParam) {
    DMLC_DECLARE_FIELD(shape).set_default(TShape()).describe("The output's shape.");
    OPS_CREATION_DTYPE_AND_CTX_FIELDS;
  }
};

struct FullParam : public dmlc::Parameter<FullParam> {
  TShape shape;
  double value;
  std::string ctx;
  int dtype;
  DMLC_DECLARE_PARAMETER(FullParam) {
    DMLC_DECLARE_FIELD(shape).set_default(TShape()).describe("The output's shape.");
    DMLC_DECLARE_FIELD(value).describe("Every element's value.");
    OPS_CREATION_DTYPE_AND_CTX_FIELDS;
  }
};

struct ArangeParam : public dmlc::Parameter<ArangeParam> {
  double start;
  dmlc::optional<double> stop;
  double step;
  int repeat;
  bool infer_range;
  std::string ctx;
  int dtype;
  DMLC_DECLARE_PARAMETER(ArangeParam) {
    DMLC_DECLARE_FIELD(start).describe("The first value (the end, from 0, when stop is None).");
    DMLC_DECLARE_FIELD(stop)
        .set_default(dmlc::optional<double>())
        .describe("The end, not included.");
    DMLC_DECLARE_FIELD(step).set_default(1.0).describe("The spacing (nonzero).");
    DMLC_DECLARE_FIELD(repeat).set_default(1).set_lower_bound(1).describe(
        "How many times each value repeats.");
    DMLC_DECLARE_FIELD(infer_range)
        .set_default(false)
        .describe("Accepted for MXNet compatibility; the range is always the parameters'.");
    OPS_CREATION_DTYPE_AND_CTX_FIELDS;
  }
};

struct EyeParam : public dmlc::Parameter<EyeParam> {
  int64_t N;
  int64_t M;
  int64_t k;
  std::string ctx;
  int dtype;
  DMLC_DECLARE_PARAMETER(EyeParam) {
    DMLC_DECLARE_FIELD(N).set_lower_bound(1).describe("Rows.");
    DMLC_DECLARE_FIELD(M).set_default(0).set_lower_bound(0).describe("Columns (0: N).");
    DMLC_DECLARE_FIELD(k).set_default(0).describe(
        "The diagonal of ones: 0 the main one, k > 0 above it, k < 0 below it.");
    OPS_CREATION_DTYPE_AND_CTX_FIELDS;
  }
};

struct LinspaceParam : public dmlc::Parameter<LinspaceParam> {
  double start;
  double stop;
  int num;
  bool endpoint;
  std::string ctx;
  int dtype;
  DMLC_DECLARE_PARAMETER(LinspaceParam) {
    DMLC_DECLARE_FIELD(start).describe("The first value.");
    DMLC_DECLARE_FIELD(stop).describe("The last value (with endpoint), or the end.");
    DMLC_DECLARE_FIELD(num).set_lower_bound(1).describe("How many values.");
    DMLC_DECLARE_FIELD(endpoint).set_default(true).describe("Whether stop is the last value.");
    OPS_CREATION_DTYPE_AND_CTX_FIELDS;
  }
};

#undef OPS_CREATION_DTYPE_AND_CTX_FIELDS

// The values of each operator as a function of the index: value(i) in double, converted to
// the output's type as MXNet does (for _arange, in the output's type: see arange_value).
struct fill_value {
  template <int kReq, typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* out, double value) {
    AssignReq<kReq>(out + i, static_cast<DType>(value));
  }
};

// MXNet computes start + (i / repeat) * step in the output's type (so float32 gives
// 0.3 * 3 = 0.90000004), from start and step converted to it. Without repeats, no division:
// one an element had been most of the time.
struct arange_value {
  template <int kReq, typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* out, DType start, DType step) {
    AssignReq<kReq>(out + i, static_cast<DType>(start + static_cast<DType>(i) * step));
  }
};

struct repeated_arange_value {
  template <int kReq, typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* out, DType start, DType step, index_t repeat) {
    AssignReq<kReq>(out + i, static_cast<DType>(start + static_cast<DType>(i / repeat) * step));
  }
};

struct eye_value {
  template <int kReq, typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* out, index_t columns, index_t k) {
    AssignReq<kReq>(out + i, static_cast<DType>(i % columns - i / columns == k ? 1 : 0));
  }
};

struct linspace_value {
  template <int kReq, typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* out, double start, double step) {
    AssignReq<kReq>(out + i, static_cast<DType>(start + step * static_cast<double>(i)));
  }
};

// A value functor as a kernel of one write mode. Each item is a function of its index alone,
// with no branch that differs between items: the CPU runs them in SIMD lanes.
template <typename OP, int kReq>
struct launched {
  static constexpr bool kSimdItems = true;
  template <typename DType, typename... Args>
  MSHADOW_XINLINE static void Map(index_t i, DType* out, Args... args) {
    OP::template Map<kReq, DType>(i, out, args...);
  }
};

// Kernel<launched<OP, kReq>> over the output, in its type and write mode, with the arguments
// make_args(DType()) returns as a tuple.
template <typename xpu, typename OP, typename MakeArgs>
void LaunchValues(const OpContext& ctx, OpReqType req, const TBlob& out, MakeArgs make_args) {
  MSHADOW_TYPE_SWITCH_EXT_WITH_BOOL(out.type_flag_, DType, {
    OPS_REQ_SWITCH(req, kReq, {
      std::apply(
          [&](auto... args) {
            Kernel<launched<OP, kReq>, xpu>::Launch(ctx.get_stream<xpu>(), out.Size(),
                                                    out.dptr<DType>(), args...);
          },
          make_args(DType()));
    });
  });
}

// The values _arange's parameters give and how many (an empty or endless range, a zero
// step: dmlc::Error naming them, as MXNet).
struct ArangeRange {
  double start, step;
  index_t count;
};
ArangeRange RangeOf(const ArangeParam& param);

// linspace's spacing.
inline double LinspaceStep(const LinspaceParam& p) {
  const int intervals = p.endpoint ? p.num - 1 : p.num;
  return intervals > 0 ? (p.stop - p.start) / intervals : 0.0;
}

template <typename xpu, int kValue>
void ConstantCompute(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>&,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  LaunchValues<xpu, fill_value>(ctx, req[0], out[0],
                                [](auto) { return std::make_tuple(static_cast<double>(kValue)); });
}

template <typename xpu>
void FullCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>&,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const double value = GetParam<FullParam>(attrs).value;
  LaunchValues<xpu, fill_value>(ctx, req[0], out[0], [&](auto) { return std::make_tuple(value); });
}

template <typename xpu>
void ArangeCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>&,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const ArangeParam& param = GetParam<ArangeParam>(attrs);
  const ArangeRange range = RangeOf(param);
  const index_t repeat = param.repeat;
  if (repeat == 1) {
    LaunchValues<xpu, arange_value>(ctx, req[0], out[0], [&](auto tag) {
      using DType = decltype(tag);
      return std::make_tuple(static_cast<DType>(range.start), static_cast<DType>(range.step));
    });
    return;
  }
  LaunchValues<xpu, repeated_arange_value>(ctx, req[0], out[0], [&](auto tag) {
    using DType = decltype(tag);
    return std::make_tuple(static_cast<DType>(range.start), static_cast<DType>(range.step), repeat);
  });
}

template <typename xpu>
void EyeCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>&,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const EyeParam& param = GetParam<EyeParam>(attrs);
  const index_t columns = out[0].shape_[1], k = param.k;
  LaunchValues<xpu, eye_value>(ctx, req[0], out[0],
                               [&](auto) { return std::make_tuple(columns, k); });
}

template <typename xpu>
void LinspaceCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>&,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const LinspaceParam& param = GetParam<LinspaceParam>(attrs);
  const double start = param.start, step = LinspaceStep(param);
  LaunchValues<xpu, linspace_value>(ctx, req[0], out[0],
                                    [&](auto) { return std::make_tuple(start, step); });
}

// Adds FCompute<xpu> to every creation operator.
template <typename xpu>
void SetCreationCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("_zeros").set_attr<FCompute>(attr_name, FCompute(ConstantCompute<xpu, 0>));
  RegisterOp("_ones").set_attr<FCompute>(attr_name, FCompute(ConstantCompute<xpu, 1>));
  RegisterOp("_full").set_attr<FCompute>(attr_name, FCompute(FullCompute<xpu>));
  RegisterOp("_arange").set_attr<FCompute>(attr_name, FCompute(ArangeCompute<xpu>));
  RegisterOp("_eye").set_attr<FCompute>(attr_name, FCompute(EyeCompute<xpu>));
  RegisterOp("_linspace").set_attr<FCompute>(attr_name, FCompute(LinspaceCompute<xpu>));
}

}  // namespace creation
}  // namespace ops

#endif  // OPS_CREATION_INL_H_
