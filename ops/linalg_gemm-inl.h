// ops/linalg_gemm-inl.h: MXNet 1.9.1's _linalg_gemm (out = alpha op(A) op(B) + beta C) and
// _linalg_gemm2 (out = alpha op(A) op(B)) and their backward operators, written once for
// every device on the dot operators' products (BLAS on the CPU, cuBLAS on the GPU).
//
// Operands have n >= 2 axes: matrices whose columns are the last axis and whose rows are
// `axis` (default -2), one per position of the other axes (the batch). Each operand is seen
// as (outer, rows, middle, columns), the middle axes those between `axis` and the last: with
// the default axis there are none, and the batch is one strided batched gemm; otherwise each
// (outer, middle) matrix is a gemm of its own on rows `middle * columns` apart.
// linalg_gemm.cc registers them with FCompute<cpu>, linalg_gemm.cu adds FCompute<gpu>.
#ifndef OPS_LINALG_GEMM_INL_H_
#define OPS_LINALG_GEMM_INL_H_

#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/dot-inl.h"
#include "ops/infer_util.h"
#include "ops/invoke.h"
#include "ops/kernel_util.h"

namespace ops {
namespace linalg {

struct LinalgGemmParam : public dmlc::Parameter<LinalgGemmParam> {
  bool transpose_a;
  bool transpose_b;
  double alpha;
  double beta;
  int axis;
  DMLC_DECLARE_PARAMETER(LinalgGemmParam) {
    DMLC_DECLARE_FIELD(transpose_a).set_default(false).describe("Use A transposed.");
    DMLC_DECLARE_FIELD(transpose_b).set_default(false).describe("Use B transposed.");
    DMLC_DECLARE_FIELD(alpha).set_default(1.0).describe("The product's scale.");
    DMLC_DECLARE_FIELD(beta).set_default(1.0).describe("C's scale.");
    DMLC_DECLARE_FIELD(axis).set_default(-2).describe(
        "The matrices' row axis (their columns are the last axis); negative counts from the end.");
  }
};

// gemm2 has no beta.
struct LinalgGemm2Param : public dmlc::Parameter<LinalgGemm2Param> {
  bool transpose_a;
  bool transpose_b;
  double alpha;
  int axis;
  DMLC_DECLARE_PARAMETER(LinalgGemm2Param) {
    DMLC_DECLARE_FIELD(transpose_a).set_default(false).describe("Use A transposed.");
    DMLC_DECLARE_FIELD(transpose_b).set_default(false).describe("Use B transposed.");
    DMLC_DECLARE_FIELD(alpha).set_default(1.0).describe("The product's scale.");
    DMLC_DECLARE_FIELD(axis).set_default(-2).describe(
        "The matrices' row axis (their columns are the last axis); negative counts from the end.");
  }
};

// The row axis in [0, ndim - 2] for operands of `ndim` >= 2 axes; a dmlc::Error otherwise.
inline int RowAxis(int axis, int ndim) {
  const int a = NormalizeAxis(axis, ndim);
  if (a == ndim - 1) {
    throw dmlc::Error("linalg gemm: axis " + std::to_string(axis) + " is the column axis; valid: " +
                      "[" + std::to_string(-ndim) + ", " + std::to_string(ndim - 2) + "] or -2");
  }
  return a;
}

// An operand as (outer, rows, middle, columns) around its row axis.
struct MatrixView {
  index_t outer, rows, middle, columns;
  MatrixView(const TShape& s, int row_axis)
      : outer(s.ProdShape(0, row_axis)),
        rows(s[row_axis]),
        middle(s.ProdShape(row_axis + 1, s.ndim() - 1)),
        columns(s[s.ndim() - 1]) {}
};

// fn(matrices...) for operands of one batch (the same axes but the matrices'): all of them as
// 3-d batches with the default axis (middle 1), else once per (outer, middle) position, each
// operand's matrix there as a 2-d tensor of rows `middle * columns` apart.
template <typename xpu, typename DType, typename Fn, typename... Blobs>
void ForEachMatrix(mshadow::Stream<xpu>* s, int row_axis, Fn&& fn, const Blobs&... blobs) {
  const MatrixView first(std::get<0>(std::tie(blobs...)).shape_, row_axis);
  if (first.middle == 1) {
    const auto batch = [&](const TBlob& t) {
      const MatrixView v(t.shape_, row_axis);
      return t.get_with_shape<xpu, 3, DType>(mshadow::Shape3(v.outer, v.rows, v.columns), s);
    };
    fn(batch(blobs)...);
    return;
  }
  const auto matrix = [&](const TBlob& t, index_t o, index_t m) {
    const MatrixView v(t.shape_, row_axis);
    DType* base = t.dptr<DType>() + (o * v.rows * v.middle + m) * v.columns;
    return Tensor<xpu, 2, DType>(base, mshadow::Shape2(v.rows, v.columns), v.middle * v.columns, s);
  };
  for (index_t o = 0; o < first.outer; ++o) {
    for (index_t m = 0; m < first.middle; ++m) fn(matrix(blobs, o, m)...);
  }
}

// out = alpha op(A) op(B) [+ beta C]: inputs A, B[, C].
template <typename xpu, typename Param>
void GemmCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const Param& p = GetParam<Param>(attrs);
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  const int row_axis = RowAxis(p.axis, in[0].ndim());
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    OpReqType product_req = req[0];
    if constexpr (std::is_same_v<Param, LinalgGemmParam>) {
      Assign(Flat<xpu, DType>(out[0], s), req[0],
             Flat<xpu, DType>(in[2], s) * mshadow::expr::scalar<DType>(DType(p.beta)));
      product_req = kAddTo;
    }
    ForEachMatrix<xpu, DType>(
        s, row_axis,
        [&](auto a, auto b, auto c) {
          matmul::Product(c, product_req, a, p.transpose_a, b, p.transpose_b, DType(p.alpha));
        },
        in[0], in[1], out[0]);
  });
}

// Inputs out_grad, A, B[, C]; outputs dA, dB[, dC = beta out_grad].
template <typename xpu, typename Param>
void GemmBackwardCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                         const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const Param& p = GetParam<Param>(attrs);
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  const int row_axis = RowAxis(p.axis, in[1].ndim());
  MSHADOW_SGL_DBL_TYPE_SWITCH(in[0].type_flag_, DType, {
    ForEachMatrix<xpu, DType>(
        s, row_axis,
        [&](auto dc, auto a, auto b, auto da, auto db) {
          matmul::ProductGradients(dc, a, b, p.transpose_a, p.transpose_b, da, req[0], db, req[1],
                                   DType(p.alpha));
        },
        in[0], in[1], in[2], out[0], out[1]);
    if constexpr (std::is_same_v<Param, LinalgGemmParam>) {
      if (req[2] != kNullOp) {
        Assign(Flat<xpu, DType>(out[2], s), req[2],
               Flat<xpu, DType>(in[0], s) * mshadow::expr::scalar<DType>(DType(p.beta)));
      }
    }
  });
}

// Adds FCompute<xpu> to both operators and their backward operators.
template <typename xpu>
void SetLinalgGemmCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("_linalg_gemm")
      .set_attr<FCompute>(attr_name, FCompute(GemmCompute<xpu, LinalgGemmParam>));
  RegisterOp("_backward_linalg_gemm")
      .set_attr<FCompute>(attr_name, FCompute(GemmBackwardCompute<xpu, LinalgGemmParam>));
  RegisterOp("_linalg_gemm2")
      .set_attr<FCompute>(attr_name, FCompute(GemmCompute<xpu, LinalgGemm2Param>));
  RegisterOp("_backward_linalg_gemm2")
      .set_attr<FCompute>(attr_name, FCompute(GemmBackwardCompute<xpu, LinalgGemm2Param>));
}

}  // namespace linalg
}  // namespace ops

#endif  // OPS_LINALG_GEMM_INL_H_
