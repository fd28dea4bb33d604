// ops/lars-inl.h: the two operators LARS (layer-wise adaptive rate scaling, You et al.) needs
// before its SGD step, as MXNet 1.9.1 has them: multi_sum_sq, the sum of squares of each of
// several arrays (weights, then gradients), and multi_lars, each layer's learning rate scaled
// by its trust ratio eta * |w| / (|g| + wd * |w| + eps).
//
// multi_sum_sq sums each array in fixed parts (SumOfSquares<xpu>; the CPU's in lars.cc, the
// GPU's in lars.cu), then adds the parts in order: the result does not depend on the thread
// count. 16-bit inputs are summed in float, float64 inputs in double; the output is float32.
// lars.cc registers both with FCompute<cpu>, lars.cu adds FCompute<gpu>.
#ifndef OPS_LARS_INL_H_
#define OPS_LARS_INL_H_

#include <cmath>
#include <type_traits>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"

namespace ops {
namespace lars {

struct MultiSumSqParam : public dmlc::Parameter<MultiSumSqParam> {
  int num_arrays;
  DMLC_DECLARE_PARAMETER(MultiSumSqParam) {
    DMLC_DECLARE_FIELD(num_arrays).set_lower_bound(1).describe("The number of input arrays.");
  }
};

struct MultiLARSParam : public dmlc::Parameter<MultiLARSParam> {
  float eta;
  float eps;
  float rescale_grad;
  DMLC_DECLARE_PARAMETER(MultiLARSParam) {
    DMLC_DECLARE_FIELD(eta).describe("LARS's trust coefficient eta.");
    DMLC_DECLARE_FIELD(eps).describe("Added to the ratio's denominator.");
    DMLC_DECLARE_FIELD(rescale_grad)
        .set_default(1.0f)
        .describe("The gradients' norms are multiplied by this.");
  }
};

// Elements summed per part: a part is one CPU item or one GPU thread block.
constexpr index_t kSumPart = index_t{1} << 14;

// How the parts of one array's sum are computed, per device:
//   SumOfSquares<xpu>::Parts(x, stream, parts)  // parts[p] = sum over part p of x^2
// with PartsOf(x.Size()) parts, each a double.
template <typename xpu>
struct SumOfSquares;
template <>
struct SumOfSquares<mshadow::cpu> {  // lars.cc
  static void Parts(const TBlob& x, mshadow::Stream<mshadow::cpu>* s, double* parts);
};
template <>
struct SumOfSquares<mshadow::gpu> {  // lars.cu
  static void Parts(const TBlob& x, mshadow::Stream<mshadow::gpu>* s, double* parts);
};

inline index_t PartsOf(index_t n) { return (n + kSumPart - 1) / kSumPart; }

// out[array] = the sum of its parts, in order, as the request says.
template <int kReq>
struct add_parts {
  MSHADOW_XINLINE static void Map(index_t, float* out, const double* parts, index_t count) {
    double sum = 0;
    for (index_t p = 0; p < count; ++p) sum += parts[p];
    AssignReq<kReq>(out, static_cast<float>(sum));
  }
};

template <typename xpu>
void MultiSumSqCompute(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  index_t total_parts = 0;
  for (const TBlob& x : in) total_parts += PartsOf(x.Size());
  double* parts =
      ctx.requested[0].get_space_typed<xpu, 1, double>(mshadow::Shape1(total_parts + 1), s).dptr_;
  index_t first = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    const index_t count = PartsOf(in[i].Size());
    SumOfSquares<xpu>::Parts(in[i], s, parts + first);
    OPS_REQ_SWITCH(req[0], kReq, {
      Kernel<add_parts<kReq>, xpu>::Launch(s, 1, out[0].dptr<float>() + i, parts + first, count);
    });
    first += count;
  }
}

// out[i] = lrs[i] * eta * |w| / (|g| + wds[i] * |w| + eps), |w| = sqrt(weights_sum_sq[i]),
// |g| = sqrt(grads_sum_sq[i]) * rescale_grad; lrs[i] itself where either norm is not
// positive (zero, or NaN from a negative or NaN sum), as MXNet.
template <int kReq>
struct lars_rate {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* out, const DType* lrs, const DType* w_sum_sq,
                                  const DType* g_sum_sq, const DType* wds, float eta, float eps,
                                  float rescale) {
    using T = std::conditional_t<std::is_same_v<DType, double>, double, float>;
    const T w = std::sqrt(static_cast<T>(w_sum_sq[i]));
    const T g = std::sqrt(static_cast<T>(g_sum_sq[i])) * T(rescale);
    const T ratio =
        w > T(0) && g > T(0) ? T(eta) * w / (g + static_cast<T>(wds[i]) * w + T(eps)) : T(1);
    AssignReq<kReq>(out + i, static_cast<DType>(static_cast<T>(lrs[i]) * ratio));
  }
};

template <typename xpu>
void MultiLARSCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const MultiLARSParam& p = GetParam<MultiLARSParam>(attrs);
  MSHADOW_REAL_TYPE_SWITCH_EX(out[0].type_flag_, DType, {
    OPS_REQ_SWITCH(req[0], kReq, {
      Kernel<lars_rate<kReq>, xpu>::Launch(ctx.get_stream<xpu>(), out[0].Size(),
                                           out[0].dptr<DType>(), in[0].dptr<DType>(),
                                           in[1].dptr<DType>(), in[2].dptr<DType>(),
                                           in[3].dptr<DType>(), p.eta, p.eps, p.rescale_grad);
    });
  });
}

// Adds FCompute<xpu> to both operators.
template <typename xpu>
void SetLARSCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("multi_sum_sq").set_attr<FCompute>(attr_name, FCompute(MultiSumSqCompute<xpu>));
  RegisterOp("multi_lars").set_attr<FCompute>(attr_name, FCompute(MultiLARSCompute<xpu>));
}

}  // namespace lars
}  // namespace ops

#endif  // OPS_LARS_INL_H_
