// Cast(dtype): converts the elements to another type; amp_cast and amp_multicast, MXNet's
// mixed-precision casts of floating-point arrays. Each backward operator converts the
// gradients back to the inputs' types. Kernels, for every device: cast-inl.h; FCompute<gpu>:
// cast.cu.
#include <string>
#include <vector>

#include "ops/cast-inl.h"

namespace ops {
namespace cast {

DMLC_REGISTER_PARAMETER(CastParam);
DMLC_REGISTER_PARAMETER(AmpMultiCastParam);

namespace {

bool CastType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  AssignOutputType(out, 0, GetParam<CastParam>(attrs).dtype);
  return (*in)[0] != -1;
}

// The types amp_cast and amp_multicast convert, as MXNet 1.9.1's: float16, bfloat16 and
// float32 (amp_cast; float64 stays), or any floating-point type (amp_multicast).
bool IsAmpCastable(int type) {
  return type == mshadow::kFloat16 || type == mshadow::kBfloat16 || type == mshadow::kFloat32;
}

bool IsFloat(int type) { return IsAmpCastable(type) || type == mshadow::kFloat64; }

bool AmpCastType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  const int data = (*in)[0];
  if (data == -1) return false;
  AssignOutputType(out, 0, IsAmpCastable(data) ? GetParam<CastParam>(attrs).dtype : data);
  return true;
}

// The widest (or with cast_narrow the narrowest) floating-point type among the inputs, for
// every floating-point input; the others keep theirs.
bool AmpMultiCastType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  const bool narrow = GetParam<AmpMultiCastParam>(attrs).cast_narrow;
  // Widths, bfloat16 as wide as float16 (MXNet ranks only these three).
  auto width = [](int t) { return t == mshadow::kFloat64 ? 3 : t == mshadow::kFloat32 ? 2 : 1; };
  int common = -1;
  for (const int t : *in) {
    if (t == -1) return false;
    if (IsFloat(t) &&
        (common == -1 || (narrow ? width(t) < width(common) : width(t) > width(common)))) {
      common = t;
    }
  }
  for (size_t i = 0; i < in->size(); ++i) {
    AssignOutputType(out, i, IsFloat((*in)[i]) ? common : (*in)[i]);
  }
  return true;
}

bool SameShapes(const NodeAttrs&, std::vector<TShape>* in, std::vector<TShape>* out) {
  for (size_t i = 0; i < in->size(); ++i) {
    if (!ShapeIsKnown((*in)[i])) return false;
    AssignOutputShape(out, i, (*in)[i]);
  }
  return true;
}

uint32_t NumArrays(const NodeAttrs& attrs) {
  return static_cast<uint32_t>(GetParam<AmpMultiCastParam>(attrs).num_outputs);
}

std::vector<std::string> ArrayNames(const NodeAttrs& attrs) {
  std::vector<std::string> names;
  for (uint32_t i = 0; i < NumArrays(attrs); ++i) names.push_back("data_" + std::to_string(i));
  return names;
}

// A cast of one input to the type `infer_type` gives, and its backward operator, which
// converts the gradient back to the input's type.
Op& DefineCast(const std::string& name, const std::string& description, FInferType infer_type) {
  Op& op = RegisterOp(name)
               .describe(description)
               .set_num_inputs(1)
               .set_num_outputs(1)
               .add_argument("data", "NDArray-or-Symbol", "The input array.")
               .add_arguments(CastParam::__FIELDS__())
               .set_attr_parser(ParamParser<CastParam>)
               .set_attr<FInferShape>("FInferShape", ElemwiseShape<1, 1>)
               .set_attr<FInferType>("FInferType", infer_type)
               .set_attr<FGradient>("FGradient", FGradient{"_backward_" + name, false, false});
  RegisterOp("_backward_" + name)
      .describe("Gradient of " + name + ": the output gradient converted to the input's type.")
      .set_num_inputs(1)
      .set_num_outputs(1)
      .set_attr<bool>("TIsBackward", true);
  return op;
}

const bool kRegistered = [] {
  DefineCast("Cast",
             "Converts the elements to dtype. Floating point to integer truncates toward zero, "
             "saturates at the integer type's limits and maps NaN to 0; to bool is 'not zero'; "
             "to bfloat16 drops the low 16 bits of the float32 value, as MXNet 1.9.1's CPU "
             "build.",
             CastType)
      .add_alias("cast");
  DefineCast("amp_cast",
             "Converts float16, bfloat16 and float32 data to dtype, as MXNet's automatic mixed "
             "precision does; other types (float64, integers) pass unchanged.",
             AmpCastType);
  RegisterOp("amp_multicast")
      .describe(
          "Converts every floating-point input to the widest floating-point type among "
          "them (the narrowest with cast_narrow); other inputs pass unchanged.")
      .set_num_inputs(NumArrays)
      .set_num_outputs(NumArrays)
      .add_argument("data", "NDArray-or-Symbol[]", "The input arrays.")
      .add_arguments(AmpMultiCastParam::__FIELDS__())
      .set_attr_parser(ParamParser<AmpMultiCastParam>)
      .set_attr<FListInputNames>("FListInputNames", ArrayNames)
      .set_attr<FInferShape>("FInferShape", SameShapes)
      .set_attr<FInferType>("FInferType", AmpMultiCastType)
      .set_attr<FGradient>("FGradient", FGradient{"_backward_amp_multicast", false, false});
  RegisterOp("_backward_amp_multicast")
      .describe("Gradient of amp_multicast: each output gradient converted to its input's type.")
      .set_num_inputs(NumArrays)
      .set_num_outputs(NumArrays)
      .set_attr<bool>("TIsBackward", true)
      .set_attr_parser(ParamParser<AmpMultiCastParam>);
  SetCastCompute<cpu>();
  return true;
}();

}  // namespace
}  // namespace cast
}  // namespace ops
