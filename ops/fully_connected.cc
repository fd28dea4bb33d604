// FullyConnected(num_hidden, no_bias, flatten): out = data * weight^T + bias, as one BLAS
// gemm plus a bias pass; and its backward operator. Kernels, for every device:
// fully_connected-inl.h; FCompute<gpu>: fully_connected.cu.
#include "ops/fully_connected-inl.h"

#include <string>

extern "C" char* openblas_get_corename(void);  // OpenBLAS's cblas.h

namespace ops {
namespace fully_connected {

bool BlasRunsAvx512() {
  static const bool avx512 = [] {
    const std::string core = openblas_get_corename();
    return core == "SkylakeX" || core == "Cooperlake" || core == "SapphireRapids";
  }();
  return avx512;
}

namespace {

bool FullyConnectedShape(const NodeAttrs& attrs, std::vector<TShape>* in,
                         std::vector<TShape>* out) {
  const FullyConnectedParam& param = GetParam<FullyConnectedParam>(attrs);
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  const mshadow::Shape<2> matrix = DataAs2D(data, param.flatten);
  AssignInputShape(in, 1, TShape{param.num_hidden, matrix[1]});
  if (!param.no_bias) AssignInputShape(in, 2, TShape{param.num_hidden});
  TShape result;
  if (param.flatten) {
    result = TShape{data[0], param.num_hidden};
  } else {
    result = data;
    result[data.ndim() - 1] = param.num_hidden;
  }
  AssignOutputShape(out, 0, result);
  return true;
}

const bool kRegistered = [] {
  SetFullyConnectedCompute<cpu>();
  return true;
}();

uint32_t NumInputs(const NodeAttrs& attrs) {
  return GetParam<FullyConnectedParam>(attrs).no_bias ? 2 : 3;
}

std::vector<std::string> InputNames(const NodeAttrs& attrs) {
  if (GetParam<FullyConnectedParam>(attrs).no_bias) return {"data", "weight"};
  return {"data", "weight", "bias"};
}

}  // namespace

DMLC_REGISTER_PARAMETER(FullyConnectedParam);

OPS_REGISTER_OP(FullyConnected)
    .describe(
        "A fully connected (dense) layer: out = data * weight^T + bias. data is "
        "(batch, ...) and is read as (batch, features) when flatten is true; weight is "
        "(num_hidden, features); bias is (num_hidden,).")
    .set_num_inputs(NumInputs)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "Input data.")
    .add_argument("weight", "NDArray-or-Symbol", "Weight matrix.")
    .add_argument("bias", "NDArray-or-Symbol", "Bias vector.")
    .add_arguments(FullyConnectedParam::__FIELDS__())
    .set_attr_parser(ParamParser<FullyConnectedParam>)
    .set_attr<FListInputNames>("FListInputNames", InputNames)
    .set_attr<FInferShape>("FInferShape", FullyConnectedShape)
    .set_attr<FInferType>("FInferType",
                          [](const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
                            return NumInputs(attrs) == 2 ? ElemwiseFloatType<2, 1>(attrs, in, out)
                                                         : ElemwiseFloatType<3, 1>(attrs, in, out);
                          })
    .set_attr<FGradient>("FGradient", FGradient{"_backward_FullyConnected", true, false});

OPS_REGISTER_OP(_backward_FullyConnected)
    .describe("Gradient of FullyConnected.")
    .set_num_inputs([](const NodeAttrs& attrs) { return 1 + NumInputs(attrs); })
    .set_num_outputs(NumInputs)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<FullyConnectedParam>);

}  // namespace fully_connected
}  // namespace ops
