// Pooling(kernel, pool_type, global_pool, pooling_convention, stride, pad, p_value,
// count_include_pad): MXNet's pooling over 1, 2 or 3 spatial axes in channel-first layout;
// and its backward operator. Kernels, for every device: pooling-inl.h; FCompute<gpu>:
// pooling.cu.
#include "ops/pooling-inl.h"

namespace ops {
namespace pooling {
namespace {

bool PoolingShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  const ConvGeometry g = Geometry(GetParam<PoolingParam>(attrs), data);
  TShape result = data;
  for (int a = 0; a < g.ndim; ++a) result[2 + a] = g.out[a];
  AssignOutputShape(out, 0, result);
  return true;
}

const bool kRegistered = [] {
  SetPoolingCompute<cpu>();
  return true;
}();

}  // namespace

DMLC_REGISTER_PARAMETER(PoolingParam);

OPS_REGISTER_OP(Pooling)
    .describe("Pooling over 1, 2 or 3 spatial axes of data (batch, channel, spatial...): the "
              "max, average, sum or p-norm (lp) of each window.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "Input data.")
    .add_arguments(PoolingParam::__FIELDS__())
    .set_attr_parser(ParamParser<PoolingParam>)
    .set_attr<FInferShape>("FInferShape", PoolingShape)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<1, 1>)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_Pooling", true, true});

OPS_REGISTER_OP(_backward_Pooling)
    .describe("Gradient of Pooling.")
    .set_num_inputs(3)
    .set_num_outputs(1)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<PoolingParam>);

}  // namespace pooling
}  // namespace ops
