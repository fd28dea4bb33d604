// RNN(mode, state_size, num_layers, bidirectional, state_outputs, ...): MXNet's fused
// recurrent layer (vanilla ReLU/tanh, LSTM, GRU; stacked; bidirectional) and its backward
// operator. Kernels, for every device: rnn-inl.h; FCompute<gpu>: rnn.cu.
#include "ops/rnn-inl.h"

namespace ops {
namespace rnn {
namespace {

uint32_t NumInputs(const NodeAttrs& attrs) {
  return 2 + NumStateInputs(GetParam<RNNParam>(attrs));
}

// The visible outputs and the hidden reserve.
uint32_t NumForwardOutputs(const NodeAttrs& attrs) {
  return NumOutputs(GetParam<RNNParam>(attrs)) + 1;
}

uint32_t NumVisibleOutputs(const NodeAttrs& attrs) { return NumOutputs(GetParam<RNNParam>(attrs)); }

std::vector<std::string> InputNames(const NodeAttrs& attrs) {
  if (GetParam<RNNParam>(attrs).mode == kLstm) {
    return {"data", "parameters", "state", "state_cell"};
  }
  return {"data", "parameters", "state"};
}

bool RNNShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const RNNParam& param = GetParam<RNNParam>(attrs);
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  CheckRNNCall(param, data);
  const RNNDims dims(param, data);
  const TShape state{dims.layers * dims.directions, dims.batch, dims.hidden};
  AssignInputShape(in, 1, TShape{dims.NumParams()});
  for (int i = 0; i < NumStateInputs(param); ++i) AssignInputShape(in, 2 + i, state);
  AssignOutputShape(out, 0, TShape{dims.steps, dims.batch, dims.OutputWidth()});
  for (int i = 1; i < NumOutputs(param); ++i) AssignOutputShape(out, i, state);
  AssignOutputShape(out, NumOutputs(param), TShape{ReserveSize(dims, param.mode)});
  return true;
}

const bool kRegistered = [] {
  SetRNNCompute<cpu>();
  return true;
}();

}  // namespace

DMLC_REGISTER_PARAMETER(RNNParam);

OPS_REGISTER_OP(RNN)
    .describe(
        "Recurrent layers over data (steps, batch, input): vanilla (rnn_relu, rnn_tanh), "
        "LSTM or GRU, num_layers stacked, optionally bidirectional. parameters is every "
        "layer's weights then every layer's biases, flat, as MXNet lays them out; state "
        "(and state_cell for LSTM) is (num_layers * directions, batch, state_size). "
        "Output (steps, batch, directions * state_size), and the final states when "
        "state_outputs. A last, hidden output (set_num_visible_outputs) records the "
        "forward pass for the gradient (MXNet's reserve space).")
    .set_num_inputs(NumInputs)
    .set_num_outputs(NumForwardOutputs)
    .set_num_visible_outputs(NumVisibleOutputs)
    .add_argument("data", "NDArray-or-Symbol", "Input data (steps, batch, input).")
    .add_argument("parameters", "NDArray-or-Symbol", "All weights and biases, flat.")
    .add_argument("state", "NDArray-or-Symbol", "Initial hidden state.")
    .add_argument("state_cell", "NDArray-or-Symbol", "Initial cell state (LSTM only).")
    .add_arguments(RNNParam::__FIELDS__())
    .set_attr_parser(ParamParser<RNNParam>)
    .set_attr<FListInputNames>("FListInputNames", InputNames)
    .set_attr<FInferShape>("FInferShape", RNNShape)
    .set_attr<FInferType>("FInferType", SameRealType)
    .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_RNN", true, true});

OPS_REGISTER_OP(_backward_RNN)
    .describe("Gradient of RNN (reads the forward pass's record from the reserve output).")
    .set_num_inputs([](const NodeAttrs& attrs) {
      return 2 * NumForwardOutputs(attrs) + NumInputs(attrs);
    })
    .set_num_outputs(NumInputs)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<RNNParam>)
    .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace);

}  // namespace rnn
}  // namespace ops
