// ops/embedding-inl.h: Embedding and its backward operator, written once for every device,
// with MXNet 1.9.1's semantics: out[..., :] = weight[index, :] for each index of `data`, where
// an index is truncated to an integer and clipped to [0, input_dim) (as MXNet's take with
// mode=clip: an index out of range reads the nearest row, never outside the weight). The
// weight gradient adds each output gradient row onto the row its index read; the indices
// get no gradient. Both directions run take's kernels along axis 0 (ops/row_gather.h).
// embedding.cc registers the CPU, embedding.cu adds FCompute<gpu>.
#ifndef OPS_EMBEDDING_INL_H_
#define OPS_EMBEDDING_INL_H_

#include <vector>

#include "mshadow/tensor.h"
#include "ops/index_type.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"
#include "ops/row_gather.h"

namespace ops {
namespace embedding {

struct EmbeddingParam : public dmlc::Parameter<EmbeddingParam> {
  int64_t input_dim;
  int64_t output_dim;
  int dtype;
  bool sparse_grad;
  DMLC_DECLARE_PARAMETER(EmbeddingParam) {
    DMLC_DECLARE_FIELD(input_dim).set_lower_bound(1).describe(
        "Vocabulary size: the rows of the weight.");
    DMLC_DECLARE_FIELD(output_dim).set_lower_bound(1).describe(
        "Embedding size: the columns of the weight.");
    DMLC_DECLARE_FIELD(dtype)
        .add_enum("float32", mshadow::kFloat32)
        .add_enum("float64", mshadow::kFloat64)
        .set_default(mshadow::kFloat32)
        .describe("The weight's and the output's type when the weight's is not given.");
    DMLC_DECLARE_FIELD(sparse_grad).set_default(false).describe(
        "A row-sparse weight gradient; only false (dense) is supported.");
  }
};

// The weight seen as take's array along axis 0: count indices pick rows of `dim` elements.
inline AxisView WeightView(const EmbeddingParam& param) {
  return {1, static_cast<index_t>(param.input_dim), static_cast<index_t>(param.output_dim)};
}

// Inputs: data (indices, any shape and type), weight (input_dim, output_dim).
// Output: (data shape..., output_dim).
template <typename xpu>
void EmbeddingCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  mshadow::Stream<xpu>* stream = ctx.get_stream<xpu>();
  const AxisView view = WeightView(GetParam<EmbeddingParam>(attrs));
  const index_t count = static_cast<index_t>(in[0].Size());
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    WithIndexType(in[0].type_flag_, [&](auto index_tag) {
      using IType = typename decltype(index_tag)::type;
      OPS_REQ_SWITCH(req[0], Req, {
        indexing::GatherRuns<Req>(stream, out[0].dptr<DType>(), in[1].dptr<DType>(),
                                  in[0].dptr<IType>(), view, count, indexing::kClip);
      });
    });
  });
}

// Inputs: out_grad, data, weight. Outputs: data_grad (zero), weight_grad.
template <typename xpu>
void EmbeddingBackwardCompute(const NodeAttrs& attrs, const OpContext& ctx,
                              const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                              const std::vector<TBlob>& out) {
  mshadow::Stream<xpu>* stream = ctx.get_stream<xpu>();
  const AxisView view = WeightView(GetParam<EmbeddingParam>(attrs));
  const index_t count = static_cast<index_t>(in[1].Size());
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[1].type_flag_, DType, {
    indexing::ScatterGradient<xpu, DType>(
        out[1], req[1], in[1].type_flag_, stream, [&](DType* grad, auto index_tag) {
          using IType = typename decltype(index_tag)::type;
          indexing::ScatterRuns(stream, grad, in[0].dptr<DType>(), in[1].dptr<IType>(), view, count,
                                indexing::kClip);
        });
  });
  indexing::ZeroIndexGradient<xpu>(out[0], req[0], stream);
}

// Adds FCompute<xpu> to Embedding and _backward_Embedding.
template <typename xpu>
void SetEmbeddingCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("Embedding").set_attr<FCompute>(attr_name, FCompute(EmbeddingCompute<xpu>));
  RegisterOp("_backward_Embedding")
      .set_attr<FCompute>(attr_name, FCompute(EmbeddingBackwardCompute<xpu>));
}

}  // namespace embedding
}  // namespace ops

#endif  // OPS_EMBEDDING_INL_H_
