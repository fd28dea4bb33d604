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
  if (out->size() > 1) {  // max: the argmax, plane offsets in int32
    const ConvGeometry g3 = As3D(g);
    if (g3.InSize() > std::numeric_limits<int32_t>::max()) {
      std::ostringstream os;
      os << "max pooling keeps int32 offsets of each window's maximum; a plane of " << data
         << " has " << g3.InSize() << " elements, more than they hold";
      throw dmlc::Error(os.str());
    }
    AssignOutputShape(out, 1, result);
  }
  return true;
}

// The data and output are float32 or float64; max's argmax is int32.
bool PoolingType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  std::vector<int> first_out = {out->at(0)};
  if (!ElemwiseRealType<1, 1>(attrs, in, &first_out)) return false;
  AssignOutputType(out, 0, first_out[0]);
  if (out->size() > 1) AssignOutputType(out, 1, mshadow::kInt32);
  return true;
}

uint32_t NumPoolingOutputs(const NodeAttrs& attrs) {
  return NumOutputs(GetParam<PoolingParam>(attrs));
}

// The backward operator reads the output gradients, the data and the outputs.
uint32_t NumBackwardInputs(const NodeAttrs& attrs) { return 2 * NumPoolingOutputs(attrs) + 1; }

const bool kRegistered = [] {
  SetPoolingCompute<cpu>();
  return true;
}();

}  // namespace

DMLC_REGISTER_PARAMETER(PoolingParam);

OPS_REGISTER_OP(Pooling)
    .describe(
        "Pooling over 1, 2 or 3 spatial axes of data (batch, channel, spatial...): the "
        "max, average, sum or p-norm (lp) of each window. With max, a second output, "
        "hidden (set_num_visible_outputs), holds the plane offset (int32) of each window's "
        "first maximum, which the gradient uses.")
    .set_num_inputs(1)
    .set_num_outputs(NumPoolingOutputs)
    .add_argument("data", "NDArray-or-Symbol", "Input data.")
    .add_arguments(PoolingParam::__FIELDS__())
    .set_attr_parser(ParamParser<PoolingParam>)
    .set_num_visible_outputs(1)
    .set_attr<FInferShape>("FInferShape", PoolingShape)
    .set_attr<FInferType>("FInferType", PoolingType)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_Pooling", true, true});

OPS_REGISTER_OP(_backward_Pooling)
    .describe("Gradient of Pooling (max: each output's gradient to the element its forward "
              "call's hidden argmax output names).")
    .set_num_inputs(NumBackwardInputs)
    .set_num_outputs(1)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<PoolingParam>);

}  // namespace pooling
}  // namespace ops
