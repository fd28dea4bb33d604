// _contrib_bipartite_matching (bipartite_matching-inl.h): shape inference and the CPU
// registration; FCompute<gpu>: bipartite_matching.cu.
#include <sstream>
#include <vector>

#include "ops/bipartite_matching-inl.h"
#include "ops/registration_util.h"

namespace ops {
namespace bipartite_matching {

DMLC_REGISTER_PARAMETER(BipartiteMatchingParam);

namespace {

// data (..., N, M); the rows' columns (..., N), the columns' rows (..., M).
bool MatchingShape(const NodeAttrs&, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  const int nd = data.ndim();
  if (nd < 2) {
    std::ostringstream os;
    os << "_contrib_bipartite_matching: data " << data << " must be score matrices (..., N, M)";
    throw dmlc::Error(os.str());
  }
  std::vector<index_t> rows(data.begin(), data.end() - 1), cols(data.begin(), data.end() - 2);
  cols.push_back(data[nd - 1]);
  AssignOutputShape(out, 0, TShape(rows.begin(), rows.end()));
  AssignOutputShape(out, 1, TShape(cols.begin(), cols.end()));
  return true;
}

const bool kRegistered = [] {
  Op& op = RegisterOp("_contrib_bipartite_matching");
  op.describe(
        "Greedy matching of the rows and columns of score matrices (..., N, M): candidates "
        "best score first (highest, lowest with is_ascend; ties in row-major order), each with "
        "row and column free matched while its score passes threshold; the first that does not "
        "ends it. Outputs each row's column and each column's row, -1 where unmatched.")
      .set_num_inputs(1)
      .set_num_outputs(2)
      .add_argument("data", "NDArray-or-Symbol", "Score matrices (..., N, M).")
      .add_arguments(BipartiteMatchingParam::__FIELDS__())
      .set_attr_parser(ParamParser<BipartiteMatchingParam>)
      .set_attr<FInferShape>("FInferShape", MatchingShape)
      .set_attr<FInferType>("FInferType", SameRealType)
      .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace);  // the markers
  SetZeroGradient(op, "_backward_contrib_bipartite_matching", ParamParser<BipartiteMatchingParam>);
  SetBipartiteMatchingCompute<cpu>();
  return true;
}();

}  // namespace
}  // namespace bipartite_matching
}  // namespace ops
