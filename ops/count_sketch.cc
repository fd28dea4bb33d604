// _contrib_count_sketch (count_sketch-inl.h): shapes, types and the CPU registration;
// FCompute<gpu>: count_sketch.cu.
#include <sstream>
#include <vector>

#include "ops/count_sketch-inl.h"
#include "ops/infer.h"
#include "ops/registration_util.h"

namespace ops {
namespace count_sketch {

DMLC_REGISTER_PARAMETER(CountSketchParam);

namespace {

// data (..., in_dim); h and s (1, in_dim); the output (..., out_dim).
bool CountSketchShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  const index_t in_dim = data[data.ndim() - 1];
  const TShape hashes{1, in_dim};
  for (int i : {1, 2}) {
    if (ShapeIsKnown((*in)[i]) && (*in)[i] != hashes) {
      std::ostringstream os;
      os << "_contrib_count_sketch: " << (i == 1 ? "h " : "s ") << (*in)[i] << " must be " << hashes
         << ", one per element of data " << data << "'s vectors";
      throw dmlc::Error(os.str());
    }
    AssignInputShape(in, i, hashes);
  }
  TShape sketched = data;
  sketched[data.ndim() - 1] = GetParam<CountSketchParam>(attrs).out_dim;
  AssignOutputShape(out, 0, sketched);
  return true;
}

const bool kRegistered = [] {
  Op& op = RegisterOp("_contrib_count_sketch");
  op.describe(
        "The count sketch of each vector x along data's last axis: y[k] = the sum of s[i] x[i] "
        "over the i with h[i] = k, for hash positions h in [0, out_dim) and signs s, both (1, "
        "in_dim). Gradients in data and s; h's is zero.")
      .set_num_inputs(3)
      .set_num_outputs(1)
      .add_argument("data", "NDArray-or-Symbol", "The vectors (..., in_dim).")
      .add_argument("h", "NDArray-or-Symbol", "Each element's position in the sketch.")
      .add_argument("s", "NDArray-or-Symbol", "Each element's sign (any factor).")
      .add_arguments(CountSketchParam::__FIELDS__())
      .set_attr_parser(ParamParser<CountSketchParam>)
      .set_attr<FInferShape>("FInferShape", CountSketchShape)
      .set_attr<FInferType>("FInferType", SameRealType)
      .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace)
      .set_attr<FGradient>("FGradient", FGradient{"_backward_contrib_count_sketch", true, false});
  RegisterOp("_backward_contrib_count_sketch")
      .describe("Gradient of _contrib_count_sketch in data, h (zero) and s.")
      .set_num_inputs(4)
      .set_num_outputs(3)
      .set_attr<bool>("TIsBackward", true)
      .set_attr_parser(ParamParser<CountSketchParam>)
      .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace);
  SetCountSketchCompute<cpu>();
  return true;
}();

}  // namespace
}  // namespace count_sketch
}  // namespace ops
