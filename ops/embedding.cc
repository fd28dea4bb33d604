// Embedding(input_dim, output_dim, dtype, sparse_grad): MXNet's lookup table; and its backward
// operator. Kernels, for every device: embedding-inl.h; FCompute<gpu>: embedding.cu.
#include "ops/embedding-inl.h"

namespace ops {
namespace embedding {
namespace {

void ParseEmbedding(NodeAttrs* attrs) {
  ParamParser<EmbeddingParam>(attrs);
  if (GetParam<EmbeddingParam>(*attrs).sparse_grad) {
    throw dmlc::ParamError("sparse_grad=True (a row-sparse gradient) is not supported; valid: "
                           "False");
  }
}

bool EmbeddingShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const EmbeddingParam& param = GetParam<EmbeddingParam>(attrs);
  AssignInputShape(in, 1, TShape{param.input_dim, param.output_dim});
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  TShape result(static_cast<index_t>(data.ndim() + 1));
  for (int a = 0; a < data.ndim(); ++a) result[a] = data[a];
  result[data.ndim()] = param.output_dim;
  AssignOutputShape(out, 0, result);
  return true;
}

// The indices: float32, float64, int32 or int64; the weight and output: float32 or float64
// (dtype when the weight's type is not given).
bool EmbeddingType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  const int data_type = (*in)[0];
  if (data_type != -1 && !IsIndexType(data_type)) {
    throw dmlc::Error(std::string("Embedding indices of type ") +
                      mshadow::TypeFlagName(data_type) +
                      " are not supported; valid: float32, float64, int32, int64");
  }
  int weight_type = (*in)[1] != -1 ? (*in)[1] : (*out)[0];
  if (weight_type == -1) weight_type = GetParam<EmbeddingParam>(attrs).dtype;
  CheckRealType(weight_type);
  AssignInputType(in, 1, weight_type);
  AssignOutputType(out, 0, weight_type);
  return data_type != -1;
}

const bool kRegistered = [] {
  SetEmbeddingCompute<cpu>();
  return true;
}();

}  // namespace

DMLC_REGISTER_PARAMETER(EmbeddingParam);

OPS_REGISTER_OP(Embedding)
    .describe("Looks up rows of weight (input_dim, output_dim): out[..., :] = weight[data[...], "
              ":], each index truncated and clipped to [0, input_dim) as in MXNet.")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "Indices, any shape.")
    .add_argument("weight", "NDArray-or-Symbol", "The embedding table.")
    .add_arguments(EmbeddingParam::__FIELDS__())
    .set_attr_parser(ParseEmbedding)
    .set_attr<FInferShape>("FInferShape", EmbeddingShape)
    .set_attr<FInferType>("FInferType", EmbeddingType)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_Embedding", true, false});

OPS_REGISTER_OP(_backward_Embedding)
    .describe("Gradient of Embedding: output gradient rows added onto the rows they read.")
    .set_num_inputs(3)
    .set_num_outputs(2)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParseEmbedding);

}  // namespace embedding
}  // namespace ops
