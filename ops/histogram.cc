// _histogram (histogram-inl.h): its parameters, shapes and types, the CPU registration;
// FCompute<gpu>: histogram.cu.
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "ops/histogram-inl.h"
#include "ops/infer.h"
#include "ops/registration_util.h"

namespace ops {
namespace histogram {

DMLC_REGISTER_PARAMETER(HistogramParam);

namespace {

// bin_cnt and range come together (bin_cnt >= 1, range two finite numbers, lower <= upper) or
// not at all: dmlc::ParamErrors naming the values.
void Parse(NodeAttrs* attrs) {
  ParamParser<HistogramParam>(attrs);
  const HistogramParam& p = GetParam<HistogramParam>(*attrs);
  if (p.bin_cnt.has_value() != p.range.has_value()) {
    throw dmlc::ParamError(
        "_histogram: bin_cnt and range come together (equal bins over range) or not at all "
        "(the edges as the input bins); got only " +
        std::string(p.bin_cnt.has_value() ? "bin_cnt" : "range"));
  }
  if (!p.bin_cnt.has_value()) return;
  if (p.bin_cnt.value() < 1) {
    throw dmlc::ParamError("_histogram: bin_cnt " + std::to_string(p.bin_cnt.value()) +
                           "; valid: at least 1 bin");
  }
  const FloatTuple& r = p.range.value();
  if (r.size() != 2 || !std::isfinite(r[0]) || !std::isfinite(r[1]) || r[0] > r[1]) {
    std::ostringstream os;
    os << "_histogram: range " << r << "; valid: (lower, upper), finite, lower <= upper";
    throw dmlc::ParamError(os.str());
  }
}

uint32_t NumInputs(const NodeAttrs& attrs) {
  return GetParam<HistogramParam>(attrs).bin_cnt.has_value() ? 1 : 2;
}

std::vector<std::string> InputNames(const NodeAttrs& attrs) {
  if (NumInputs(attrs) == 1) return {"data"};
  return {"data", "bins"};
}

// counts (bin_cnt) and edges (bin_cnt + 1); with bins (n >= 2) given, (n - 1) and (n).
bool HistogramShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const HistogramParam& p = GetParam<HistogramParam>(attrs);
  index_t edges;
  if (p.bin_cnt.has_value()) {
    edges = p.bin_cnt.value() + 1;
  } else {
    const TShape& bins = (*in)[1];
    if (!ShapeIsKnown(bins)) return false;
    if (bins.ndim() != 1 || bins[0] < 2) {
      std::ostringstream os;
      os << "_histogram: bins " << bins << " must be a vector of at least 2 edges";
      throw dmlc::Error(os.str());
    }
    edges = bins[0];
  }
  AssignOutputShape(out, 0, TShape{edges - 1});
  AssignOutputShape(out, 1, TShape{edges});
  return ShapeIsKnown((*in)[0]);
}

// data (and bins) float32 or float64; counts int64, edges the data's type.
bool HistogramType(const NodeAttrs&, std::vector<int>* in, std::vector<int>* out) {
  int type = -1;
  for (int t : *in) {
    if (type == -1) type = t;
  }
  if (type == -1) type = (*out)[1];
  AssignOutputType(out, 0, mshadow::kInt64);
  if (type == -1) return false;
  CheckRealType(type);
  for (size_t i = 0; i < in->size(); ++i) AssignInputType(in, static_cast<int>(i), type);
  AssignOutputType(out, 1, type);
  return true;
}

const bool kRegistered = [] {
  RegisterOp("_histogram")
      .add_alias("_npi_histogram")
      .describe(
          "The count (int64) of data's elements in each bin, and the bins' edges: bin_cnt "
          "equal bins over range, or the non-decreasing edges bins. A bin holds [edge, next "
          "edge), the last its upper edge too; NaN and elements outside are not counted.")
      .set_num_inputs(NumInputs)
      .set_num_outputs(2)
      .add_argument("data", "NDArray-or-Symbol", "The elements to count (any shape).")
      .add_argument("bins", "NDArray-or-Symbol", "The edges, without bin_cnt and range.")
      .add_arguments(HistogramParam::__FIELDS__())
      .set_attr_parser(Parse)
      .set_attr<FListInputNames>("FListInputNames", InputNames)
      .set_attr<FInferShape>("FInferShape", HistogramShape)
      .set_attr<FInferType>("FInferType", HistogramType)
      .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace);
  SetHistogramCompute<cpu>();
  return true;
}();

}  // namespace
}  // namespace histogram
}  // namespace ops
