// UpSampling(scale, sample_type, num_filter, num_args, multi_input_mode) (upsampling-inl.h):
// shape inference and the CPU registration; FCompute<gpu>: upsampling.cu.
#include <sstream>
#include <string>
#include <vector>

#include "ops/upsampling-inl.h"

namespace ops {
namespace upsampling {

DMLC_REGISTER_PARAMETER(UpSamplingParam);

namespace {

[[noreturn]] void Fail(const std::ostringstream& os) { throw dmlc::Error(os.str()); }

// bilinear: data (N, C, H, W) with C = num_filter; weight (C, 1, k, k).
bool BilinearShape(const UpSamplingParam& param, std::vector<TShape>* in,
                   std::vector<TShape>* out) {
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  std::ostringstream os;
  if (data.ndim() != 4 || data[1] != param.num_filter) {
    os << "UpSampling: bilinear takes data (batch, num_filter = " << param.num_filter
       << ", height, width); the data is " << data;
    Fail(os);
  }
  const index_t k = BilinearKernel(param.scale);
  AssignInputShape(in, 1, TShape{data[1], 1, k, k});
  // The deconvolution's own checks; its output is exactly scale times the input.
  const ConvGeometry g = deconvolution::Geometry(BilinearDeconvolution(param), data);
  AssignOutputShape(out, 0, TShape{data[0], data[1], g.in[0], g.in[1]});
  return true;
}

bool UpSamplingShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const UpSamplingParam& param = GetParam<UpSamplingParam>(attrs);
  if (param.sample_type == kBilinear) return BilinearShape(param, in, out);
  std::ostringstream os;
  for (const TShape& s : *in) {
    if (!ShapeIsKnown(s)) return false;
  }
  for (size_t i = 0; i < in->size(); ++i) {
    const TShape& s = (*in)[i];
    if (s.ndim() != 4 || s[2] < 1 || s[3] < 1) {
      os << "UpSampling: input " << i << " has shape " << s
         << "; inputs must be (batch, channel, height, width) with height and width >= 1";
      Fail(os);
    }
  }
  const TShape& first = (*in)[0];
  TShape result = first;
  if (__builtin_mul_overflow(first[2], index_t{param.scale}, &result[2]) ||
      __builtin_mul_overflow(first[3], index_t{param.scale}, &result[3])) {
    os << "UpSampling: " << first << " upsampled by " << param.scale << " overflows index_t";
    Fail(os);
  }
  result[1] = 0;
  for (size_t i = 0; i < in->size(); ++i) {
    const TShape& s = (*in)[i];
    const index_t scale = result[2] / s[2];
    const bool fits = s[0] == first[0] && result[2] % s[2] == 0 && result[3] % s[3] == 0 &&
                      result[3] / s[3] == scale;
    if (!fits) {
      os << "UpSampling: input " << i << " " << s << " cannot be upsampled to " << result[2] << "x"
         << result[3] << " (the first input's size times scale " << param.scale
         << "): its batch must be " << first[0]
         << " and its height and width divide that size by one whole number";
      Fail(os);
    }
    if (param.multi_input_mode == kSum && s[1] != first[1]) {
      os << "UpSampling: multi_input_mode sum needs equal channels; input " << i << " " << s
         << " has " << s[1] << ", the first " << first[1];
      Fail(os);
    }
    result[1] = param.multi_input_mode == kSum ? first[1] : result[1] + s[1];
  }
  AssignOutputShape(out, 0, result);
  return true;
}

// nearest: num_args inputs; bilinear: data and weight.
uint32_t NumArgs(const NodeAttrs& attrs) {
  const UpSamplingParam& param = GetParam<UpSamplingParam>(attrs);
  return param.sample_type == kBilinear ? 2 : static_cast<uint32_t>(param.num_args);
}

std::vector<std::string> InputNames(const NodeAttrs& attrs) {
  if (GetParam<UpSamplingParam>(attrs).sample_type == kBilinear) return {"data", "weight"};
  std::vector<std::string> names;
  for (uint32_t i = 0; i < NumArgs(attrs); ++i) names.push_back("arg" + std::to_string(i));
  return names;
}

std::vector<ResourceRequest> BilinearTempSpace(const NodeAttrs& attrs) {
  if (GetParam<UpSamplingParam>(attrs).sample_type != kBilinear) return {};
  return RequestTempSpace(attrs);
}

const bool kRegistered = [] {
  SetUpSamplingCompute<cpu>();
  return true;
}();

}  // namespace

OPS_REGISTER_OP(UpSampling)
    .describe(
        "Upsampling of NCHW inputs by a whole factor. nearest: several inputs are brought to "
        "the first's upsampled size, then stacked or summed. bilinear: a depthwise "
        "deconvolution of the data by the weight input (C, 1, k, k).")
    .set_num_inputs(NumArgs)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol[]", "The inputs (arg0, arg1, ... when several).")
    .add_arguments(UpSamplingParam::__FIELDS__())
    .set_attr_parser(ParamParser<UpSamplingParam>)
    .set_attr<FInferShape>("FInferShape", UpSamplingShape)
    .set_attr<FListInputNames>("FListInputNames", InputNames)
    .set_attr<FInferType>("FInferType", SameRealType)
    .set_attr<FResourceRequest>("FResourceRequest", BilinearTempSpace)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_UpSampling", true, false});

OPS_REGISTER_OP(_backward_UpSampling)
    .describe("Gradient of UpSampling: each input element's block of the output gradient summed.")
    .set_num_inputs([](const NodeAttrs& attrs) { return NumArgs(attrs) + 1; })
    .set_num_outputs(NumArgs)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<UpSamplingParam>)
    .set_attr<FResourceRequest>("FResourceRequest", BilinearTempSpace);

}  // namespace upsampling
}  // namespace ops
