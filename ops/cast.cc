// Cast(dtype): converts the elements to another type; its backward operator converts the
// gradient back to the input's type (the same computation, other types).
#include <limits>
#include <type_traits>

#include "ops/kernel_util.h"

namespace ops {
namespace {

struct CastParam : public dmlc::Parameter<CastParam> {
  int dtype;
  DMLC_DECLARE_PARAMETER(CastParam) {
    DMLC_DECLARE_FIELD(dtype)
        .add_enum("float32", mshadow::kFloat32)
        .add_enum("float64", mshadow::kFloat64)
        .add_enum("float16", mshadow::kFloat16)
        .add_enum("uint8", mshadow::kUint8)
        .add_enum("int32", mshadow::kInt32)
        .add_enum("int8", mshadow::kInt8)
        .add_enum("int64", mshadow::kInt64)
        .describe("The type to convert to.");
  }
};

bool CastType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  AssignOutputType(out, 0, GetParam<CastParam>(attrs).dtype);
  return (*in)[0] != -1;
}

// One element converted. Floating point to integer saturates to the integer type's range and
// maps NaN to 0, where C++ would leave the result undefined.
template <typename Dst, typename Src>
Dst Convert(Src value) {
  if constexpr (std::is_integral_v<Dst> && !std::is_integral_v<Src>) {
    const double v = static_cast<double>(value);
    if (v != v) return Dst(0);
    if (v <= static_cast<double>(std::numeric_limits<Dst>::lowest())) {
      return std::numeric_limits<Dst>::lowest();
    }
    if (v >= static_cast<double>(std::numeric_limits<Dst>::max())) {
      return std::numeric_limits<Dst>::max();
    }
    return static_cast<Dst>(v);
  } else {
    return static_cast<Dst>(value);
  }
}

// out[i] = in[i] converted to the output's type, for any pair of types.
void CastCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  MSHADOW_TYPE_SWITCH(in[0].type_flag_, SrcType, {
    MSHADOW_TYPE_SWITCH(out[0].type_flag_, DstType, {
      const SrcType* x = in[0].dptr<SrcType>();
      DstType* y = out[0].dptr<DstType>();
      const index_t n = out[0].Size();
      for (index_t i = 0; i < n; ++i) {
        AssignValue(y + i, req[0], Convert<DstType>(x[i]));
      }
    });
  });
}

}  // namespace

DMLC_REGISTER_PARAMETER(CastParam);

OPS_REGISTER_OP(Cast)
    .describe("Converts the elements to dtype. Floating point to integer truncates toward "
              "zero, saturates at the integer type's limits and maps NaN to 0.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "The input array.")
    .add_arguments(CastParam::__FIELDS__())
    .set_attr_parser(ParamParser<CastParam>)
    .set_attr<FInferShape>("FInferShape", ElemwiseShape<1, 1>)
    .set_attr<FInferType>("FInferType", CastType)
    .set_attr<FCompute>("FCompute<cpu>", CastCompute)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_Cast", false, false});

OPS_REGISTER_OP(_backward_Cast)
    .describe("Gradient of Cast: the output gradient converted to the input's type.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr<bool>("TIsBackward", true)
    .set_attr<FCompute>("FCompute<cpu>", CastCompute);

}  // namespace ops
