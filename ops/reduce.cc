// Reductions sum, mean, max, min over axes (axis: a tuple, None for all; keepdims; exclude),
// with backward operators.
#include <algorithm>
#include <limits>

#include "mshadow/tensor_blob.h"
#include "ops/kernel_util.h"
#include "ops/strided_loop.h"

namespace ops {
namespace {

struct ReduceParam : public dmlc::Parameter<ReduceParam> {
  dmlc::optional<TShape> axis;
  bool keepdims;
  bool exclude;
  DMLC_DECLARE_PARAMETER(ReduceParam) {
    DMLC_DECLARE_FIELD(axis)
        .set_default(dmlc::optional<TShape>())
        .describe("The axes to reduce, e.g. (0,2); negative values count from the end. None "
                  "reduces every axis.");
    DMLC_DECLARE_FIELD(keepdims).set_default(false).describe(
        "Keep the reduced axes, with extent 1.");
    DMLC_DECLARE_FIELD(exclude).set_default(false).describe(
        "Reduce every axis except those in axis.");
  }
};

// Which axes of a rank-`ndim` input are reduced; bad or repeated axes are dmlc::Errors.
std::vector<bool> ReducedAxes(const ReduceParam& param, int ndim) {
  std::vector<bool> reduced(ndim, !param.axis.has_value());
  if (param.axis.has_value()) {
    for (const index_t axis : *param.axis) {
      const int a = NormalizeAxis(static_cast<int>(axis), ndim);
      if (reduced[a]) {
        std::ostringstream os;
        os << "axis " << axis << " appears twice in " << *param.axis;
        throw dmlc::Error(os.str());
      }
      reduced[a] = true;
    }
    if (param.exclude) reduced.flip();
  }
  return reduced;
}

// The output shape with kept dims (reduced axes of extent 1), used for the strides.
TShape KeptShape(const TShape& in, const std::vector<bool>& reduced) {
  TShape kept = in;
  for (index_t d = 0; d < in.ndim(); ++d) {
    if (reduced[d]) kept[d] = 1;
  }
  return kept;
}

bool ReduceShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const ReduceParam& param = GetParam<ReduceParam>(attrs);
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  const std::vector<bool> reduced = ReducedAxes(param, static_cast<int>(data.ndim()));
  if (param.keepdims) {
    AssignOutputShape(out, 0, KeptShape(data, reduced));
    return true;
  }
  std::vector<index_t> dims;
  for (index_t d = 0; d < data.ndim(); ++d) {
    if (!reduced[d]) dims.push_back(data[d]);
  }
  if (dims.empty()) dims.push_back(1);  // every axis reduced: a (1,) result
  AssignOutputShape(out, 0, TShape(dims.begin(), dims.end()));
  return true;
}

enum class Reducer { kSum, kMean, kMax, kMin };

// Strides that map each input element to its output element (0 along reduced axes).
std::vector<index_t> OutputStrides(const TShape& in, const NodeAttrs& attrs) {
  const auto reduced = ReducedAxes(GetParam<ReduceParam>(attrs), static_cast<int>(in.ndim()));
  return BroadcastStrides(KeptShape(in, reduced), in);
}

template <Reducer kReducer>
void ReduceCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const TShape& shape = in[0].shape_;
  const std::vector<index_t> out_strides = OutputStrides(shape, attrs);
  const std::vector<index_t> in_strides = RowMajorStrides(shape);
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    const index_t n = out[0].Size();
    // Accumulate in temporary space, then write as req says.
    auto acc = ctx.requested[0].get_space_typed<cpu, 1, DType>(Shape1(n), nullptr);
    const DType init = kReducer == Reducer::kMax   ? -std::numeric_limits<DType>::infinity()
                       : kReducer == Reducer::kMin ? std::numeric_limits<DType>::infinity()
                                                   : DType(0);
    acc = init;
    const DType* x = in[0].dptr<DType>();
    ForEachStrided<2>(shape, {in_strides.data(), out_strides.data()},
                      [&](index_t, const std::array<index_t, 2>& at) {
                        DType& a = acc[at[1]];
                        const DType v = x[at[0]];
                        if constexpr (kReducer == Reducer::kMax) {
                          a = mshadow::op::maximum::Map(a, v);
                        } else if constexpr (kReducer == Reducer::kMin) {
                          a = mshadow::op::minimum::Map(a, v);
                        } else {
                          a += v;
                        }
                      });
    if (kReducer == Reducer::kMean && n > 0) acc /= static_cast<DType>(shape.Size() / n);
    Assign(Flat<DType>(out[0]), req[0], mshadow::expr::F<mshadow::op::identity>(acc));
  });
}

// Inputs: out_grad, x, y. sum: dx = g; mean: dx = g / count; max/min: dx = g where x == y.
template <Reducer kReducer>
void ReduceBackwardCompute(const NodeAttrs& attrs, const OpContext&,
                           const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                           const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const TShape& shape = out[0].shape_;
  const std::vector<index_t> out_strides = OutputStrides(shape, attrs);
  const std::vector<index_t> in_strides = RowMajorStrides(shape);
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    const DType* g = in[0].dptr<DType>();
    const DType* x = in[1].dptr<DType>();
    const DType* y = in[2].dptr<DType>();
    DType* dx = out[0].dptr<DType>();
    const index_t count = in[0].Size() == 0 ? 1 : shape.Size() / in[0].Size();
    ForEachStrided<2>(shape, {in_strides.data(), out_strides.data()},
                      [&](index_t, const std::array<index_t, 2>& at) {
                        DType grad = g[at[1]];
                        if constexpr (kReducer == Reducer::kMean) {
                          grad /= static_cast<DType>(count);
                        } else if constexpr (kReducer != Reducer::kSum) {
                          if (x[at[0]] != y[at[1]]) grad = DType(0);
                        }
                        AssignValue(dx + at[0], req[0], grad);
                      });
  });
}

template <Reducer kReducer>
void DefineReduce(const std::string& name, const std::string& description) {
  const std::string backward = "_backward_" + name;
  RegisterOp(name)
      .describe(description)
      .set_num_inputs(1)
      .set_num_outputs(1)
      .add_argument("data", "NDArray-or-Symbol", "The input array.")
      .add_arguments(ReduceParam::__FIELDS__())
      .set_attr_parser(ParamParser<ReduceParam>)
      .set_attr<FInferShape>("FInferShape", ReduceShape)
      .set_attr<FInferType>("FInferType", ElemwiseRealType<1, 1>)
      .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace)
      .set_attr<FCompute>("FCompute<cpu>", FCompute(ReduceCompute<kReducer>))
      .set_attr<FGradient>("FGradient", FGradient{backward, true, true});
  RegisterBackwardOp(backward, 3, 1)
      .describe("Gradient of " + name + ".")
      .set_attr_parser(ParamParser<ReduceParam>)
      .set_attr<FCompute>("FCompute<cpu>", FCompute(ReduceBackwardCompute<kReducer>));
}

const bool kRegistered = [] {
  DefineReduce<Reducer::kSum>("sum", "Sum over the given axes.");
  DefineReduce<Reducer::kMean>("mean", "Mean over the given axes.");
  DefineReduce<Reducer::kMax>("max", "Maximum over the given axes; NaN if any element is NaN.");
  DefineReduce<Reducer::kMin>("min", "Minimum over the given axes; NaN if any element is NaN.");
  return true;
}();

}  // namespace

DMLC_REGISTER_PARAMETER(ReduceParam);

}  // namespace ops
