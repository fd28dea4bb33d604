// _zeros, _ones, _full, _arange, _eye, _linspace: arrays from parameters alone (no inputs, no
// gradient). Their shapes and types come from the parameters; the values, for every device:
// creation-inl.h; FCompute<gpu>: creation.cu.
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "ops/creation-inl.h"

namespace ops {
namespace creation {

DMLC_REGISTER_PARAMETER(InitParam);
DMLC_REGISTER_PARAMETER(FullParam);
DMLC_REGISTER_PARAMETER(ArangeParam);
DMLC_REGISTER_PARAMETER(EyeParam);
DMLC_REGISTER_PARAMETER(LinspaceParam);

ArangeRange RangeOf(const ArangeParam& param) {
  ArangeRange r{param.stop.has_value() ? param.start : 0.0, param.step, 0};
  const double stop = param.stop.has_value() ? param.stop.value() : param.start;
  std::ostringstream os;
  os << "_arange: (start, stop, step) = (" << r.start << ", " << stop << ", " << r.step << ")";
  if (!(r.step != 0)) {
    os << ": step must be nonzero";
    throw dmlc::ParamError(os.str());
  }
  const double steps = std::ceil((stop - r.start) / r.step);
  if (!(steps > 0)) {
    os << " is empty: start must be below stop for a positive step, above it for a negative one";
    throw dmlc::ParamError(os.str());
  }
  const double count = steps * param.repeat;
  if (!(count < static_cast<double>(std::numeric_limits<index_t>::max()))) {
    os << " repeated " << param.repeat << " times has more elements than index_t counts";
    throw dmlc::ParamError(os.str());
  }
  r.count = static_cast<index_t>(count);
  return r;
}

namespace {

// The output's shape as given (an empty tuple is no shape at all).
template <typename Param>
bool GivenShape(const NodeAttrs& attrs, std::vector<TShape>*, std::vector<TShape>* out) {
  const TShape& shape = GetParam<Param>(attrs).shape;
  if (shape.ndim() == 0) {
    throw dmlc::ParamError("shape must be given, e.g. shape=(2,3)");
  }
  AssignOutputShape(out, 0, shape);
  return true;
}

bool ArangeShape(const NodeAttrs& attrs, std::vector<TShape>*, std::vector<TShape>* out) {
  AssignOutputShape(out, 0, TShape{RangeOf(GetParam<ArangeParam>(attrs)).count});
  return true;
}

bool EyeShape(const NodeAttrs& attrs, std::vector<TShape>*, std::vector<TShape>* out) {
  const EyeParam& p = GetParam<EyeParam>(attrs);
  AssignOutputShape(out, 0, TShape{p.N, p.M > 0 ? p.M : p.N});
  return true;
}

bool LinspaceShape(const NodeAttrs& attrs, std::vector<TShape>*, std::vector<TShape>* out) {
  AssignOutputShape(out, 0, TShape{GetParam<LinspaceParam>(attrs).num});
  return true;
}

template <typename Param>
bool GivenType(const NodeAttrs& attrs, std::vector<int>*, std::vector<int>* out) {
  AssignOutputType(out, 0, GetParam<Param>(attrs).dtype);
  return true;
}

template <typename Param>
void Define(const std::string& name, const std::string& description, FInferShape shape) {
  Op& op = RegisterOp(name)
               .describe(description)
               .set_num_inputs(0)
               .set_num_outputs(1)
               .set_attr<FInferShape>("FInferShape", shape)
               .set_attr<FInferType>("FInferType", GivenType<Param>);
  op.add_arguments(Param::__FIELDS__());
  op.set_attr_parser(ParamParser<Param>);
}

const bool kRegistered = [] {
  Define<InitParam>("_zeros", "An array of zeros.", GivenShape<InitParam>);
  Define<InitParam>("_ones", "An array of ones.", GivenShape<InitParam>);
  Define<FullParam>("_full", "An array whose every element is value.", GivenShape<FullParam>);
  Define<ArangeParam>("_arange",
                      "Evenly spaced values start, start + step, ... up to stop (not "
                      "included), each repeated `repeat` times.",
                      ArangeShape);
  Define<EyeParam>("_eye", "An N x M matrix of zeros with ones on its k-th diagonal.", EyeShape);
  Define<LinspaceParam>("_linspace",
                        "num evenly spaced values from start to stop (stop included with "
                        "endpoint).",
                        LinspaceShape);
  SetCreationCompute<cpu>();
  return true;
}();

}  // namespace
}  // namespace creation
}  // namespace ops
