// khatri_rao(num_args): the column-wise Kronecker product of matrices with the same columns,
// and (beyond MXNet, which registers none) its gradient. Shapes are here; the computation, for
// every device: khatri_rao-inl.h; FCompute<gpu>: khatri_rao.cu.
#include <sstream>
#include <string>
#include <vector>

#include "ops/infer_util.h"
#include "ops/khatri_rao-inl.h"

namespace ops {
namespace khatri_rao {

DMLC_REGISTER_PARAMETER(KhatriRaoParam);

namespace {

uint32_t NumArgs(const NodeAttrs& attrs) {
  return static_cast<uint32_t>(GetParam<KhatriRaoParam>(attrs).num_args);
}

std::vector<std::string> InputNames(const NodeAttrs& attrs) {
  std::vector<std::string> names;
  for (uint32_t i = 0; i < NumArgs(attrs); ++i) names.push_back("arg" + std::to_string(i));
  return names;
}

bool KhatriRaoShape(const NodeAttrs&, std::vector<TShape>* in, std::vector<TShape>* out) {
  for (const TShape& s : *in) {
    if (!ShapeIsKnown(s)) return false;
  }
  const TShape& first = (*in)[0];
  index_t rows = 1;
  for (size_t i = 0; i < in->size(); ++i) {
    const TShape& s = (*in)[i];
    std::ostringstream os;
    if (s.ndim() != 2 || s[1] != first[1] || first.ndim() != 2) {
      os << "input arg" << i << " has shape " << s << "; every input must be a matrix with "
         << (first.ndim() == 2 ? "arg0's " + std::to_string(first[1]) : std::string("the same"))
         << " columns";
      throw dmlc::Error(os.str());
    }
    if (__builtin_mul_overflow(rows, s[0], &rows)) {
      os << "the product's rows (the inputs' rows multiplied) overflow at arg" << i;
      throw dmlc::Error(os.str());
    }
  }
  AssignOutputShape(out, 0, TShape{rows, first[1]});
  return true;
}

}  // namespace

OPS_REGISTER_OP(khatri_rao)
    .describe(
        "The column-wise Kronecker product of matrices (M_1, N) ... (M_k, N): (M_1 * ... * "
        "M_k, N), row (i_1, ..., i_k) (the first input's row most significant) the product of "
        "the inputs' rows i_j. MXNet registers no gradient; this one has it.")
    .set_num_inputs(NumArgs)
    .set_num_outputs(1)
    .add_argument("args", "NDArray-or-Symbol[]", "The matrices (arg0, arg1, ...).")
    .add_arguments(KhatriRaoParam::__FIELDS__())
    .set_attr_parser(ParamParser<KhatriRaoParam>)
    .set_attr<FListInputNames>("FListInputNames", InputNames)
    .set_attr<FInferShape>("FInferShape", KhatriRaoShape)
    .set_attr<FInferType>("FInferType", SameRealType)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_khatri_rao", true, false});

OPS_REGISTER_OP(_backward_khatri_rao)
    .describe("Gradient of khatri_rao.")
    .set_num_inputs([](const NodeAttrs& attrs) { return NumArgs(attrs) + 1; })
    .set_num_outputs(NumArgs)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<KhatriRaoParam>);

namespace {
const bool kRegistered = [] {
  SetKhatriRaoCompute<cpu>();
  return true;
}();
}  // namespace

}  // namespace khatri_rao
}  // namespace ops
