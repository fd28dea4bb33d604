// UpSampling(scale, sample_type, num_args, multi_input_mode) (upsampling-inl.h): shape
// inference and the CPU registration; FCompute<gpu>: upsampling.cu.
#include <sstream>
#include <string>
#include <vector>

#include "ops/upsampling-inl.h"

namespace ops {
namespace upsampling {

DMLC_REGISTER_PARAMETER(UpSamplingParam);

namespace {

[[noreturn]] void Fail(const std::ostringstream& os) { throw dmlc::Error(os.str()); }

bool UpSamplingShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const UpSamplingParam& param = GetParam<UpSamplingParam>(attrs);
  std::ostringstream os;
  if (param.sample_type == kBilinear) {
    os << "UpSampling: sample_type bilinear is not supported (MXNet runs it as a Deconvolution "
          "with a fixed kernel); only nearest";
    Fail(os);
  }
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

uint32_t NumArgs(const NodeAttrs& attrs) {
  return static_cast<uint32_t>(GetParam<UpSamplingParam>(attrs).num_args);
}

const bool kRegistered = [] {
  SetUpSamplingCompute<cpu>();
  return true;
}();

}  // namespace

OPS_REGISTER_OP(UpSampling)
    .describe(
        "Nearest-neighbour upsampling of NCHW inputs by a whole factor; several inputs "
        "are brought to the first's upsampled size, then stacked or summed.")
    .set_num_inputs(NumArgs)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol[]", "The inputs (arg0, arg1, ... when several).")
    .add_arguments(UpSamplingParam::__FIELDS__())
    .set_attr_parser(ParamParser<UpSamplingParam>)
    .set_attr<FInferShape>("FInferShape", UpSamplingShape)
    .set_attr<FInferType>("FInferType", SameRealType)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_UpSampling", true, false});

OPS_REGISTER_OP(_backward_UpSampling)
    .describe("Gradient of UpSampling: each input element's block of the output gradient summed.")
    .set_num_inputs([](const NodeAttrs& attrs) { return NumArgs(attrs) + 1; })
    .set_num_outputs(NumArgs)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<UpSamplingParam>);

}  // namespace upsampling
}  // namespace ops
