// ops/softmax-inl.h: what the CPU (softmax.cc) and GPU (softmax.cu) kernels of softmax and
// log_softmax share: the parameter, the type they compute in, the (outer, n, inner) view
// around the axis, and softmax's masked form (use_length).
#ifndef OPS_SOFTMAX_INL_H_
#define OPS_SOFTMAX_INL_H_

#include <cmath>
#include <vector>

#include "ops/axis_view.h"
#include "ops/converted_compute.h"
#include "ops/index_type.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"

namespace ops {
namespace softmax {

struct SoftmaxParam : public dmlc::Parameter<SoftmaxParam> {
  int axis;
  dmlc::optional<double> temperature;
  bool use_length;
  dmlc::optional<int> dtype;
  DMLC_DECLARE_PARAMETER(SoftmaxParam) {
    DMLC_DECLARE_FIELD(axis).set_default(-1).describe("The axis to normalize along.");
    DMLC_DECLARE_FIELD(temperature)
        .set_default(dmlc::optional<double>())
        .describe("Divides the input by this first; None means 1.");
    DMLC_DECLARE_FIELD(use_length)
        .set_default(false)
        .describe(
            "softmax only: a second input, length (the data's shape without the axis; int32, "
            "int64, or, beyond MXNet, float32/float64 truncated), gives each line's valid "
            "prefix; the rest of the line is 0.");
    DMLC_DECLARE_FIELD(dtype)
        .add_enum("float16", mshadow::kFloat16)
        .add_enum("float32", mshadow::kFloat32)
        .add_enum("float64", mshadow::kFloat64)
        .add_enum("bfloat16", mshadow::kBfloat16)
        .set_default(dmlc::optional<int>())
        .describe("The output's type; None means the data's (bfloat16 beyond MXNet).");
  }
};

// The type the kernels compute in: float64 when the data or the output is float64, float32
// otherwise (float16 and bfloat16 data or outputs are converted: a 16-bit sum of
// exponentials would lose most of its digits).
inline int ComputeType(int data_type, int output_type) {
  return data_type == mshadow::kFloat64 || output_type == mshadow::kFloat64 ? mshadow::kFloat64
                                                                            : mshadow::kFloat32;
}

// A kernel function for blobs of one type (float32 or float64).
using ComputeFn = void(const NodeAttrs&, const OpContext&, const std::vector<TBlob>&,
                       const std::vector<OpReqType>&, const std::vector<TBlob>&);

// The registered forward function: kCompute in the compute type, from data (and length) to
// the output.
template <typename xpu, ComputeFn* kCompute>
void ForwardInComputeType(const NodeAttrs& attrs, const OpContext& ctx,
                          const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                          const std::vector<TBlob>& out) {
  ComputeConverted<xpu>(ComputeType(in[0].type_flag_, out[0].type_flag_), 1, 1, kCompute, attrs,
                        ctx, in, req, out);
}

// The registered backward function: from out_grad and output (the output's type) to
// data_grad (the data's type).
template <typename xpu, ComputeFn* kCompute>
void BackwardInComputeType(const NodeAttrs& attrs, const OpContext& ctx,
                           const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                           const std::vector<TBlob>& out) {
  ComputeConverted<xpu>(ComputeType(out[0].type_flag_, in[0].type_flag_), 2, 1, kCompute, attrs,
                        ctx, in, req, out);
}

// A line's valid length, truncated and clamped to [0, n] (a length past the axis is the
// whole line, as MXNet; a negative one or NaN is none).
template <typename LType>
MSHADOW_XINLINE index_t ClampedLength(LType length, index_t n) {
  const double l = static_cast<double>(length);
  if (!(l > 0)) return 0;
  return l >= static_cast<double>(n) ? n : static_cast<index_t>(l);
}

// Item l (outer index l / inner, column l % inner): softmax of the line's first length[l]
// elements (`inner` apart), 0 after them. Any device; the CPU takes it for lines along an
// axis other than the last.
template <int kReq>
struct masked_softmax_line {
  template <typename DType, typename LType>
  MSHADOW_XINLINE static void Map(index_t l, AxisView v, const DType* x, const LType* length,
                                  DType inv_t, DType* y) {
    const index_t start = l / v.inner * v.n * v.inner + l % v.inner;
    const index_t valid = ClampedLength(length[l], v.n);
    DType shift = 0;
    for (index_t j = 0; j < valid; ++j) {
      const DType z = x[start + j * v.inner] * inv_t;
      shift = j == 0 || z > shift ? z : shift;
    }
    DType sum = 0;
    for (index_t j = 0; j < valid; ++j) sum += exp(x[start + j * v.inner] * inv_t - shift);
    for (index_t j = 0; j < v.n; ++j) {
      const index_t at = start + j * v.inner;
      AssignReq<kReq>(y + at, j < valid ? DType(exp(x[at] * inv_t - shift) / sum) : DType(0));
    }
  }
};

// The length input's gradient (use_length): zeros.
template <typename xpu>
void ZeroLengthGradient(mshadow::Stream<xpu>* stream, const TBlob& grad, OpReqType req) {
  WithIndexType(grad.type_flag_, [&](auto length_tag) {
    using LType = typename decltype(length_tag)::type;
    Assign(grad.FlatTo2D<xpu, LType>(stream), req, mshadow::expr::scalar<LType>(0));
  });
}

}  // namespace softmax
}  // namespace ops

#endif  // OPS_SOFTMAX_INL_H_
