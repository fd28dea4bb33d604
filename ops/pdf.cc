// The density operators _random_pdf_<distribution> and their backward operators (pdf-inl.h):
// shapes, types and the CPU registration; FCompute<gpu>: pdf.cu.
#include <sstream>
#include <string>
#include <vector>

#include "ops/infer.h"
#include "ops/pdf-inl.h"

namespace ops {
namespace pdf {

DMLC_REGISTER_PARAMETER(PdfParam);

namespace {

// The parameters (inputs 1...) share one shape: the first known one. Unknown: an empty shape.
TShape ParametersShape(const NodeAttrs& attrs, std::vector<TShape>* in) {
  TShape shape;
  for (size_t i = 1; i < in->size(); ++i) {
    if (!ShapeIsKnown(shape) && ShapeIsKnown((*in)[i])) shape = (*in)[i];
  }
  if (!ShapeIsKnown(shape)) return shape;
  for (size_t i = 1; i < in->size(); ++i) {
    const TShape& s = (*in)[i];
    if (ShapeIsKnown(s) && s != shape) {
      std::ostringstream os;
      os << attrs.op->name << ": the parameters' shapes " << shape << " and " << s
         << " differ; each distribution's parameters sit at one index of one shape";
      throw dmlc::Error(os.str());
    }
    AssignInputShape(in, static_cast<int>(i), shape);
  }
  return shape;
}

// sample S + E, every parameter S; the densities S + E.
bool DensityShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape parameters = ParametersShape(attrs, in);
  const TShape& sample = (*in)[0];
  if (!ShapeIsKnown(sample) || !ShapeIsKnown(parameters)) return false;
  const int lead = parameters.ndim();
  if (lead > sample.ndim() || !std::equal(parameters.begin(), parameters.end(), sample.begin())) {
    std::ostringstream os;
    os << attrs.op->name << ": the parameters' shape " << parameters
       << " must be the leading axes of the sample's " << sample;
    throw dmlc::Error(os.str());
  }
  AssignOutputShape(out, 0, sample);
  return true;
}

// sample S + E + (k), alpha S + (k) with k >= 1; the densities S + E, (1) for a sample of one
// axis (one vector).
bool DirichletShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& sample = (*in)[0];
  const TShape& alpha = (*in)[1];
  if (!ShapeIsKnown(sample) || !ShapeIsKnown(alpha)) return false;
  const int n = sample.ndim(), lead = alpha.ndim() - 1;
  if (alpha.ndim() == 0 || lead >= n) {
    std::ostringstream os;
    os << attrs.op->name << ": alpha " << alpha << " must have 1 to " << n
       << " axes (the sample's leading axes, then k), for the sample " << sample;
    throw dmlc::Error(os.str());
  }
  std::vector<index_t> expected(sample.begin(), sample.begin() + lead);
  expected.push_back(sample[n - 1]);
  if (alpha != TShape(expected.begin(), expected.end())) {
    std::ostringstream os;
    os << attrs.op->name << ": alpha " << alpha << " must be "
       << TShape(expected.begin(), expected.end()) << ": the sample's first " << lead
       << " axes, then its last (k, each vector's length), for the sample " << sample;
    throw dmlc::Error(os.str());
  }
  if (sample[n - 1] == 0) {
    std::ostringstream os;
    os << attrs.op->name << ": the sample " << sample
       << " has vectors of length 0; valid: k >= 1 categories";
    throw dmlc::Error(os.str());
  }
  AssignOutputShape(out, 0, n == 1 ? TShape{1} : TShape(sample.begin(), sample.end() - 1));
  return true;
}

template <typename Dist>
void Define(FInferShape shape) {
  constexpr int kParams = kNumParams<Dist>;
  std::string parameters = Dist::kParams[0];
  if (kParams == 2) parameters += std::string(", ") + Dist::kParams[1];
  Op& op = RegisterOp(OpName<Dist>());
  const std::string description =
      std::string("The density p(x) of each sample x under the ") + Dist::kName +
      " distribution whose parameters (" + parameters +
      ") sit at its leading indices, or with is_log log p(x) = " + Dist::kLogDensity +
      ". Parameters outside " + Dist::kDomain + " are errors.";
  op.describe(description)
      .add_alias(std::string("random_pdf_") + Dist::kName)
      .set_num_inputs(1 + kParams)
      .set_num_outputs(1)
      .add_argument("sample", "NDArray-or-Symbol", "Samples of the distributions.");
  for (const char* parameter : Dist::kParams) {
    op.add_argument(parameter, "NDArray-or-Symbol",
                    "One parameter of each distribution, its shape the sample's leading axes.");
  }
  op.add_arguments(PdfParam::__FIELDS__())
      .set_attr_parser(ParamParser<PdfParam>)
      .set_attr<FInferShape>("FInferShape", shape)
      .set_attr<FInferType>("FInferType", SameRealType)
      .set_attr<FGradient>("FGradient", FGradient{BackwardOpName<Dist>(), true, true});
  const std::string gradient_of =
      "Gradient of " + OpName<Dist>() + " in the sample and in " + parameters + ".";
  Op& backward = RegisterOp(BackwardOpName<Dist>());
  backward.describe(gradient_of)
      .set_num_inputs(3 + kParams)
      .set_num_outputs(1 + kParams)
      .set_attr<bool>("TIsBackward", true)
      .set_attr_parser(ParamParser<PdfParam>)
      .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace);
}

const bool kRegistered = [] {
  ForEachScalarDistribution(
      [](auto tag) { Define<typename decltype(tag)::type>(FInferShape(DensityShape)); });
  Define<dirichlet_pdf>(FInferShape(DirichletShape));
  SetPdfCompute<cpu>();
  return true;
}();

}  // namespace
}  // namespace pdf
}  // namespace ops
