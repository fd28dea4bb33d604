// SoftmaxOutput(grad_scale, ignore_label, multi_output, use_ignore, preserve_shape,
// normalization, out_grad, smooth_alpha): MXNet's output layer, softmax forward and the cross
// entropy gradient backward; and its backward operator. Kernels, for every device:
// softmax_output-inl.h; FCompute<gpu>: softmax_output.cu.
#include "ops/softmax_output-inl.h"

namespace ops {
namespace softmax_output {
namespace {

// The labels' shape: the data's without the classes axis.
TShape LabelShape(const SoftmaxOutputParam& param, const TShape& data) {
  ViewOf(param, data);  // checks the rank
  const int nd = static_cast<int>(data.ndim());
  const int class_axis = param.multi_output ? 1 : nd - 1;
  std::vector<index_t> dims;
  for (int a = 0; a < nd; ++a) {
    if (a != class_axis) dims.push_back(data[a]);
  }
  return TShape(dims.begin(), dims.end());
}

bool SoftmaxOutputShape(const NodeAttrs& attrs, std::vector<TShape>* in,
                        std::vector<TShape>* out) {
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  AssignInputShape(in, 1, LabelShape(GetParam<SoftmaxOutputParam>(attrs), data));
  AssignOutputShape(out, 0, data);
  return true;
}

const bool kRegistered = [] {
  SetSoftmaxOutputCompute<cpu>();
  return true;
}();

}  // namespace

DMLC_REGISTER_PARAMETER(SoftmaxOutputParam);

OPS_REGISTER_OP(SoftmaxOutput)
    .add_alias("Softmax")  // MXNet's deprecated name
    .describe(
        "Softmax over the classes, whose gradient is that of the cross entropy with the "
        "labels: (softmax - one_hot(label)) * grad_scale / normalization; the output "
        "gradient is not used (unless out_grad).")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "Input data (batch, classes, ...).")
    .add_argument("label", "NDArray-or-Symbol", "Class indices.")
    .add_arguments(SoftmaxOutputParam::__FIELDS__())
    .set_attr_parser(ParamParser<SoftmaxOutputParam>)
    .set_attr<FInferShape>("FInferShape", SoftmaxOutputShape)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<2, 1>)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_SoftmaxOutput", true, true});

OPS_REGISTER_OP(_backward_SoftmaxOutput)
    .describe("Gradient of SoftmaxOutput.")
    .set_num_inputs(4)
    .set_num_outputs(2)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<SoftmaxOutputParam>)
    .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace);

}  // namespace softmax_output
}  // namespace ops
