// Concat(dim, num_args): joins arrays along an axis; its backward operator splits the
// gradient.
#include <sstream>

#include "ops/kernel_util.h"
#include "ops/vector_loop.h"

namespace ops {
namespace {

struct ConcatParam : public dmlc::Parameter<ConcatParam> {
  int num_args;
  int dim;
  DMLC_DECLARE_PARAMETER(ConcatParam) {
    DMLC_DECLARE_FIELD(num_args).set_lower_bound(1).describe("Number of inputs.");
    DMLC_DECLARE_FIELD(dim).set_default(1).describe("The axis to join along.");
  }
};

std::vector<std::string> InputNames(const NodeAttrs& attrs) {
  std::vector<std::string> names;
  for (int i = 0; i < GetParam<ConcatParam>(attrs).num_args; ++i) {
    names.push_back("arg" + std::to_string(i));
  }
  return names;
}

bool ConcatShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const ConcatParam& param = GetParam<ConcatParam>(attrs);
  for (const TShape& s : *in) {
    if (!ShapeIsKnown(s)) return false;
  }
  const TShape& first = (*in)[0];
  const int axis = NormalizeAxis(param.dim, static_cast<int>(first.ndim()), "dim");
  TShape result = first;
  result[axis] = 0;
  for (size_t i = 0; i < in->size(); ++i) {
    const TShape& s = (*in)[i];
    bool compatible = s.ndim() == first.ndim();
    for (index_t d = 0; compatible && d < s.ndim(); ++d) compatible = d == axis || s[d] == first[d];
    if (!compatible) {
      std::ostringstream os;
      os << "input arg" << i << " has shape " << s << ", which does not match arg0's " << first
         << " on every axis but " << axis;
      throw dmlc::Error(os.str());
    }
    result[axis] += s[axis];
  }
  AssignOutputShape(out, 0, result);
  return true;
}

// Copies between the inputs (or their gradients) and the joined array, viewed as (outer,
// extent * inner) rows: each part's row is one contiguous run in both. kSplit: from the
// joined array into the parts. Rows are split over the engine's threads.
template <bool kSplit>
void ConcatCopy(const NodeAttrs& attrs, const std::vector<TBlob>& parts, const TBlob& joined,
                const std::vector<OpReqType>& req) {
  const int axis = NormalizeAxis(GetParam<ConcatParam>(attrs).dim, joined.ndim(), "dim");
  const index_t outer = joined.shape_.ProdShape(0, axis);
  const index_t inner = joined.shape_.ProdShape(axis + 1, joined.ndim());
  const index_t joined_row = joined.shape_[axis] * inner;
  MSHADOW_SGL_DBL_TYPE_SWITCH(joined.type_flag_, DType, {
    DType* all = joined.dptr<DType>();
    ParallelRows(outer, joined_row, [&](index_t begin, index_t end) {
      index_t column = 0;
      for (size_t p = 0; p < parts.size(); ++p) {
        const index_t row = parts[p].shape_[axis] * inner;
        DType* part = parts[p].dptr<DType>();
        vec::WithReq(kSplit ? req[p] : req[0], [&](auto add) {
          constexpr bool kAdd = decltype(add)::value;
          for (index_t o = begin; o < end; ++o) {
            DType* in_joined = all + o * joined_row + column;
            DType* in_part = part + o * row;
            if (kSplit) {
              CopyRun<kAdd>(in_part, in_joined, row);
            } else {
              CopyRun<kAdd>(in_joined, in_part, row);
            }
          }
        });
        column += row;
      }
    });
  });
}

void ConcatCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] != kNullOp) ConcatCopy<false>(attrs, in, out[0], req);
}

// Inputs: out_grad. Outputs: one gradient per input.
void ConcatBackwardCompute(const NodeAttrs& attrs, const OpContext&,
                           const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                           const std::vector<TBlob>& out) {
  ConcatCopy<true>(attrs, out, in[0], req);
}

uint32_t NumArgs(const NodeAttrs& attrs) {
  return static_cast<uint32_t>(GetParam<ConcatParam>(attrs).num_args);
}

}  // namespace

DMLC_REGISTER_PARAMETER(ConcatParam);

OPS_REGISTER_OP(Concat)
    .describe("Joins num_args arrays along axis dim; they must agree on every other axis.")
    .set_num_inputs(NumArgs)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol[]", "The arrays to join (arg0, arg1, ...).")
    .add_arguments(ConcatParam::__FIELDS__())
    .set_attr_parser(ParamParser<ConcatParam>)
    .set_attr<FListInputNames>("FListInputNames", InputNames)
    .set_attr<FInferShape>("FInferShape", ConcatShape)
    .set_attr<FInferType>("FInferType",
                          [](const NodeAttrs&, std::vector<int>* in, std::vector<int>* out) {
                            int known = -1;
                            for (int t : *in) {
                              if (known == -1) known = t;
                            }
                            if (known == -1) return false;
                            CheckRealType(known);
                            for (size_t i = 0; i < in->size(); ++i) {
                              AssignInputType(in, static_cast<int>(i), known);
                            }
                            AssignOutputType(out, 0, known);
                            return true;
                          })
    .set_attr<FCompute>("FCompute<cpu>", ConcatCompute)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_Concat", false, false});

OPS_REGISTER_OP(_backward_Concat)
    .describe("Gradient of Concat.")
    .set_num_inputs(1)
    .set_num_outputs(NumArgs)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<ConcatParam>)
    .set_attr<FCompute>("FCompute<cpu>", ConcatBackwardCompute);

}  // namespace ops
