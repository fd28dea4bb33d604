// ops/count_sketch-inl.h: _contrib_count_sketch, MXNet 1.9.1's count sketch (compact bilinear
// pooling's projection): each vector x along data's last axis (in_dim) becomes y of out_dim,
// y[k] = sum over i with h[i] = k of s[i] x[i], for hash positions h in [0, out_dim) and signs
// s, both (1, in_dim). MXNet has it on the GPU only; here both devices, and the same sums in
// the same order on each: the positions each k gathers are listed once per call on the host
// (h is checked there: a position outside [0, out_dim) is an error where MXNet writes past its
// output), and every output element adds its list in order. The gradient reaches data (s[i]
// times y's gradient at h[i]) and s (summed over the vectors; MXNet leaves it unwritten); h's
// is zero. count_sketch.cc registers the CPU, count_sketch.cu adds FCompute<gpu>.
#ifndef OPS_COUNT_SKETCH_INL_H_
#define OPS_COUNT_SKETCH_INL_H_

#include <sstream>
#include <type_traits>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/host_values_on_device.h"
#include "ops/index_type.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"

namespace ops {
namespace count_sketch {

struct CountSketchParam : public dmlc::Parameter<CountSketchParam> {
  int out_dim;
  int processing_batch_size;
  DMLC_DECLARE_PARAMETER(CountSketchParam) {
    DMLC_DECLARE_FIELD(out_dim).set_lower_bound(1).describe("The sketch's length.");
    DMLC_DECLARE_FIELD(processing_batch_size)
        .set_default(32)
        .set_lower_bound(1)
        .describe("MXNet's vectors per GPU pass; accepted, every vector is done at once here.");
  }
};

// The positions i each output k gathers, in one table (one copy to a GPU): first[k] =
// table[k] for k in [0, out_dim], then at = table + out_dim + 1 with k's positions in
// at[first[k], first[k + 1]), ascending. h has in_dim positions, truncated toward zero; one
// outside [0, out_dim) is a dmlc::Error naming it.
template <typename DType>
std::vector<int32_t> BucketsOf(const DType* h, index_t in_dim, index_t out_dim) {
  std::vector<int32_t> table(static_cast<size_t>(out_dim + 1 + in_dim), 0);
  std::vector<index_t> bucket(static_cast<size_t>(in_dim));
  for (index_t i = 0; i < in_dim; ++i) {
    if (!(h[i] > DType(-1) && h[i] < DType(out_dim))) {
      std::ostringstream os;
      os << "_contrib_count_sketch: h[" << i << "] = " << static_cast<double>(h[i])
         << " is not a position of the sketch; valid: 0 to " << out_dim - 1;
      throw dmlc::Error(os.str());
    }
    bucket[i] = static_cast<index_t>(h[i]);
    ++table[bucket[i] + 1];
  }
  for (index_t k = 0; k < out_dim; ++k) table[k + 1] += table[k];
  std::vector<int32_t> next(table.begin(), table.begin() + out_dim);
  int32_t* at = table.data() + out_dim + 1;
  for (index_t i = 0; i < in_dim; ++i) at[next[bucket[i]]++] = static_cast<int32_t>(i);
  return table;
}

// y[n, k] for output element (n, k) = item; on the CPU an item is a vector n, its out_dim
// elements in turn.
template <int kReq, bool kVectors>
struct sketch {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t item, DType* out, const DType* data, const DType* s,
                                  const int32_t* first, const int32_t* at, index_t in_dim,
                                  index_t out_dim) {
    const index_t n = kVectors ? item : item / out_dim;
    const index_t k0 = kVectors ? 0 : item - n * out_dim, k1 = kVectors ? out_dim : k0 + 1;
    const DType* x = data + n * in_dim;
    for (index_t k = k0; k < k1; ++k) {
      DType sum = 0;
      for (int32_t j = first[k]; j < first[k + 1]; ++j) sum += s[at[j]] * x[at[j]];
      AssignReq<kReq>(out + n * out_dim + k, sum);
    }
  }
};

// The gradient at data element (n, i) = item: s[i] g[n, h[i]]; and the term g[n, h[i]] x[n, i]
// of s[i]'s, summed over n afterwards.
struct sketch_gradient {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t item, DType* grad, DType* s_terms, const DType* og,
                                  const DType* data, const DType* h, const DType* s, index_t in_dim,
                                  index_t out_dim, OpReqType req) {
    const index_t n = item / in_dim, i = item - n * in_dim;
    const DType g = og[n * out_dim + static_cast<index_t>(h[i])];
    AssignReq(grad + item, s[i] * g, req);
    if (s_terms) s_terms[item] = g * data[item];
  }
};

// Inputs: data (..., in_dim), h, s (1, in_dim). Output: (..., out_dim).
template <typename xpu>
void CountSketchCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                        const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  const index_t out_dim = GetParam<CountSketchParam>(attrs).out_dim;
  const index_t in_dim = in[1].Size(), vectors = out[0].Size() / out_dim;
  MSHADOW_SGL_DBL_TYPE_SWITCH(in[0].type_flag_, DType, {
    std::vector<int32_t> table;
    WithIndicesOnHost<xpu, DType>(
        in[1], s, [&](const DType* h, index_t) { table = BucketsOf(h, in_dim, out_dim); });
    const int32_t* first = HostValuesOnDevice<xpu>(table.data(), static_cast<index_t>(table.size()),
                                                   ctx.requested[0], s);
    const int32_t* at = first + out_dim + 1;
    constexpr bool kVectors = std::is_same_v<xpu, mshadow::cpu>;
    OPS_REQ_SWITCH(req[0], Req, {
      Kernel<sketch<Req, kVectors>, xpu>::LaunchItems(
          s, kVectors ? vectors : vectors * out_dim, kVectors ? in_dim : 1, out[0].dptr<DType>(),
          in[0].dptr<DType>(), in[2].dptr<DType>(), first, at, in_dim, out_dim);
    });
  });
}

// Inputs: out_grad, data, h, s. Outputs: the gradients of data, h (zero) and s.
template <typename xpu>
void CountSketchBackwardCompute(const NodeAttrs& attrs, const OpContext& ctx,
                                const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                                const std::vector<TBlob>& out) {
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  const index_t out_dim = GetParam<CountSketchParam>(attrs).out_dim;
  const index_t in_dim = in[2].Size(), size = in[1].Size();
  const index_t vectors = in_dim == 0 ? 0 : size / in_dim;
  MSHADOW_SGL_DBL_TYPE_SWITCH(in[1].type_flag_, DType, {
    // The positions index the output gradient: checked as the forward checks them.
    WithIndicesOnHost<xpu, DType>(in[2], s,
                                  [&](const DType* h, index_t) { BucketsOf(h, in_dim, out_dim); });
    WriteZeroGradient<xpu, DType>(out[1], req[1], s);
    if (in_dim == 0) return;
    DType* terms = nullptr;
    if (req[2] != kNullOp) {
      terms = ctx.requested[0].get_space_typed<xpu, 1, DType>(mshadow::Shape1(size + 1), s).dptr_;
    }
    Kernel<sketch_gradient, xpu>::Launch(s, size, out[0].dptr<DType>(), terms, in[0].dptr<DType>(),
                                         in[1].dptr<DType>(), in[2].dptr<DType>(),
                                         in[3].dptr<DType>(), in_dim, out_dim, req[0]);
    if (terms != nullptr) {
      const mshadow::Tensor<xpu, 2, DType> rows(terms, mshadow::Shape2(vectors, in_dim), s);
      Assign(out[2].get_with_shape<xpu, 1, DType>(mshadow::Shape1(in_dim), s), req[2],
             mshadow::expr::sum_rows(rows));
    }
  });
}

template <typename xpu>
void SetCountSketchCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("_contrib_count_sketch")
      .set_attr<FCompute>(attr_name, FCompute(CountSketchCompute<xpu>));
  RegisterOp("_backward_contrib_count_sketch")
      .set_attr<FCompute>(attr_name, FCompute(CountSketchBackwardCompute<xpu>));
}

}  // namespace count_sketch
}  // namespace ops

#endif  // OPS_COUNT_SKETCH_INL_H_
