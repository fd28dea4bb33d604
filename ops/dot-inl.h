// ops/dot-inl.h: dot and batch_dot (transpose_a, transpose_b) and their backward operators,
// written once for every device on mshadow's dot and batch_dot expressions (BLAS on the CPU,
// cuBLAS on the GPU; one strided batched gemm per batch_dot). dot.cc registers them with
// FCompute<cpu>, dot.cu adds FCompute<gpu>.
#ifndef OPS_DOT_INL_H_
#define OPS_DOT_INL_H_

#include <type_traits>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/batched_product.h"
#include "ops/float_compute.h"
#include "ops/invoke.h"
#include "ops/kernel_util.h"

namespace ops {
namespace matmul {

using mshadow::Shape2;

struct DotParam : public dmlc::Parameter<DotParam> {
  bool transpose_a;
  bool transpose_b;
  DMLC_DECLARE_PARAMETER(DotParam) {
    DMLC_DECLARE_FIELD(transpose_a).set_default(false).describe("Use lhs transposed.");
    DMLC_DECLARE_FIELD(transpose_b).set_default(false).describe("Use rhs transposed.");
  }
};

// The matrix an operand of dot is stored as (before any transpose); see dot.cc.
inline mshadow::Shape<2> LhsMatrix(const TShape& s, bool transposed) {
  const int n = static_cast<int>(s.ndim());
  return transposed ? Shape2(s[0], s.ProdShape(1, n)) : Shape2(s.ProdShape(0, n - 1), s[n - 1]);
}
inline mshadow::Shape<2> RhsMatrix(const TShape& s, bool transposed) {
  const int n = static_cast<int>(s.ndim());
  return transposed ? Shape2(s.ProdShape(0, n - 1), s[n - 1]) : Shape2(s[0], s.ProdShape(1, n));
}

// Batches of matrices at most this many multiply-adds each go to batched::BatchedProductOnCpu
// on the CPU (an entry per thread), larger ones to BLAS.
constexpr index_t kSmallProductMultiplyAdds = 64 * 64 * 64;

// dst (written as req says) = scale * op(a) op(b): matrices (dim 2, strided rows allowed) or
// batches of them (dim 3), each operand transposed when its flag says; the scale is gemm's
// alpha.
template <bool kTransA, bool kTransB, typename xpu, int dim, typename DType>
void Product(Tensor<xpu, dim, DType> dst, OpReqType req, Tensor<xpu, dim, DType> a,
             Tensor<xpu, dim, DType> b, DType scale) {
  if constexpr (dim == 3 && std::is_same_v<xpu, mshadow::cpu> &&
                (std::is_same_v<DType, float> || std::is_same_v<DType, double>)) {
    const index_t depth = kTransA ? a.size(1) : a.size(2);
    if (req != kNullOp && depth > 0 &&
        dst.size(1) * dst.size(2) * depth <= kSmallProductMultiplyAdds) {
      // As mshadow's batch_dot checks them.
      CHECK(dst.size(0) == a.size(0) && dst.size(0) == b.size(0) &&
            depth == (kTransB ? b.size(2) : b.size(1)) &&
            dst.size(1) == (kTransA ? a.size(2) : a.size(1)) &&
            dst.size(2) == (kTransB ? b.size(1) : b.size(2)))
          << "batch_dot: " << a.shape_ << " and " << b.shape_ << " into " << dst.shape_;
      const auto batch = [](const Tensor<xpu, 3, DType>& t) {
        return batched::MatrixBatch{0, t.size(1), t.size(2), t.stride_, t.size(1) * t.stride_};
      };
      batched::BatchedProductOnCpu(dst.size(0), dst.dptr_, batch(dst), req, a.dptr_, batch(a),
                                   kTransA, b.dptr_, batch(b), kTransB, scale);
      return;
    }
  }
  if constexpr (dim == 3) {
    Assign(dst, req, mshadow::expr::batch_dot<kTransA, kTransB>(a, b) * scale);
  } else if constexpr (!kTransA && !kTransB) {
    Assign(dst, req, mshadow::expr::dot(a, b) * scale);
  } else if constexpr (!kTransA && kTransB) {
    Assign(dst, req, mshadow::expr::dot(a, b.T()) * scale);
  } else if constexpr (kTransA && !kTransB) {
    Assign(dst, req, mshadow::expr::dot(a.T(), b) * scale);
  } else {
    Assign(dst, req, mshadow::expr::dot(a.T(), b.T()) * scale);
  }
}

template <typename xpu, int dim, typename DType>
void Product(Tensor<xpu, dim, DType> dst, OpReqType req, Tensor<xpu, dim, DType> a, bool trans_a,
             Tensor<xpu, dim, DType> b, bool trans_b, DType scale = DType(1)) {
  if (trans_a) {
    trans_b ? Product<true, true>(dst, req, a, b, scale)
            : Product<true, false>(dst, req, a, b, scale);
  } else {
    trans_b ? Product<false, true>(dst, req, a, b, scale)
            : Product<false, false>(dst, req, a, b, scale);
  }
}

// The gradients of C = scale * op(A) op(B) from dC, for matrices or batches of them:
//   dA = scale * dC op(B)^T, or scale * op(B) dC^T when A is transposed;
//   dB = scale * op(A)^T dC, or scale * dC^T op(A) when B is transposed.
template <typename xpu, int dim, typename DType>
void ProductGradients(Tensor<xpu, dim, DType> dc, Tensor<xpu, dim, DType> a,
                      Tensor<xpu, dim, DType> b, bool ta, bool tb, Tensor<xpu, dim, DType> da,
                      OpReqType da_req, Tensor<xpu, dim, DType> db, OpReqType db_req,
                      DType scale = DType(1)) {
  if (ta) {
    Product(da, da_req, b, tb, dc, true, scale);
  } else {
    Product(da, da_req, dc, false, b, !tb, scale);
  }
  if (tb) {
    Product(db, db_req, dc, true, a, ta, scale);
  } else {
    Product(db, db_req, a, !ta, dc, false, scale);
  }
}

template <typename xpu>
void DotCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const DotParam& param = GetParam<DotParam>(attrs);
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  OPS_PRODUCT_TYPE_SWITCH(xpu, out[0].type_flag_, DType, {
    auto a = in[0].get_with_shape<xpu, 2, DType>(LhsMatrix(in[0].shape_, param.transpose_a), s);
    auto b = in[1].get_with_shape<xpu, 2, DType>(RhsMatrix(in[1].shape_, param.transpose_b), s);
    const index_t m = param.transpose_a ? a.size(1) : a.size(0);
    const index_t n = param.transpose_b ? b.size(0) : b.size(1);
    auto c = out[0].get_with_shape<xpu, 2, DType>(Shape2(m, n), s);
    Product(c, req[0], a, param.transpose_a, b, param.transpose_b);
  });
}

// Inputs: out_grad, lhs, rhs; outputs: lhs_grad, rhs_grad.
template <typename xpu>
void DotBackwardCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                        const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const DotParam& param = GetParam<DotParam>(attrs);
  const bool ta = param.transpose_a, tb = param.transpose_b;
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  OPS_PRODUCT_TYPE_SWITCH(xpu, in[0].type_flag_, DType, {
    const auto a_shape = LhsMatrix(in[1].shape_, ta);
    const auto b_shape = RhsMatrix(in[2].shape_, tb);
    auto dc = in[0].get_with_shape<xpu, 2, DType>(
        Shape2(ta ? a_shape[1] : a_shape[0], tb ? b_shape[0] : b_shape[1]), s);
    ProductGradients(dc, in[1].get_with_shape<xpu, 2, DType>(a_shape, s),
                     in[2].get_with_shape<xpu, 2, DType>(b_shape, s), ta, tb,
                     out[0].get_with_shape<xpu, 2, DType>(a_shape, s), req[0],
                     out[1].get_with_shape<xpu, 2, DType>(b_shape, s), req[1]);
  });
}

// A batch_dot operand (batch..., rows, columns) as (batch, rows, columns).
inline mshadow::Shape<3> AsBatch(const TShape& s) {
  const int n = static_cast<int>(s.ndim());
  return mshadow::Shape3(s.ProdShape(0, n - 2), s[n - 2], s[n - 1]);
}

template <typename xpu>
void BatchDotCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const DotParam& param = GetParam<DotParam>(attrs);
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  OPS_PRODUCT_TYPE_SWITCH(xpu, out[0].type_flag_, DType, {
    auto batch = [&](const TBlob& blob) {
      return blob.get_with_shape<xpu, 3, DType>(AsBatch(blob.shape_), s);
    };
    Product(batch(out[0]), req[0], batch(in[0]), param.transpose_a, batch(in[1]),
            param.transpose_b);
  });
}

// Inputs: out_grad, lhs, rhs; outputs: lhs_grad, rhs_grad (dot's formulas per batch item).
template <typename xpu>
void BatchDotBackwardCompute(const NodeAttrs& attrs, const OpContext& ctx,
                             const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                             const std::vector<TBlob>& out) {
  const DotParam& param = GetParam<DotParam>(attrs);
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  OPS_PRODUCT_TYPE_SWITCH(xpu, in[0].type_flag_, DType, {
    auto batch = [&](const TBlob& blob) {
      return blob.get_with_shape<xpu, 3, DType>(AsBatch(blob.shape_), s);
    };
    ProductGradients(batch(in[0]), batch(in[1]), batch(in[2]), param.transpose_a, param.transpose_b,
                     batch(out[0]), req[0], batch(out[1]), req[1]);
  });
}

// Adds FCompute<xpu> to dot, batch_dot and their backward operators.
template <typename xpu>
void SetDotCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("dot").set_attr<FCompute>(attr_name, FCompute(DotCompute<xpu>));
  RegisterOp("_backward_dot").set_attr<FCompute>(attr_name, FCompute(DotBackwardCompute<xpu>));
  RegisterOp("batch_dot").set_attr<FCompute>(attr_name, FCompute(BatchDotCompute<xpu>));
  RegisterOp("_backward_batch_dot")
      .set_attr<FCompute>(attr_name, FCompute(BatchDotBackwardCompute<xpu>));
}

}  // namespace matmul
}  // namespace ops

#endif  // OPS_DOT_INL_H_
