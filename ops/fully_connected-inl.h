// ops/fully_connected-inl.h: FullyConnected(num_hidden, no_bias, flatten) and its backward
// operator, written once for every device: out = data * weight^T + bias as one gemm (BLAS on
// the CPU, cuBLAS on the GPU) onto the bias rows. fully_connected.cc registers them with
// FCompute<cpu>, fully_connected.cu adds FCompute<gpu>.
#ifndef OPS_FULLY_CONNECTED_INL_H_
#define OPS_FULLY_CONNECTED_INL_H_

#include <type_traits>
#include <vector>

#include "mshadow/extension/broadcast.h"
#include "mshadow/tensor.h"
#include "ops/float_compute.h"
#include "ops/invoke.h"
#include "ops/kernel_util.h"
#include "ops/matrix_product.h"
#include "ops/vector_loop.h"

namespace ops {
namespace fully_connected {

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
inline mshadow::Shape<2> DataAs2D(const TShape& data, bool flatten) {
  return flatten ? mshadow::Shape2(data[0], data.ProdShape(1, static_cast<int>(data.ndim())))
                 : data.FlatTo2D();
}

// Every row of `out` set to (or, accumulate: increased by) `bias`.
template <typename xpu, typename DType>
void BroadcastBias(Tensor<xpu, 2, DType> out, Tensor<xpu, 1, DType> bias, bool accumulate) {
  if constexpr (std::is_same_v<xpu, cpu>) {  // row by row: each row a vectorized map
    for (index_t i = 0; i < out.size(0); ++i) {
      if (accumulate) {
        out[i] += bias;
      } else {
        out[i] = mshadow::expr::F<mshadow::op::identity>(bias);
      }
    }
  } else {  // one kernel for the whole matrix
    Assign(out, accumulate ? kAddTo : kWriteTo, mshadow::expr::repmat(bias, out.size(0)));
  }
}

// y = data weight^T + bias in one fused call where the device has one: Run returns false
// where it does not (the default), and the caller writes the bias rows and accumulates the
// product onto them. fully_connected.cu specializes it for the GPU (cuBLASLt's bias epilogue).
template <typename xpu, typename DType>
struct FusedGemmBias {
  static bool Run(mshadow::Stream<xpu>*, Tensor<xpu, 2, DType>, Tensor<xpu, 2, DType>,
                  Tensor<xpu, 1, DType>, Tensor<xpu, 2, DType>) {
    return false;
  }
};

// Whether BLAS runs AVX-512 kernels (OpenBLAS's core type SkylakeX, Cooperlake or
// SapphireRapids; fully_connected.cc asks it once).
bool BlasRunsAvx512();

// Whether the products of a batch of more than one row run on the register-tiled product
// (ops/matrix_product.h) rather than BLAS: on the CPU where the packets are AVX-512 and BLAS
// is held to narrower kernels (OpenBLAS 0.3.21 takes a Zen 4 or 5 for a Haswell, or is told
// to by OPENBLAS_CORETYPE): the tiles then run these shapes at about twice its speed, where
// OpenBLAS's own AVX-512 kernels run them faster than the tiles (docs/benchmarks.md,
// fifty-first session). One row stays a gemv and an outer product.
template <typename xpu>
bool TiledProducts() {
  if constexpr (std::is_same_v<xpu, cpu> && MSHADOW_DEFAULT_PACKET == mshadow::packet::kAVX512) {
    return !BlasRunsAvx512();
  } else {
    return false;
  }
}

// The most rows for which the products run on the register tiles even where BLAS runs AVX-512
// kernels: the forward and the data gradient (a batch's rows times W^T or W) up to
// kTiledBatchMaxRows rows, the weight gradient (og^T data, depth the batch) up to
// kTiledWeightGradientMaxRows. With few rows OpenBLAS's time goes to copying all of W into its
// panels, where the tiles read W a strip at a time; with many, its kernels are as fast or
// faster (docs/benchmarks.md, fifty-eighth and fifty-ninth sessions).
constexpr index_t kTiledBatchMaxRows = 64;
constexpr index_t kTiledWeightGradientMaxRows = 128;

// Whether a product of a batch of `rows` rows runs on the register tiles: where TiledProducts
// says, and for more than one row and up to `max_rows` wherever the packets are AVX-512.
template <typename xpu>
bool TiledBatch(index_t rows, index_t max_rows) {
  if constexpr (std::is_same_v<xpu, cpu> && MSHADOW_DEFAULT_PACKET == mshadow::packet::kAVX512) {
    return rows > 1 && (rows <= max_rows || TiledProducts<xpu>());
  } else {
    return false;
  }
}

template <typename xpu>
void FullyConnectedCompute(const NodeAttrs& attrs, const OpContext& ctx,
                           const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                           const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const FullyConnectedParam& param = GetParam<FullyConnectedParam>(attrs);
  mshadow::Stream<xpu>* stream = ctx.get_stream<xpu>();
  OPS_PRODUCT_TYPE_SWITCH(xpu, out[0].type_flag_, DType, {
    const mshadow::Shape<2> shape = DataAs2D(in[0].shape_, param.flatten);
    auto data = in[0].get_with_shape<xpu, 2, DType>(shape, stream);
    auto weight = in[1].get<xpu, 2, DType>(stream);
    auto y =
        out[0].get_with_shape<xpu, 2, DType>(mshadow::Shape2(shape[0], param.num_hidden), stream);
    const bool tiled = TiledBatch<xpu>(shape[0], kTiledBatchMaxRows);
    // y (as req says) = data weight^T, or (tiled) accumulated onto y.
    const auto product = [&](OpReqType product_req) {
      if (tiled) {
        ProductWithTransposedRight(y, product_req, data, weight);
      } else {
        Assign(y, product_req, dot(data, weight.T()));
      }
    };
    if (param.no_bias) {
      product(req[0]);
      return;
    }
    auto bias = in[2].get<xpu, 1, DType>(stream);
    if (!tiled && req[0] != kAddTo && FusedGemmBias<xpu, DType>::Run(stream, data, weight, bias, y))
      return;
    // The bias rows go in first and the product is accumulated onto them (BLAS beta = 1):
    // BLAS clears the output with beta = 0 anyway, so the bias costs no extra pass.
    if (req[0] != kAddTo) BroadcastBias(y, bias, false);
    product(kAddTo);
    if (req[0] == kAddTo) BroadcastBias(y, bias, true);
  });
}

// dW = og^T data for a single row on the CPU: the outer product og x data, each row of dW
// written (or added to) in one pass. A gemm with K = 1 (or ger after clearing dW) moves dW
// twice.
template <typename DType>
void OuterProduct(Tensor<cpu, 1, DType> og, Tensor<cpu, 1, DType> data, Tensor<cpu, 2, DType> dw,
                  OpReqType req) {
  vec::WithReq(req, [&](auto add) {
    ParallelRows(dw.size(0), dw.size(1), [&](index_t begin, index_t end) {
      for (index_t i = begin; i < end; ++i) {
        const DType scale = og[i];
        DType* row = dw[i].dptr_;
        vec::ForEach<DType>(dw.size(1), [&](index_t j, auto tag) {
          using P = vec::PacketOf<decltype(tag)>;
          vec::Store<decltype(add)::value>(row + j,
                                           P::LoadUnAligned(data.dptr_ + j) * P::Fill(scale));
        });
      }
    });
  });
}

// Inputs: out_grad, data, weight [, bias]. Outputs: data_grad, weight_grad [, bias_grad].
template <typename xpu>
void FullyConnectedBackwardCompute(const NodeAttrs& attrs, const OpContext& ctx,
                                   const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                                   const std::vector<TBlob>& out) {
  const FullyConnectedParam& param = GetParam<FullyConnectedParam>(attrs);
  mshadow::Stream<xpu>* stream = ctx.get_stream<xpu>();
  OPS_PRODUCT_TYPE_SWITCH(xpu, in[0].type_flag_, DType, {
    const mshadow::Shape<2> shape = DataAs2D(in[1].shape_, param.flatten);
    auto og =
        in[0].get_with_shape<xpu, 2, DType>(mshadow::Shape2(shape[0], param.num_hidden), stream);
    auto data = in[1].get_with_shape<xpu, 2, DType>(shape, stream);
    auto weight = in[2].get<xpu, 2, DType>(stream);
    auto dx = out[0].get_with_shape<xpu, 2, DType>(shape, stream);
    auto dw = out[1].get<xpu, 2, DType>(stream);
    if constexpr (std::is_same_v<xpu, cpu>) {
      if (shape[0] == 1) {
        Assign(dx, req[0], dot(og, weight));  // a gemv (the engine's choice)
        OuterProduct(og[0], data[0], dw, req[1]);
      } else {
        if (TiledBatch<xpu>(shape[0], kTiledBatchMaxRows)) {
          Product(dx, req[0], og, false, weight);
        } else {
          Assign(dx, req[0], dot(og, weight));
        }
        if (TiledBatch<xpu>(shape[0], kTiledWeightGradientMaxRows)) {
          Product(dw, req[1], og, true, data);
        } else {
          Assign(dw, req[1], dot(og.T(), data));
        }
      }
    } else {
      Assign(dx, req[0], dot(og, weight));
      Assign(dw, req[1], dot(og.T(), data));
    }
    if (!param.no_bias) {
      Assign(out[2].get<xpu, 1, DType>(stream), req[2], mshadow::expr::sum_rows(og));
    }
  });
}

// Adds FCompute<xpu> to FullyConnected and _backward_FullyConnected.
template <typename xpu>
void SetFullyConnectedCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("FullyConnected").set_attr<FCompute>(attr_name, FCompute(FullyConnectedCompute<xpu>));
  RegisterOp("_backward_FullyConnected")
      .set_attr<FCompute>(attr_name, FCompute(FullyConnectedBackwardCompute<xpu>));
}

}  // namespace fully_connected
}  // namespace ops

#endif  // OPS_FULLY_CONNECTED_INL_H_
