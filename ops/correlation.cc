// Correlation(kernel_size, max_displacement, stride1, stride2, pad_size, is_multiply): FlowNet's
// correlation of two feature maps over a grid of displacements. The geometry and shapes are
// here; the computation, for every device: correlation-inl.h; FCompute<gpu>: correlation.cu.
#include <sstream>
#include <vector>

#include "ops/correlation-inl.h"
#include "ops/infer_util.h"

namespace ops {
namespace correlation {

DMLC_REGISTER_PARAMETER(CorrelationParam);

Geometry GeometryOf(const CorrelationParam& param, const TShape& data1, const TShape& data2) {
  std::ostringstream os;
  if (data1.ndim() != 4 || data1 != data2) {
    os << "data1 " << data1 << " and data2 " << data2
       << " must be feature maps (batch, channels, height, width) of one shape";
    throw dmlc::Error(os.str());
  }
  if (param.kernel_size % 2 == 0) {
    os << "kernel_size " << param.kernel_size << " must be odd";
    throw dmlc::Error(os.str());
  }
  Geometry g;
  g.batch = data1[0], g.channels = data1[1], g.height = data1[2], g.width = data1[3];
  g.kernel = param.kernel_size;
  g.max_displacement = param.max_displacement;
  g.stride1 = param.stride1;
  g.stride2 = param.stride2;
  g.pad = param.pad_size;
  g.radius = param.max_displacement / param.stride2;
  const index_t border = g.max_displacement + (g.kernel - 1) / 2;
  const auto out_extent = [&](index_t extent) {
    const index_t room = extent + 2 * g.pad - 2 * border;
    return room <= 0 ? 0 : (room + g.stride1 - 1) / g.stride1;
  };
  g.out_h = out_extent(g.height);
  g.out_w = out_extent(g.width);
  if (g.out_h < 1 || g.out_w < 1) {
    os << "the displacements (max_displacement " << g.max_displacement << ") and the window "
       << "(kernel_size " << g.kernel << ") do not fit in the padded feature maps ("
       << g.height + 2 * g.pad << "," << g.width + 2 * g.pad << ")";
    throw dmlc::Error(os.str());
  }
  return g;
}

namespace {

bool CorrelationShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  if (!ShapeIsKnown((*in)[0]) || !ShapeIsKnown((*in)[1])) return false;
  const Geometry g = GeometryOf(GetParam<CorrelationParam>(attrs), (*in)[0], (*in)[1]);
  AssignOutputShape(out, 0, TShape{g.batch, g.Grid() * g.Grid(), g.out_h, g.out_w});
  return true;
}

const bool kRegistered = [] {
  RegisterOp("Correlation")
      .describe(
          "FlowNet's correlation of feature maps data1 and data2 (N, C, H, W), zero-padded by "
          "pad_size: output channel (dy, dx) at position (i, j) is the mean over the channels "
          "and a kernel_size window (starting at position (i, j) * stride1 + "
          "max_displacement of the padded maps) of data1 times (or minus, absolute) data2 "
          "displaced by (dy, dx) * stride2, |dy|, |dx| <= max_displacement / stride2.")
      .set_num_inputs(2)
      .set_num_outputs(1)
      .add_argument("data1", "NDArray-or-Symbol", "The first feature maps.")
      .add_argument("data2", "NDArray-or-Symbol", "The second feature maps.")
      .add_arguments(CorrelationParam::__FIELDS__())
      .set_attr_parser(ParamParser<CorrelationParam>)
      .set_attr<FInferShape>("FInferShape", CorrelationShape)
      .set_attr<FInferType>("FInferType", SameRealType)
      .set_attr<FGradient>("FGradient", FGradient{"_backward_Correlation", true, false});
  RegisterOp("_backward_Correlation")
      .describe("Gradient of Correlation.")
      .set_num_inputs(3)
      .set_num_outputs(2)
      .set_attr<bool>("TIsBackward", true)
      .set_attr_parser(ParamParser<CorrelationParam>);
  SetCorrelationCompute<cpu>();
  return true;
}();

}  // namespace
}  // namespace correlation
}  // namespace ops
