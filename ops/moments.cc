// moments(axes, keepdims): the mean and variance over axes, and its backward operator. Shapes
// here; the computation, for every device: moments-inl.h; FCompute<gpu>: moments.cu.
#include <sstream>
#include <vector>

#include "ops/moments-inl.h"

namespace ops {
namespace moments {

DMLC_REGISTER_PARAMETER(MomentsParam);

TShape KeptShape(const MomentsParam& param, const TShape& data) {
  if (param.axes.ndim() == 0) {
    throw dmlc::ParamError(
        "moments needs axes (MXNet 1.9.1 has no empty axes); for moments over every axis, "
        "name them all");
  }
  TShape kept = data;
  std::vector<bool> seen(data.ndim(), false);
  for (const index_t given : param.axes) {
    const int a = NormalizeAxis(given, data.ndim(), "axes");
    if (seen[a]) {
      std::ostringstream os;
      os << "moments: axes " << param.axes << " name axis " << a << " twice";
      throw dmlc::Error(os.str());
    }
    seen[a] = true;
    kept[a] = 1;
  }
  return kept;
}

namespace {

// The kept shape, or (keepdims False) the data's without the reduced axes ((1,) if none is
// left).
bool MomentsShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  const MomentsParam& param = GetParam<MomentsParam>(attrs);
  TShape shape = KeptShape(param, data);
  if (!param.keepdims) {
    std::vector<bool> reduced(data.ndim(), false);
    for (const index_t given : param.axes)
      reduced[NormalizeAxis(given, data.ndim(), "axes")] = true;
    std::vector<index_t> dims;
    for (index_t a = 0; a < data.ndim(); ++a) {
      if (!reduced[a]) dims.push_back(data[a]);
    }
    if (dims.empty()) dims.push_back(1);
    shape = TShape(dims.begin(), dims.end());
  }
  AssignOutputShape(out, 0, shape);
  AssignOutputShape(out, 1, shape);
  return true;
}

const bool kRegistered = [] {
  RegisterOp("moments")
      .describe("The mean and the variance (of the population: divided by N) over axes.")
      .set_num_inputs(1)
      .set_num_outputs(2)
      .add_argument("data", "NDArray-or-Symbol", "The input array.")
      .add_arguments(MomentsParam::__FIELDS__())
      .set_attr_parser(ParamParser<MomentsParam>)
      .set_attr<FInferShape>("FInferShape", MomentsShape)
      .set_attr<FInferType>("FInferType", ElemwiseRealType<1, 2>)
      .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace)
      .set_attr<FGradient>("FGradient", FGradient{"_backward_moments", true, true});
  RegisterOp("_backward_moments")
      .describe("Gradient of moments: (g_mean + 2 g_var (x - mean)) / N.")
      .set_num_inputs(5)
      .set_num_outputs(1)
      .set_attr<bool>("TIsBackward", true)
      .set_attr_parser(ParamParser<MomentsParam>)
      .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace);
  SetMomentsCompute<cpu>();
  return true;
}();

}  // namespace
}  // namespace moments
}  // namespace ops
