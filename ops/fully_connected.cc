// FullyConnected(num_hidden, no_bias, flatten): out = data * weight^T + bias, as one BLAS
// gemm plus a bias pass; and its backward operator.
#include "ops/kernel_util.h"
#include "ops/vector_loop.h"

namespace ops {
namespace {

using mshadow::expr::dot;

struct FullyConnectedParam : public dmlc::Parameter<FullyConnectedParam> {
  int num_hidden;
  bool no_bias;
  bool flatten;
  DMLC_DECLARE_PARAMETER(FullyConnectedParam) {
    DMLC_DECLARE_FIELD(num_hidden).set_lower_bound(1).describe("Number of hidden units.");
    DMLC_DECLARE_FIELD(no_bias).set_default(false).describe("Whether to leave out the bias.");
    DMLC_DECLARE_FIELD(flatten).set_default(true).describe(
        "Whether to fold all axes of data but the first into one; otherwise only the last "
        "axis is transformed.");
  }
};

// data as a 2-d matrix: (batch, features).
mshadow::Shape<2> DataAs2D(const TShape& data, bool flatten) {
  return flatten ? mshadow::Shape2(data[0], data.ProdShape(1, static_cast<int>(data.ndim())))
                 : data.FlatTo2D();
}

bool FullyConnectedShape(const NodeAttrs& attrs, std::vector<TShape>* in,
                         std::vector<TShape>* out) {
  const FullyConnectedParam& param = GetParam<FullyConnectedParam>(attrs);
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  const mshadow::Shape<2> matrix = DataAs2D(data, param.flatten);
  AssignInputShape(in, 1, TShape{param.num_hidden, matrix[1]});
  if (!param.no_bias) AssignInputShape(in, 2, TShape{param.num_hidden});
  TShape result;
  if (param.flatten) {
    result = TShape{data[0], param.num_hidden};
  } else {
    result = data;
    result[data.ndim() - 1] = param.num_hidden;
  }
  AssignOutputShape(out, 0, result);
  return true;
}

// Every row of `out` set to (or, accumulate: increased by) `bias`.
template <typename DType>
void BroadcastBias(Tensor<cpu, 2, DType> out, Tensor<cpu, 1, DType> bias, bool accumulate) {
  for (index_t i = 0; i < out.size(0); ++i) {
    if (accumulate) {
      out[i] += bias;
    } else {
      out[i] = mshadow::expr::F<mshadow::op::identity>(bias);
    }
  }
}

void FullyConnectedCompute(const NodeAttrs& attrs, const OpContext& ctx,
                           const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                           const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const FullyConnectedParam& param = GetParam<FullyConnectedParam>(attrs);
  auto* stream = ctx.get_stream<cpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    const mshadow::Shape<2> shape = DataAs2D(in[0].shape_, param.flatten);
    auto data = in[0].get_with_shape<cpu, 2, DType>(shape, stream);
    auto weight = in[1].get<cpu, 2, DType>(stream);
    auto y = out[0].get_with_shape<cpu, 2, DType>(mshadow::Shape2(shape[0], param.num_hidden),
                                                   stream);
    if (param.no_bias) {
      Assign(y, req[0], dot(data, weight.T()));
    } else {
      // The bias rows go in first and the product is accumulated onto them (BLAS beta = 1):
      // BLAS clears the output with beta = 0 anyway, so the bias costs no extra pass.
      if (req[0] != kAddTo) BroadcastBias(y, in[2].get<cpu, 1, DType>(stream), false);
      y += dot(data, weight.T());
      if (req[0] == kAddTo) BroadcastBias(y, in[2].get<cpu, 1, DType>(stream), true);
    }
  });
}

// dW = og^T data for a single row: the outer product og x data, each row of dW written (or
// added to) in one pass. A gemm with K = 1 (or ger after clearing dW) moves dW twice.
template <typename DType>
void OuterProduct(Tensor<cpu, 1, DType> og, Tensor<cpu, 1, DType> data,
                  Tensor<cpu, 2, DType> dw, OpReqType req) {
  vec::WithReq(req, [&](auto add) {
    ParallelRows(dw.size(0), dw.size(1), [&](index_t begin, index_t end) {
      for (index_t i = begin; i < end; ++i) {
        const DType scale = og[i];
        DType* row = dw[i].dptr_;
        vec::ForEach<DType>(dw.size(1), [&](index_t j, auto tag) {
          using P = vec::PacketOf<decltype(tag)>;
          vec::Store<decltype(add)::value>(row + j, P::LoadUnAligned(data.dptr_ + j) *
                                                        P::Fill(scale));
        });
      }
    });
  });
}

// Inputs: out_grad, data, weight [, bias]. Outputs: data_grad, weight_grad [, bias_grad].
void FullyConnectedBackwardCompute(const NodeAttrs& attrs, const OpContext& ctx,
                                   const std::vector<TBlob>& in,
                                   const std::vector<OpReqType>& req,
                                   const std::vector<TBlob>& out) {
  const FullyConnectedParam& param = GetParam<FullyConnectedParam>(attrs);
  auto* stream = ctx.get_stream<cpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(in[0].type_flag_, DType, {
    const mshadow::Shape<2> shape = DataAs2D(in[1].shape_, param.flatten);
    auto og = in[0].get_with_shape<cpu, 2, DType>(mshadow::Shape2(shape[0], param.num_hidden),
                                                   stream);
    auto data = in[1].get_with_shape<cpu, 2, DType>(shape, stream);
    auto weight = in[2].get<cpu, 2, DType>(stream);
    // One row's data gradient is a gemv (the engine's choice); its dW an outer product.
    Assign(out[0].get_with_shape<cpu, 2, DType>(shape, stream), req[0], dot(og, weight));
    if (shape[0] == 1) {
      OuterProduct(og[0], data[0], out[1].get<cpu, 2, DType>(stream), req[1]);
    } else {
      Assign(out[1].get<cpu, 2, DType>(stream), req[1], dot(og.T(), data));
    }
    if (!param.no_bias) {
      Assign(out[2].get<cpu, 1, DType>(stream), req[2], mshadow::expr::sum_rows(og));
    }
  });
}

uint32_t NumInputs(const NodeAttrs& attrs) {
  return GetParam<FullyConnectedParam>(attrs).no_bias ? 2 : 3;
}

std::vector<std::string> InputNames(const NodeAttrs& attrs) {
  if (GetParam<FullyConnectedParam>(attrs).no_bias) return {"data", "weight"};
  return {"data", "weight", "bias"};
}

}  // namespace

DMLC_REGISTER_PARAMETER(FullyConnectedParam);

OPS_REGISTER_OP(FullyConnected)
    .describe("A fully connected (dense) layer: out = data * weight^T + bias. data is "
              "(batch, ...) and is read as (batch, features) when flatten is true; weight is "
              "(num_hidden, features); bias is (num_hidden,).")
    .set_num_inputs(NumInputs)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "Input data.")
    .add_argument("weight", "NDArray-or-Symbol", "Weight matrix.")
    .add_argument("bias", "NDArray-or-Symbol", "Bias vector.")
    .add_arguments(FullyConnectedParam::__FIELDS__())
    .set_attr_parser(ParamParser<FullyConnectedParam>)
    .set_attr<FListInputNames>("FListInputNames", InputNames)
    .set_attr<FInferShape>("FInferShape", FullyConnectedShape)
    .set_attr<FInferType>("FInferType",
                          [](const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
                            return NumInputs(attrs) == 2 ? ElemwiseRealType<2, 1>(attrs, in, out)
                                                         : ElemwiseRealType<3, 1>(attrs, in, out);
                          })
    .set_attr<FCompute>("FCompute<cpu>", FullyConnectedCompute)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_FullyConnected", true, false});

OPS_REGISTER_OP(_backward_FullyConnected)
    .describe("Gradient of FullyConnected.")
    .set_num_inputs([](const NodeAttrs& attrs) { return 1 + NumInputs(attrs); })
    .set_num_outputs(NumInputs)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<FullyConnectedParam>)
    .set_attr<FCompute>("FCompute<cpu>", FullyConnectedBackwardCompute);

}  // namespace ops
