// ops/moments-inl.h: moments(axes, keepdims), the mean and the (population) variance over
// the given axes, with MXNet 1.9.1's semantics, written once for every device as a
// composition of the device's registered operators: the mean is `mean`'s, the variance the
// mean of the squared deviations (broadcast_sub, square, mean), and the gradient
// (g_mean + 2 g_var (x - mean)) / N through broadcast_sub, _mul_scalar, broadcast_mul and
// broadcast_add. The intermediate arrays live in the operator's temporary space, and the
// operators it calls get the space past them (TempSpaceAfter). moments.cc registers it with
// FCompute<cpu>; moments.cu adds FCompute<gpu>.
#ifndef OPS_MOMENTS_INL_H_
#define OPS_MOMENTS_INL_H_

#include <iomanip>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/invoke.h"
#include "ops/kernel_util.h"
#include "ops/temp_space_after.h"

namespace ops {
namespace moments {

struct MomentsParam : public dmlc::Parameter<MomentsParam> {
  TShape axes;
  bool keepdims;
  DMLC_DECLARE_PARAMETER(MomentsParam) {
    DMLC_DECLARE_FIELD(axes).set_default(TShape()).describe(
        "The axes to reduce over (negative count from the end); at least one, as in MXNet.");
    DMLC_DECLARE_FIELD(keepdims).set_default(false).describe(
        "Keep the reduced axes, with extent 1.");
  }
};

// The input's shape with the reduced axes at extent 1; bad, repeated or missing axes are
// dmlc::Errors naming them.
TShape KeptShape(const MomentsParam& param, const TShape& data);

// Runs the device's FCompute of operator `name` with these parameters.
template <typename xpu>
void RunOp(const char* name, const std::map<std::string, std::string>& kwargs, const OpContext& ctx,
           const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
           const std::vector<TBlob>& out) {
  const Op* op = Op::Get(name);
  (*op->compute<xpu>())(ParseAttrs(op, kwargs), ctx, in, req, out);
}

// Arrays carved from the operator's temporary space, each aligned to 64 bytes; the rest goes
// to the operators it calls (up to `nested` bytes: what mean's CPU kernel asks, its output's
// size).
template <typename xpu, typename DType>
class Scratch {
 public:
  Scratch(const OpContext& ctx, const std::vector<index_t>& sizes, index_t nested) : inner_(ctx) {
    size_t total = 0;
    for (const index_t n : sizes) {
      offsets_.push_back(total);
      total += (static_cast<size_t>(n) * sizeof(DType) + 63) / 64 * 64;
    }
    space_ = std::make_unique<TempSpaceAfter>(ctx.requested[0].space, total,
                                              static_cast<size_t>(nested) * sizeof(DType) + 64);
    inner_.requested[0].space = space_.get();
  }
  // Array i of the sizes given, as a blob of `shape`.
  TBlob Array(size_t i, const TShape& shape) const {
    return TBlob(reinterpret_cast<DType*>(space_->own() + offsets_[i]), shape, xpu::kDevMask);
  }
  // The context the called operators get.
  const OpContext& inner() const { return inner_; }

 private:
  OpContext inner_;
  std::vector<size_t> offsets_;
  std::unique_ptr<TempSpaceAfter> space_;
};

// The same elements as a blob of another shape (same size).
inline TBlob Reshaped(const TBlob& blob, const TShape& shape) {
  return TBlob(blob.dptr_, shape, blob.dev_mask_, blob.type_flag_);
}

inline std::string AxesText(const MomentsParam& param) {
  std::ostringstream os;
  os << param.axes;
  return os.str();
}

inline std::string Exact(double v) {
  std::ostringstream os;
  os << std::setprecision(17) << v;
  return os.str();
}

// Outputs: mean, var (the kept shape, or with the reduced axes dropped).
template <typename xpu>
void MomentsCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const MomentsParam& param = GetParam<MomentsParam>(attrs);
  const TBlob& x = in[0];
  const TShape kept = KeptShape(param, x.shape_);
  const std::map<std::string, std::string> mean_kw{{"axis", AxesText(param)}, {"keepdims", "True"}};
  MSHADOW_SGL_DBL_TYPE_SWITCH(x.type_flag_, DType, {
    const Scratch<xpu, DType> scratch(ctx, {kept.Size(), x.Size()}, kept.Size());
    const TBlob mean = scratch.Array(0, kept), deviation = scratch.Array(1, x.shape_);
    const OpContext& inner = scratch.inner();
    RunOp<xpu>("mean", mean_kw, inner, {x}, {kWriteTo}, {mean});
    RunOp<xpu>("_copy", {}, inner, {mean}, {req[0]}, {Reshaped(out[0], kept)});
    RunOp<xpu>("broadcast_sub", {}, inner, {x, mean}, {kWriteTo}, {deviation});
    RunOp<xpu>("square", {}, inner, {deviation}, {kWriteInplace}, {deviation});
    RunOp<xpu>("mean", mean_kw, inner, {deviation}, {req[1]}, {Reshaped(out[1], kept)});
  });
}

// Inputs: the gradients of mean and var, data, mean, var. Output: data's gradient,
// (g_mean + 2 g_var (x - mean)) / N, N the number of elements each statistic covers.
template <typename xpu>
void MomentsBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const MomentsParam& param = GetParam<MomentsParam>(attrs);
  const TBlob& x = in[2];
  const TShape kept = KeptShape(param, x.shape_);
  const double count = static_cast<double>(x.Size()) / static_cast<double>(kept.Size());
  MSHADOW_SGL_DBL_TYPE_SWITCH(x.type_flag_, DType, {
    const Scratch<xpu, DType> scratch(ctx, {kept.Size(), kept.Size(), x.Size(), x.Size()},
                                      kept.Size());
    const TBlob var_scale = scratch.Array(0, kept), mean_share = scratch.Array(1, kept);
    const TBlob deviation = scratch.Array(2, x.shape_), scaled = scratch.Array(3, x.shape_);
    const OpContext& inner = scratch.inner();
    RunOp<xpu>("_mul_scalar", {{"scalar", Exact(2 / count)}}, inner, {Reshaped(in[1], kept)},
               {kWriteTo}, {var_scale});
    RunOp<xpu>("_mul_scalar", {{"scalar", Exact(1 / count)}}, inner, {Reshaped(in[0], kept)},
               {kWriteTo}, {mean_share});
    RunOp<xpu>("broadcast_sub", {}, inner, {x, Reshaped(in[3], kept)}, {kWriteTo}, {deviation});
    RunOp<xpu>("broadcast_mul", {}, inner, {deviation, var_scale}, {kWriteTo}, {scaled});
    RunOp<xpu>("broadcast_add", {}, inner, {scaled, mean_share}, {req[0]}, {out[0]});
  });
}

// Adds FCompute<xpu> to moments and _backward_moments.
template <typename xpu>
void SetMomentsCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("moments").set_attr<FCompute>(attr_name, FCompute(MomentsCompute<xpu>));
  RegisterOp("_backward_moments").set_attr<FCompute>(attr_name, FCompute(MomentsBackward<xpu>));
}

}  // namespace moments
}  // namespace ops

#endif  // OPS_MOMENTS_INL_H_
