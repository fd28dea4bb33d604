// ops/embedding-inl.h: Embedding and its backward operator, written once for every device,
// with MXNet 1.9.1's semantics: out[..., :] = weight[index, :] for each index of `data`, where
// an index is truncated to an integer and clipped to [0, input_dim) (as MXNet's take with
// mode=clip: an index out of range reads the nearest row, never outside the weight). The
// weight gradient adds each output gradient row onto the row its index read; the indices
// get no gradient. embedding.cc registers the CPU, embedding.cu adds FCompute<gpu>.
#ifndef OPS_EMBEDDING_INL_H_
#define OPS_EMBEDDING_INL_H_

#include <type_traits>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/gather_prefetch.h"
#include "ops/index_type.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"
#include "ops/vector_loop.h"

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

// The row an index reads: truncated toward zero, clipped to [0, rows).
template <typename IType>
MSHADOW_XINLINE index_t ClippedRow(IType index, index_t rows) {
  const double value = static_cast<double>(index);
  if (!(value > 0)) return 0;  // NaN too
  return value >= static_cast<double>(rows - 1) ? rows - 1 : static_cast<index_t>(value);
}

// GPU item: element i of the output (index i / dim, column i % dim), written as kReq says.
template <int kReq>
struct EmbeddingGather {
  template <typename DType, typename IType>
  MSHADOW_XINLINE static void Map(index_t i, const IType* data, const DType* weight,
                                  index_t rows, index_t dim, DType* out) {
    AssignReq<kReq>(out + i, weight[ClippedRow(data[i / dim], rows) * dim + i % dim]);
  }
};

// CPU item: output row k (of count), the weight row index k reads, copied (or added) in one
// run, the row kGatherPrefetchRows indices on prefetched.
template <int kReq>
struct EmbeddingRow {
  template <typename DType, typename IType>
  static void Map(index_t k, index_t count, const IType* data, const DType* weight, index_t rows,
                  index_t dim, DType* out) {
    if (k + kGatherPrefetchRows < count) {
      PrefetchRow(weight + ClippedRow(data[k + kGatherPrefetchRows], rows) * dim, dim);
    }
    CopyRun<kReq == kAddTo>(out + k * dim, weight + ClippedRow(data[k], rows) * dim, dim);
  }
};

// GPU item: output gradient element i added onto the weight gradient (atomically: indices
// repeat).
struct EmbeddingScatterAtomic {
  template <typename DType, typename IType>
  MSHADOW_XINLINE static void Map(index_t i, const IType* data, const DType* og, index_t rows,
                                  index_t dim, DType* weight_grad) {
#ifdef __CUDA_ARCH__
    atomicAdd(weight_grad + ClippedRow(data[i / dim], rows) * dim + i % dim, og[i]);
#else
    weight_grad[ClippedRow(data[i / dim], rows) * dim + i % dim] += og[i];
#endif
  }
};

// CPU item: columns [c * kColumns, (c + 1) * kColumns) of the weight gradient, every index
// in order: threads own disjoint columns, so repeated indices need no atomics and the sums
// do not depend on the thread count.
struct EmbeddingScatterColumns {
  static constexpr index_t kColumns = 64;
  template <typename DType, typename IType>
  static void Map(index_t c, index_t count, const IType* data, const DType* og, index_t rows,
                  index_t dim, DType* weight_grad) {
    const index_t begin = c * kColumns, width = begin + kColumns < dim ? kColumns : dim - begin;
    for (index_t k = 0; k < count; ++k) {
      CopyRun<true>(weight_grad + ClippedRow(data[k], rows) * dim + begin, og + k * dim + begin,
                    width);
    }
  }
};

// Inputs: data (indices, any shape and type), weight (input_dim, output_dim).
// Output: (data shape..., output_dim).
template <typename xpu>
void EmbeddingCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const EmbeddingParam& param = GetParam<EmbeddingParam>(attrs);
  mshadow::Stream<xpu>* stream = ctx.get_stream<xpu>();
  const index_t rows = param.input_dim, dim = param.output_dim;
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    WithIndexType(in[0].type_flag_, [&](auto index_tag) {
      using IType = typename decltype(index_tag)::type;
      OPS_REQ_SWITCH(req[0], Req, {
        if constexpr (std::is_same_v<xpu, cpu>) {  // a row per item: no division per element
          const index_t count = static_cast<index_t>(in[0].Size());
          Kernel<EmbeddingRow<Req>, cpu>::LaunchItems(stream, count, dim, count,
                                                      in[0].dptr<IType>(), in[1].dptr<DType>(),
                                                      rows, dim, out[0].dptr<DType>());
        } else {
          Kernel<EmbeddingGather<Req>, xpu>::Launch(
              stream, static_cast<index_t>(out[0].Size()), in[0].dptr<IType>(),
              in[1].dptr<DType>(), rows, dim, out[0].dptr<DType>());
        }
      });
    });
  });
}

// Inputs: out_grad, data, weight. Outputs: data_grad (zero), weight_grad.
template <typename xpu>
void EmbeddingBackwardCompute(const NodeAttrs& attrs, const OpContext& ctx,
                              const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                              const std::vector<TBlob>& out) {
  const EmbeddingParam& param = GetParam<EmbeddingParam>(attrs);
  mshadow::Stream<xpu>* stream = ctx.get_stream<xpu>();
  const index_t rows = param.input_dim, dim = param.output_dim;
  const index_t count = static_cast<index_t>(in[1].Size());
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[1].type_flag_, DType, {
    if (req[1] != kNullOp) {
      auto weight_grad = Flat<xpu, DType>(out[1], stream);
      if (req[1] != kAddTo) weight_grad = DType(0);
      WithIndexType(in[1].type_flag_, [&](auto index_tag) {
        using IType = typename decltype(index_tag)::type;
        if constexpr (std::is_same_v<xpu, cpu>) {
          constexpr index_t kColumns = EmbeddingScatterColumns::kColumns;
          Kernel<EmbeddingScatterColumns, cpu>::LaunchItems(
              stream, (dim + kColumns - 1) / kColumns, count * kColumns, count,
              in[1].dptr<IType>(), in[0].dptr<DType>(), rows, dim, weight_grad.dptr_);
        } else {
          Kernel<EmbeddingScatterAtomic, xpu>::Launch(stream, count * dim, in[1].dptr<IType>(),
                                                      in[0].dptr<DType>(), rows, dim,
                                                      weight_grad.dptr_);
        }
      });
    }
    if (req[0] == kWriteTo || req[0] == kWriteInplace) {  // the indices have no gradient
      WithIndexType(out[0].type_flag_, [&](auto index_tag) {
        using IType = typename decltype(index_tag)::type;
        Flat<xpu, IType>(out[0], stream) = IType(0);
      });
    }
  });
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
