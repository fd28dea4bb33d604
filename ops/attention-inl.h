// ops/attention-inl.h: MXNet 1.9.1's multi-head attention products on interleaved projections
// (GluonNLP's BERT and Transformer call them), and div_sqrt_dim, written once for every device.
//
// The projections of a sequence come as one array (length, batch, heads * parts * head_dim):
// for each position and example, the heads one after another, each its `parts` projections
// (queries, keys, values; or keys, values) of head_dim elements. For head h of example b
// (batch entry x = b * heads + h) a projection is then a matrix of `length` rows, each row
// batch * heads * parts * head_dim elements after the previous one, and the next entry's
// matrix starts parts * head_dim elements later: a strided batched gemm (BLAS on the CPU, a
// gemm per entry; one cublas<T>gemmStridedBatched on the GPU) reads the projections in place,
// where composing the products from reshape, transpose and batch_dot copies them twice.
//   selfatt_qk:     (L, B, H*3*D)              -> (B*H, L, L)   Q K^T / sqrt(D)
//   selfatt_valatt: (L, B, H*3*D), (B*H, L, L) -> (L, B, H*D)   attention V
//   encdec_qk:      (Lq, B, H*D), (Lk, B, H*2*D) -> (B*H, Lq, Lk) Q K^T / sqrt(D)
//   encdec_valatt:  (Lk, B, H*2*D), (B*H, Lq, Lk) -> (Lq, B, H*D) attention V
// attention.cc registers them with FCompute<cpu>, attention.cu adds FCompute<gpu>.
#ifndef OPS_ATTENTION_INL_H_
#define OPS_ATTENTION_INL_H_

#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "mshadow/parallel.h"
#include "mshadow/tensor.h"
#include "ops/batched_product.h"
#include "ops/invoke.h"
#include "ops/kernel_util.h"
#include "ops/vector_loop.h"

namespace ops {
namespace attention {

struct InterleavedParam : public dmlc::Parameter<InterleavedParam> {
  int heads;
  DMLC_DECLARE_PARAMETER(InterleavedParam) {
    DMLC_DECLARE_FIELD(heads).set_lower_bound(1).describe("The number of attention heads.");
  }
};

using batched::BatchedProductOnCpu;
using batched::MatrixBatch;

// Part `part` of `parts` of every head's projections in an array (length, batch, heads * parts
// * head_dim): a matrix (length, head_dim) per (example, head).
inline MatrixBatch Projection(index_t length, index_t batch_heads, index_t parts, index_t head_dim,
                              index_t part) {
  return {part * head_dim, length, head_dim, batch_heads * parts * head_dim, parts * head_dim};
}

// Attention scores (batch * heads, queries, keys): contiguous matrices.
inline MatrixBatch Scores(index_t queries, index_t keys) {
  return {0, queries, keys, keys, queries * keys};
}

// c[x] (written, or added for kAddTo) = alpha * op(a[x]) op(b[x]) for every entry x, op a
// transpose where the flag says; the shapes must agree (the operators' shape inference checks
// them). Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: BLAS takes the
// operands swapped, each matrix's rows its columns.
template <typename xpu, typename DType>
void BatchedProduct(mshadow::Stream<xpu>* s, index_t entries, DType* c, const MatrixBatch& cm,
                    OpReqType req, const DType* a, const MatrixBatch& am, bool trans_a,
                    const DType* b, const MatrixBatch& bm, bool trans_b, DType alpha) {
  using mshadow::detail::BlasInt;
  if (req == kNullOp || entries == 0 || cm.rows == 0 || cm.columns == 0) return;
  const index_t inner = trans_a ? am.rows : am.columns;
  const DType beta = req == kAddTo ? DType(1) : DType(0);
  if (inner == 0) {  // an empty sum: zeros (BLAS would refuse the leading dimensions)
    if (req == kAddTo) return;
    for (index_t x = 0; x < entries; ++x) {
      Tensor<xpu, 2, DType> m(c + cm.offset + x * cm.stride, mshadow::Shape2(cm.rows, cm.columns),
                              cm.ld, s);
      m = DType(0);
    }
    return;
  }
  if constexpr (std::is_same_v<xpu, mshadow::cpu>) {
    return BatchedProductOnCpu(entries, c, cm, req, a, am, trans_a, b, bm, trans_b, alpha);
  }
  mshadow::BLASEngine<xpu, DType>::SetStream(s);
  mshadow::BLASEngine<xpu, DType>::batched_gemm(
      s, trans_b, trans_a, BlasInt(cm.columns, "columns"), BlasInt(cm.rows, "rows"),
      BlasInt(inner, "inner extent"), alpha, b + bm.offset, BlasInt(bm.ld, "ld"), bm.stride,
      a + am.offset, BlasInt(am.ld, "ld"), am.stride, beta, c + cm.offset, BlasInt(cm.ld, "ld"),
      cm.stride, BlasInt(entries, "batch * heads"));
}

// The geometry of one call: the sequences' lengths, batch * heads and the head size.
struct Geometry {
  index_t queries, keys, batch_heads, head_dim;
};

// From the operator's inputs (shapes checked by its shape inference).
Geometry GeometryOf(const std::string& op, int heads, const std::vector<TShape>& inputs);

// The projections' matrices of each operator's inputs.
struct Operands {
  MatrixBatch q, k, v;  // where each lies in its input
  int q_input, k_input, v_input;
};
Operands OperandsOf(const std::string& op, const Geometry& g);

// One of the four products or its gradient, by kind.
enum class Product { kQueryKey, kValueAttention };

// Forward: scores = Q K^T / sqrt(D) (kQueryKey), or the output = attention V.
template <typename xpu, Product kKind>
void InterleavedCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                        const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  std::vector<TShape> shapes;
  for (const TBlob& b : in) shapes.push_back(b.shape_);
  const std::string& name = attrs.op->name;
  const Geometry g = GeometryOf(name, GetParam<InterleavedParam>(attrs).heads, shapes);
  const Operands o = OperandsOf(name, g);
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    if constexpr (kKind == Product::kQueryKey) {
      const DType scale = DType(1) / std::sqrt(static_cast<DType>(g.head_dim));
      BatchedProduct<xpu, DType>(s, g.batch_heads, out[0].dptr<DType>(), Scores(g.queries, g.keys),
                                 req[0], in[o.q_input].dptr<DType>(), o.q, false,
                                 in[o.k_input].dptr<DType>(), o.k, true, scale);
    } else {
      const MatrixBatch result = Projection(g.queries, g.batch_heads, 1, g.head_dim, 0);
      BatchedProduct<xpu, DType>(s, g.batch_heads, out[0].dptr<DType>(), result, req[0],
                                 in[1].dptr<DType>(), Scores(g.queries, g.keys), false,
                                 in[o.v_input].dptr<DType>(), o.v, false, DType(1));
    }
  });
}

// Backward. Inputs: the output gradient, then the forward inputs; outputs: their gradients.
// The projections' gradients are interleaved in one array: where a product reads only some
// of them (Q and K, or V), the others' gradient is zero, written once before the products.
template <typename xpu, Product kKind>
void InterleavedGradCompute(const NodeAttrs& attrs, const OpContext& ctx,
                            const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                            const std::vector<TBlob>& out) {
  const std::vector<TBlob> inputs(in.begin() + 1, in.end());
  std::vector<TShape> shapes;
  for (const TBlob& b : inputs) shapes.push_back(b.shape_);
  const std::string forward_name = attrs.op->name.substr(std::string("_backward").size());
  const Geometry g = GeometryOf(forward_name, GetParam<InterleavedParam>(attrs).heads, shapes);
  const Operands o = OperandsOf(forward_name, g);
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    for (size_t i = 0; i < out.size(); ++i) WriteZeroGradient<xpu, DType>(out[i], req[i], s);
    const auto added = [&](int i) { return req[i] == kNullOp ? kNullOp : kAddTo; };
    const auto data = [&](int i) { return inputs[i].dptr<DType>(); };
    const auto grad = [&](int i) { return out[i].dptr<DType>(); };
    const DType* dy = in[0].dptr<DType>();
    const MatrixBatch scores = Scores(g.queries, g.keys);
    if constexpr (kKind == Product::kQueryKey) {
      // scores = c Q K^T: dQ = c dS K, dK = c dS^T Q.
      const DType scale = DType(1) / std::sqrt(static_cast<DType>(g.head_dim));
      BatchedProduct<xpu, DType>(s, g.batch_heads, grad(o.q_input), o.q, added(o.q_input), dy,
                                 scores, false, data(o.k_input), o.k, false, scale);
      BatchedProduct<xpu, DType>(s, g.batch_heads, grad(o.k_input), o.k, added(o.k_input), dy,
                                 scores, true, data(o.q_input), o.q, false, scale);
    } else {
      // out = A V: dA = dOut V^T, dV = A^T dOut.
      const MatrixBatch result = Projection(g.queries, g.batch_heads, 1, g.head_dim, 0);
      BatchedProduct<xpu, DType>(s, g.batch_heads, grad(1), scores, added(1), dy, result, false,
                                 data(o.v_input), o.v, true, DType(1));
      BatchedProduct<xpu, DType>(s, g.batch_heads, grad(o.v_input), o.v, added(o.v_input), data(1),
                                 scores, true, dy, result, false, DType(1));
    }
  });
}

// div_sqrt_dim: out = x / sqrt(x's last extent); its gradient the same scaling.
template <typename xpu>
void DivSqrtDimCompute(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  const index_t last = out[0].ndim() == 0 ? 1 : out[0].shape_[out[0].ndim() - 1];
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    const DType scale = DType(1) / std::sqrt(static_cast<DType>(last));
    Assign(Flat<xpu, DType>(out[0], s), req[0], Flat<xpu, DType>(in[0], s) * scale);
  });
}

// Adds FCompute<xpu> to the operators and their backward operators.
template <typename xpu>
void SetAttentionCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  const auto set = [attr_name](const std::string& name, FCompute forward, FCompute backward) {
    RegisterOp(name).set_attr<FCompute>(attr_name, forward);
    RegisterOp("_backward" + name).set_attr<FCompute>(attr_name, backward);
  };
  for (const char* name :
       {"_contrib_interleaved_matmul_selfatt_qk", "_contrib_interleaved_matmul_encdec_qk"}) {
    set(name, InterleavedCompute<xpu, Product::kQueryKey>,
        InterleavedGradCompute<xpu, Product::kQueryKey>);
  }
  for (const char* name : {"_contrib_interleaved_matmul_selfatt_valatt",
                           "_contrib_interleaved_matmul_encdec_valatt"}) {
    set(name, InterleavedCompute<xpu, Product::kValueAttention>,
        InterleavedGradCompute<xpu, Product::kValueAttention>);
  }
  set("_contrib_div_sqrt_dim", DivSqrtDimCompute<xpu>, DivSqrtDimCompute<xpu>);
}

}  // namespace attention
}  // namespace ops

#endif  // OPS_ATTENTION_INL_H_
