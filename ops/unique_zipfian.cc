// _sample_unique_zipfian (unique_zipfian-inl.h): parameters, shapes, types, resources and the
// CPU registration; FCompute<gpu>: unique_zipfian.cu.
#include <sstream>
#include <string>
#include <vector>

#include "ops/infer.h"
#include "ops/random_request.h"
#include "ops/unique_zipfian-inl.h"

namespace ops {
namespace unique_zipfian {

DMLC_REGISTER_PARAMETER(UniqueZipfianParam);

namespace {

// shape is (batch, num_sampled) with num_sampled <= range_max: dmlc::ParamErrors otherwise.
void Parse(NodeAttrs* attrs) {
  ParamParser<UniqueZipfianParam>(attrs);
  const UniqueZipfianParam& p = GetParam<UniqueZipfianParam>(*attrs);
  std::ostringstream os;
  if (p.shape.ndim() != 2) {
    os << "_sample_unique_zipfian: shape " << p.shape << "; valid: (batch, num_sampled)";
  } else if (p.shape[1] > p.range_max) {
    os << "_sample_unique_zipfian: shape " << p.shape << " asks for " << p.shape[1]
       << " distinct classes of range_max " << p.range_max
       << "; valid: num_sampled <= " << p.range_max;
  }
  if (!os.str().empty()) throw dmlc::ParamError(os.str());
}

bool UniqueZipfianShape(const NodeAttrs& attrs, std::vector<TShape>*, std::vector<TShape>* out) {
  const TShape& shape = GetParam<UniqueZipfianParam>(attrs).shape;
  AssignOutputShape(out, 0, shape);
  AssignOutputShape(out, 1, TShape{shape[0]});
  return true;
}

bool UniqueZipfianType(const NodeAttrs&, std::vector<int>*, std::vector<int>* out) {
  AssignOutputType(out, 0, mshadow::kInt64);
  AssignOutputType(out, 1, mshadow::kInt64);
  return true;
}

const bool kRegistered = [] {
  RegisterOp("_sample_unique_zipfian")
      .describe(
          "Each of shape[0] rows draws shape[1] distinct classes of [0, range_max) from the "
          "approximately log-uniform distribution round(exp(u log(range_max))) - 1, u uniform, "
          "redrawing repeats; returns the samples and each row's draws (int64).")
      .set_num_inputs(0)
      .set_num_outputs(2)
      .add_arguments(UniqueZipfianParam::__FIELDS__())
      .set_attr_parser(Parse)
      .set_attr<FInferShape>("FInferShape", UniqueZipfianShape)
      .set_attr<FInferType>("FInferType", UniqueZipfianType)
      .set_attr<FResourceRequest>("FResourceRequest", RequestRandomAndTempSpace);
  SetUniqueZipfianCompute<cpu>();
  return true;
}();

}  // namespace
}  // namespace unique_zipfian
}  // namespace ops
