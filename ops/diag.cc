// diag(k, axis1, axis2): a diagonal of data of 2 or more axes, or the matrix of a 1-d input
// on its k-th diagonal; its gradient is the other direction. The view and shapes are here;
// the computation, for every device: diag-inl.h; FCompute<gpu>: diag.cu.
#include <algorithm>
#include <sstream>
#include <vector>

#include "ops/diag-inl.h"

namespace ops {
namespace diag {

DMLC_REGISTER_PARAMETER(DiagParam);

DiagView ViewOf(const DiagParam& param, const TShape& data) {
  DiagView v;
  const index_t k = param.k;
  if (data.ndim() == 1) {
    v.P = v.Q = data[0] + (k < 0 ? -k : k);
    v.length = data[0];
    v.p_offset = k < 0 ? -k : 0;
    v.q_offset = k > 0 ? k : 0;
    return v;
  }
  std::ostringstream os;
  if (data.ndim() == 0) {
    os << "diag takes data of 1 or more axes, got " << data;
    throw dmlc::Error(os.str());
  }
  const int ndim = static_cast<int>(data.ndim());
  const int axis1 = NormalizeAxis(param.axis1, ndim, "axis1");
  const int axis2 = NormalizeAxis(param.axis2, ndim, "axis2");
  if (axis1 == axis2) {
    os << "diag: axis1 " << param.axis1 << " and axis2 " << param.axis2 << " name the same axis "
       << axis1 << " of " << data;
    throw dmlc::Error(os.str());
  }
  // The diagonal's position on the later axis q is its position on the earlier p plus k_pq.
  const int p = std::min(axis1, axis2), q = std::max(axis1, axis2);
  const index_t k_pq = axis1 < axis2 ? k : -k;
  v.A = data.ProdShape(0, p);
  v.P = data[p];
  v.B = data.ProdShape(p + 1, q);
  v.Q = data[q];
  v.C = data.ProdShape(q + 1, ndim);
  v.p_offset = k_pq < 0 ? -k_pq : 0;
  v.q_offset = k_pq > 0 ? k_pq : 0;
  v.length = std::min(v.P - v.p_offset, v.Q - v.q_offset);
  if (v.length <= 0) {
    os << "diag: diagonal k = " << k << " of axes " << axis1 << " and " << axis2 << " of " << data
       << " does not exist; valid k: [" << -(data[axis1] - 1) << ", " << data[axis2] - 1 << "]";
    throw dmlc::Error(os.str());
  }
  return v;
}

namespace {

bool DiagShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  const DiagParam& param = GetParam<DiagParam>(attrs);
  const DiagView v = ViewOf(param, data);
  if (data.ndim() == 1) {
    AssignOutputShape(out, 0, TShape{v.P, v.Q});
    return true;
  }
  const int ndim = static_cast<int>(data.ndim());
  const int axis1 = NormalizeAxis(param.axis1, ndim, "axis1");
  const int axis2 = NormalizeAxis(param.axis2, ndim, "axis2");
  std::vector<index_t> dims;
  for (int a = 0; a < ndim; ++a) {
    if (a != axis1 && a != axis2) dims.push_back(data[a]);
  }
  dims.push_back(v.length);
  AssignOutputShape(out, 0, TShape(dims.begin(), dims.end()));
  return true;
}

const bool kRegistered = [] {
  RegisterOp("diag")
      .describe(
          "The k-th diagonal over axis1 and axis2 as a new last axis (data of 2 or more "
          "axes, as NumPy's diagonal), or the square matrix with a 1-d input on its k-th "
          "diagonal (as NumPy's diag).")
      .set_num_inputs(1)
      .set_num_outputs(1)
      .add_argument("data", "NDArray-or-Symbol", "The input array.")
      .add_arguments(DiagParam::__FIELDS__())
      .set_attr_parser(ParamParser<DiagParam>)
      .set_attr<FInferShape>("FInferShape", DiagShape)
      .set_attr<FInferType>("FInferType", ElemwiseRealType<1, 1>)
      .set_attr<FGradient>("FGradient", FGradient{"_backward_diag", false, false});
  RegisterOp("_backward_diag")
      .describe(
          "Gradient of diag: the output gradient placed back on (or read off) the "
          "diagonal.")
      .set_num_inputs(1)
      .set_num_outputs(1)
      .set_attr<bool>("TIsBackward", true)
      .set_attr_parser(ParamParser<DiagParam>);
  SetDiagCompute<cpu>();
  return true;
}();

}  // namespace
}  // namespace diag
}  // namespace ops
