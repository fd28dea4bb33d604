// ops/khatri_rao-inl.h: MXNet 1.9.1's khatri_rao, the column-wise Kronecker product of
// matrices with the same columns, written once for every device: inputs (M_1, N) ... (M_k, N)
// give (M_1 * ... * M_k, N), row (i_1, ..., i_k) (the first input's row most significant) the
// product of the inputs' rows i_j. MXNet registers no gradient; ours is input j's rows
// gathered: dA_j[m, n] = the sum over the output rows with i_j = m of the output gradient times
// the other inputs' elements. The CPU takes a row an item (the columns a vectorized loop), the
// GPU an element a thread. khatri_rao.cc registers it with FCompute<cpu>; khatri_rao.cu adds
// FCompute<gpu>.
#ifndef OPS_KHATRI_RAO_INL_H_
#define OPS_KHATRI_RAO_INL_H_

#include <algorithm>
#include <type_traits>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"
#include "ops/vector_loop.h"

namespace ops {
namespace khatri_rao {

struct KhatriRaoParam : public dmlc::Parameter<KhatriRaoParam> {
  int num_args;
  DMLC_DECLARE_PARAMETER(KhatriRaoParam) {
    DMLC_DECLARE_FIELD(num_args).set_range(1, 16).describe("The number of input matrices.");
  }
};

constexpr int kMaxInputs = 16;

// The inputs' rows and data, passed to kernels by value.
template <typename DType>
struct Factors {
  int count = 0;
  index_t rows[kMaxInputs] = {};
  const DType* data[kMaxInputs] = {};

  // The row of each input that output row r takes, into `at` (the last input fastest).
  MSHADOW_XINLINE void RowsOf(index_t r, index_t* at) const {
    for (int j = count - 1; j >= 0; --j) {
      at[j] = r % rows[j];
      r /= rows[j];
    }
  }
  // The product over the inputs but `skip` (-1: none) at column n, their rows `at`.
  MSHADOW_XINLINE DType Product(const index_t* at, index_t n, index_t columns, int skip) const {
    DType p = 1;
    for (int j = 0; j < count; ++j) {
      if (j != skip) p *= data[j][at[j] * columns + n];
    }
    return p;
  }
};

template <typename DType>
Factors<DType> FactorsOf(const std::vector<TBlob>& inputs) {
  Factors<DType> f;
  f.count = static_cast<int>(inputs.size());
  for (int j = 0; j < f.count; ++j) {
    f.rows[j] = inputs[j].shape_[0];
    f.data[j] = inputs[j].dptr<DType>();
  }
  return f;
}

// GPU forward item: output element i.
template <int kReq>
struct product_element {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* out, Factors<DType> f, index_t columns) {
    index_t at[kMaxInputs];
    f.RowsOf(i / columns, at);
    AssignReq<kReq>(out + i, f.Product(at, i % columns, columns, -1));
  }
};

// CPU forward item: output row r, the first input's row times the others' (whole rows, packets);
// an addition builds the product column by column.
template <int kReq>
struct product_row {
  template <typename DType>
  static void Map(index_t r, DType* out, Factors<DType> f, index_t columns) {
    index_t at[kMaxInputs];
    f.RowsOf(r, at);
    DType* row = out + r * columns;
    if constexpr (kReq == kAddTo) {
      for (index_t n = 0; n < columns; ++n) row[n] += f.Product(at, n, columns, -1);
      return;
    }
    const DType* first = f.data[0] + at[0] * columns;
    std::copy(first, first + columns, row);
    for (int j = 1; j < f.count; ++j) {
      const DType* factor = f.data[j] + at[j] * columns;
      OPS_SIMD_LOOP
      for (index_t n = 0; n < columns; ++n) row[n] *= factor[n];
    }
  }
};

// Gradient item (both devices): element (m, n) of input j's gradient, i = m * columns + n: the
// output rows (p, m, q) with p over the `outer` row combinations of the inputs before j and q
// over the `inner` ones after it.
template <int kReq>
struct factor_grad_element {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* grad, const DType* og, Factors<DType> f,
                                  index_t columns, int j, index_t outer, index_t inner) {
    const index_t m = i / columns, n = i % columns;
    index_t at[kMaxInputs];
    DType sum = 0;
    for (index_t p = 0; p < outer; ++p) {
      for (index_t q = 0; q < inner; ++q) {
        const index_t r = (p * f.rows[j] + m) * inner + q;
        f.RowsOf(r, at);
        sum += og[r * columns + n] * f.Product(at, n, columns, j);
      }
    }
    AssignReq<kReq>(grad + i, sum);
  }
};

template <typename xpu>
void KhatriRaoCompute(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const index_t columns = out[0].shape_[1];
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    const Factors<DType> f = FactorsOf<DType>(in);
    OPS_REQ_SWITCH(req[0], Req, {
      if constexpr (std::is_same_v<xpu, cpu>) {
        Kernel<product_row<Req>, cpu>::LaunchItems(s, out[0].shape_[0], columns * f.count,
                                                   out[0].dptr<DType>(), f, columns);
      } else {
        Kernel<product_element<Req>, xpu>::Launch(s, out[0].Size(), out[0].dptr<DType>(), f,
                                                  columns);
      }
    });
  });
}

// Inputs: the output gradient, then the matrices; outputs: the matrices' gradients.
template <typename xpu>
void KhatriRaoGradCompute(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                          const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const std::vector<TBlob> factors(in.begin() + 1, in.end());
  const index_t columns = in[0].shape_[1];
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(in[0].type_flag_, DType, {
    const Factors<DType> f = FactorsOf<DType>(factors);
    const index_t total = in[0].shape_[0];
    index_t inner = 1;  // the output rows per row of input k: the rows of the inputs after it
    for (int k = f.count - 1; k >= 0; --k) {
      const index_t outer = f.rows[k] * inner == 0 ? 0 : total / (f.rows[k] * inner);
      OPS_REQ_SWITCH(req[k], Req, {
        Kernel<factor_grad_element<Req>, xpu>::LaunchItems(
            s, out[k].Size(), outer * inner * f.count, out[k].dptr<DType>(), in[0].dptr<DType>(), f,
            columns, k, outer, inner);
      });
      inner *= f.rows[k];
    }
  });
}

// Adds FCompute<xpu> to khatri_rao and its backward operator.
template <typename xpu>
void SetKhatriRaoCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("khatri_rao").set_attr<FCompute>(attr_name, FCompute(KhatriRaoCompute<xpu>));
  RegisterOp("_backward_khatri_rao")
      .set_attr<FCompute>(attr_name, FCompute(KhatriRaoGradCompute<xpu>));
}

}  // namespace khatri_rao
}  // namespace ops

#endif  // OPS_KHATRI_RAO_INL_H_
