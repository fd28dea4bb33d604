// multi_sum_sq(array_0, ..., num_arrays) and multi_lars(lrs, weights_sum_sq, grads_sum_sq,
// wds): LARS's sums of squares and its scaled learning rates. No gradient (MXNet registers
// none). The CPU's parts of a sum are here; the computation for every device: lars-inl.h;
// FCompute<gpu>: lars.cu.
#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "ops/lars-inl.h"
#include "ops/registration_util.h"
#include "ops/vector_loop.h"

namespace ops {
namespace lars {

DMLC_REGISTER_PARAMETER(MultiSumSqParam);
DMLC_REGISTER_PARAMETER(MultiLARSParam);

namespace {

// The sum of x[0, n)^2: packets of float or double lanes, each lane's sum kept apart until
// the end; the 16-bit types widened to float an element at a time.
template <typename DType>
double RangeSumOfSquares(const DType* x, index_t n) {
  if constexpr (std::is_same_v<DType, float> || std::is_same_v<DType, double>) {
    return vec::Sum<DType>(n, [&](index_t i, auto tag) {
      using P = vec::PacketOf<decltype(tag)>;
      const P v = P::LoadUnAligned(x + i);
      return v * v;
    });
  } else {
    float sum = 0;
    for (index_t i = 0; i < n; ++i) {
      const float v = static_cast<float>(x[i]);
      sum += v * v;
    }
    return sum;
  }
}

}  // namespace

void SumOfSquares<cpu>::Parts(const TBlob& x, mshadow::Stream<cpu>*, double* parts) {
  const index_t n = x.Size();
  MSHADOW_REAL_TYPE_SWITCH_EX(x.type_flag_, DType, {
    const DType* data = x.dptr<DType>();
    ParallelRows(PartsOf(n), kSumPart, [&](index_t begin, index_t end) {
      for (index_t p = begin; p < end; ++p) {
        const index_t first = p * kSumPart;
        parts[p] = RangeSumOfSquares(data + first, std::min(kSumPart, n - first));
      }
    });
  });
}

namespace {

// multi_sum_sq: any floating-point inputs (mixed), a float32 output.
bool SumSqType(const NodeAttrs&, std::vector<int>* in, std::vector<int>* out) {
  AssignOutputType(out, 0, mshadow::kFloat32);
  for (const int t : *in) {
    if (t == -1) return false;
    CheckFloatType(t);
  }
  return true;
}

// One float per array: (num_arrays,).
bool SumSqShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  AssignOutputShape(out, 0, TShape{GetParam<MultiSumSqParam>(attrs).num_arrays});
  for (const TShape& s : *in) {
    if (!ShapeIsKnown(s)) return false;
  }
  return true;
}

std::vector<std::string> ArrayNames(const NodeAttrs& attrs) {
  std::vector<std::string> names;
  for (int i = 0; i < GetParam<MultiSumSqParam>(attrs).num_arrays; ++i) {
    names.push_back("array_" + std::to_string(i));  // MXNet's names
  }
  return names;
}

const bool kRegistered = [] {
  RegisterOp("multi_sum_sq")
      .describe(
          "The sum of squares of each input, as float32 of shape (num_arrays,): "
          "accumulated in float (double for float64 inputs) in fixed parts, the same "
          "on any thread count.")
      .set_num_inputs([](const NodeAttrs& attrs) -> uint32_t {
        return GetParam<MultiSumSqParam>(attrs).num_arrays;
      })
      .set_num_outputs(1)
      .add_argument("data", "NDArray-or-Symbol[]", "The arrays.")
      .add_arguments(MultiSumSqParam::__FIELDS__())
      .set_attr_parser(ParamParser<MultiSumSqParam>)
      .set_attr<FListInputNames>("FListInputNames", ArrayNames)
      .set_attr<FInferShape>("FInferShape", SumSqShape)
      .set_attr<FInferType>("FInferType", SumSqType)
      .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace);
  RegisterOp("multi_lars")
      .describe(
          "Learning rates scaled by LARS's trust ratio: lrs * eta * |w| / (|g| + wds * "
          "|w| + eps), with |w| = sqrt(weights_sum_sq) and |g| = sqrt(grads_sum_sq) * "
          "rescale_grad; lrs where either norm is not positive.")
      .set_num_inputs(4)
      .set_num_outputs(1)
      .add_argument("lrs", "NDArray-or-Symbol", "Learning rates to scale.")
      .add_argument("weights_sum_sq", "NDArray-or-Symbol", "Sums of squares of the weights.")
      .add_argument("grads_sum_sq", "NDArray-or-Symbol", "Sums of squares of the gradients.")
      .add_argument("wds", "NDArray-or-Symbol", "Weight decays.")
      .add_arguments(MultiLARSParam::__FIELDS__())
      .set_attr_parser(ParamParser<MultiLARSParam>)
      .set_attr<FInferShape>("FInferShape", ElemwiseShape<4, 1>)
      .set_attr<FInferType>("FInferType", ElemwiseFloatType<4, 1>);
  SetLARSCompute<cpu>();
  return true;
}();

}  // namespace
}  // namespace lars
}  // namespace ops
