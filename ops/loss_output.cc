// The loss layers of loss_output-inl.h (LinearRegressionOutput, LogisticRegressionOutput,
// MAERegressionOutput, MakeLoss, SVMOutput) and their backward operators; FCompute<gpu>:
// loss_output.cu.
#include <sstream>
#include <string>

#include "ops/loss_output-inl.h"

namespace ops {
namespace loss_output {
namespace {

// MXNet's rule: an unknown label is shaped like the data, or (n,) for data (n, 1); a given
// label has the data's batch size and element count.
bool RegressionShape(const NodeAttrs&, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  const TShape& label = (*in)[1];
  if (!ShapeIsKnown(label)) {
    AssignInputShape(in, 1, data.ndim() == 2 && data[1] == 1 ? TShape{data[0]} : data);
  } else if (label[0] != data[0] || label.Size() != data.Size()) {
    std::ostringstream os;
    os << "the label " << label << " must have the data's batch size and element count; the "
       << "data is " << data;
    throw dmlc::Error(os.str());
  }
  AssignOutputShape(out, 0, data);
  return true;
}

// SVMOutput: scores (..., classes) and a label per row of scores (...).
bool SVMOutputShape(const NodeAttrs&, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  if (data.ndim() < 2) {
    std::ostringstream os;
    os << "data must be scores (examples..., classes) of 2 or more axes, got " << data;
    throw dmlc::Error(os.str());
  }
  AssignInputShape(in, 1, TShape(data.begin(), data.end() - 1));
  AssignOutputShape(out, 0, data);
  return true;
}

void DefineRegression(const std::string& name, const std::string& description) {
  const std::string backward = "_backward_" + name;
  Op& op = RegisterOp(name)
               .describe(description + " The output gradient is not used.")
               .set_num_inputs(2)
               .set_num_outputs(1)
               .add_argument("data", "NDArray-or-Symbol", "Input data (batch, ...).")
               .add_argument("label", "NDArray-or-Symbol", "The targets, one per output.")
               .add_arguments(RegressionOutputParam::__FIELDS__())
               .set_attr_parser(ParamParser<RegressionOutputParam>)
               .set_attr<FInferShape>("FInferShape", RegressionShape)
               .set_attr<FInferType>("FInferType", ElemwiseRealType<2, 1>)
               .set_attr<FInplaceOption>("FInplaceOption", InplaceFirstInput);
  op.set_attr<FGradient>("FGradient", FGradient{backward, true, true});
  RegisterOp(backward)
      .describe("Gradient of " + name + ".")
      .set_num_inputs(4)
      .set_num_outputs(2)
      .set_attr<bool>("TIsBackward", true)
      .set_attr_parser(ParamParser<RegressionOutputParam>);
}

const bool kRegistered = [] {
  ForEachRegression([](auto, auto, const char* name, const char* description) {
    DefineRegression(name, description);
  });
  SetLossOutputCompute<cpu>();
  return true;
}();

}  // namespace

DMLC_REGISTER_PARAMETER(RegressionOutputParam);
DMLC_REGISTER_PARAMETER(MakeLossParam);
DMLC_REGISTER_PARAMETER(SVMOutputParam);

OPS_REGISTER_OP(SVMOutput)
    .describe(
        "A support vector machine's output layer: the output is the data, scores (examples..., "
        "classes); the gradient is the multi-class hinge loss's (squared: L2-SVM; linear with "
        "use_linear: L1-SVM) for the labels, one per row of scores, times "
        "regularization_coefficient. The output gradient is not used.")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "Scores (examples..., classes).")
    .add_argument("label", "NDArray-or-Symbol", "The class of each row of scores (examples...).")
    .add_arguments(SVMOutputParam::__FIELDS__())
    .set_attr_parser(ParamParser<SVMOutputParam>)
    .set_attr<FInferShape>("FInferShape", SVMOutputShape)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<2, 1>)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceFirstInput)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_SVMOutput", true, false});

OPS_REGISTER_OP(_backward_SVMOutput)
    .describe("Gradient of SVMOutput.")
    .set_num_inputs(3)
    .set_num_outputs(2)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<SVMOutputParam>);

OPS_REGISTER_OP(MakeLoss)
    .add_alias("make_loss")
    .describe(
        "Makes a loss of any expression: the output is the data; its gradient is "
        "grad_scale for every element, divided as normalization says. The output "
        "gradient is not used. (make_loss, MXNet's parameterless form, is this with its "
        "defaults: a gradient of ones.)")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "The loss, elementwise.")
    .add_arguments(MakeLossParam::__FIELDS__())
    .set_attr_parser(ParamParser<MakeLossParam>)
    .set_attr<FInferShape>("FInferShape", ElemwiseShape<1, 1>)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<1, 1>)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceFirstInput)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_MakeLoss", true, false});

OPS_REGISTER_OP(_backward_MakeLoss)
    .describe("Gradient of MakeLoss.")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<MakeLossParam>)
    .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace);

}  // namespace loss_output
}  // namespace ops
