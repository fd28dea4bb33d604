// cumsum (MXNet's _np_cumsum; cumsum-inl.h): shape and type inference and the CPU
// registration; FCompute<gpu>: cumsum.cu.
#include "ops/cumsum-inl.h"
#include "ops/registration_util.h"

namespace ops {
namespace cumsum {

DMLC_REGISTER_PARAMETER(CumsumParam);

namespace {

// The input's shape along an axis, or its size as one axis when none is given.
bool CumsumShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  const CumsumParam& param = GetParam<CumsumParam>(attrs);
  SummedView(param, data);  // checks the axis
  AssignOutputShape(out, 0,
                    param.axis.has_value() ? data : TShape{static_cast<index_t>(data.Size())});
  return true;
}

// A real input; the output dtype, or the input's type for None.
bool CumsumType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  const int dtype = GetParam<CumsumParam>(attrs).dtype;
  if (dtype == -1) return ElemwiseRealType<1, 1>(attrs, in, out);
  AssignOutputType(out, 0, dtype);
  if (in->at(0) == -1) return false;
  CheckRealType(in->at(0));
  return true;
}

const bool kRegistered = [] {
  SetCumsumCompute<cpu>();
  return true;
}();

}  // namespace

OPS_REGISTER_OP(_np_cumsum)
    .describe(
        "Running sums along axis (of the flattened array when axis is None): element j of a "
        "line is the sum of its elements 0 to j (alias cumsum).")
    .add_alias("cumsum")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("a", "NDArray-or-Symbol", "The input array.")
    .add_arguments(CumsumParam::__FIELDS__())
    .set_attr_parser(ParamParser<CumsumParam>)
    .set_attr<FInferShape>("FInferShape", CumsumShape)
    .set_attr<FInferType>("FInferType", CumsumType)
    .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace)  // the GPU's chunk sums
    .set_attr<FGradient>("FGradient", FGradient{"_backward_np_cumsum", false, false});

OPS_REGISTER_OP(_backward_np_cumsum)
    .describe("Gradient of cumsum: the output gradient's running sums from the end of the axis.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr<bool>("TIsBackward", true)
    .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace)  // the GPU's chunk sums
    .set_attr_parser(ParamParser<CumsumParam>);

}  // namespace cumsum
}  // namespace ops
