// CTCLoss(use_data_lengths, use_label_lengths, blank_label): MXNet's connectionist temporal
// classification loss, its gradient a hidden second output; and its backward operator.
// Kernels, for every device: ctc_loss-inl.h; FCompute<gpu>: ctc_loss.cu.
#include "ops/ctc_loss-inl.h"

namespace ops {
namespace ctc {
namespace {

uint32_t NumInputs(const NodeAttrs& attrs) {
  const CTCLossParam& param = GetParam<CTCLossParam>(attrs);
  return 2 + param.use_data_lengths + param.use_label_lengths;
}

std::vector<std::string> InputNames(const NodeAttrs& attrs) {
  const CTCLossParam& param = GetParam<CTCLossParam>(attrs);
  std::vector<std::string> names = {"data", "label"};
  if (param.use_data_lengths) names.push_back("data_lengths");
  if (param.use_label_lengths) names.push_back("label_lengths");
  return names;
}

// data (T, N, C), label (N, L) with L <= T (as MXNet), lengths (N); loss (N), grad (T, N, C).
bool CTCLossShape(const NodeAttrs&, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  if (data.ndim() != 3 || data[2] == 0) {
    std::ostringstream os;
    os << "data must be 3-d (sequence length, batch, classes) with at least one class (the "
          "blank), got "
       << data;
    throw dmlc::Error(os.str());
  }
  const TShape& label = (*in)[1];
  if (ShapeIsKnown(label) && (label.ndim() != 2 || label[1] > data[0])) {
    std::ostringstream os;
    os << "label must be 2-d (batch, labels) with at most " << data[0]
       << " labels (the data's sequence length), got " << label;
    throw dmlc::Error(os.str());
  }
  if (ShapeIsKnown(label)) AssignInputShape(in, 1, TShape{data[1], label[1]});
  for (size_t i = 2; i < in->size(); ++i) AssignInputShape(in, static_cast<int>(i), TShape{data[1]});
  AssignOutputShape(out, 0, TShape{data[1]});
  AssignOutputShape(out, 1, data);
  return ShapeIsKnown((*in)[1]);
}

// data float32 or float64; labels and lengths an index type (the data's when unknown); the
// loss and gradient the data's type.
bool CTCLossType(const NodeAttrs&, std::vector<int>* in, std::vector<int>* out) {
  const int data = (*in)[0];
  if (data == -1) return false;
  CheckRealType(data);
  for (size_t i = 1; i < in->size(); ++i) {
    const int t = (*in)[i];
    if (t != -1 && !IsIndexType(t)) {
      throw dmlc::Error("input " + std::to_string(i) + " has type " + mshadow::TypeFlagName(t) +
                        "; labels and lengths must be int32, int64, float32 or float64");
    }
    if (t == -1) AssignInputType(in, static_cast<int>(i), data);
  }
  AssignOutputType(out, 0, data);
  AssignOutputType(out, 1, data);
  return true;
}

const bool kRegistered = [] {
  SetCTCLossCompute<cpu>();
  return true;
}();

}  // namespace

DMLC_REGISTER_PARAMETER(CTCLossParam);

OPS_REGISTER_OP(CTCLoss)
    .add_alias("ctc_loss")
    .add_alias("_contrib_CTCLoss")
    .add_alias("_contrib_ctc_loss")
    .describe(
        "Connectionist temporal classification loss of each sample: -log p(label | "
        "data), data (sequence length, batch, classes) the unnormalized activations "
        "(softmax is applied inside), label (batch, labels) class indices. The second "
        "output, hidden (set_num_visible_outputs), is the loss's gradient with respect to the "
        "data. A sample whose labels cannot fit its steps gets loss 0 and a zero "
        "gradient, as MXNet 1.9.1.")
    .set_num_inputs(NumInputs)
    .set_num_outputs(2)
    .add_argument("data", "NDArray-or-Symbol", "Activations, (T, N, C).")
    .add_argument("label", "NDArray-or-Symbol", "Labels, (N, L).")
    .add_argument("data_lengths", "NDArray-or-Symbol", "With use_data_lengths: steps, (N).")
    .add_argument("label_lengths", "NDArray-or-Symbol", "With use_label_lengths: labels, (N).")
    .add_arguments(CTCLossParam::__FIELDS__())
    .set_attr_parser(ParamParser<CTCLossParam>)
    .set_attr<FListInputNames>("FListInputNames", InputNames)
    .set_num_visible_outputs(1)
    .set_attr<FInferShape>("FInferShape", CTCLossShape)
    .set_attr<FInferType>("FInferType", CTCLossType)
    .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_CTCLoss", false, true});

OPS_REGISTER_OP(_backward_CTCLoss)
    .describe("Gradient of CTCLoss: the loss's gradient times the gradient the forward call "
              "kept; zeros for the labels and lengths.")
    .set_num_inputs(4)
    .set_num_outputs(NumInputs)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<CTCLossParam>);

}  // namespace ctc
}  // namespace ops
