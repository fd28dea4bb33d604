// ops/linalg_triangle-inl.h: MXNet 1.9.1's diagonal and triangle operators of batches of square
// matrices (the last two axes), written once for every device: _linalg_extractdiag and
// _linalg_makediag, _linalg_extracttrian and _linalg_maketrian, _linalg_sumlogdiag.
//
// A diagonal or triangle of an n x n matrix is packed into a vector; the layout maps between
// the two. The k-th diagonal (k > 0 above the main one) is packed in order. A lower triangle
// (offset < 0, or 0 with lower) is packed row by row, its rows growing from one element: the
// triangle of offset -j starts at row j. An upper one is packed column by column, as MXNet:
// the lower triangle of the transpose. Extraction packs; making unpacks, writing the zeros
// too; each is the other's gradient. The CPU goes a row of the full matrices at a time, the
// GPU an element (of the packed vectors, or of the full matrices) a thread.
// linalg_triangle.cc registers them with FCompute<cpu>, linalg_triangle.cu adds FCompute<gpu>.
#ifndef OPS_LINALG_TRIANGLE_INL_H_
#define OPS_LINALG_TRIANGLE_INL_H_

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"

namespace ops {
namespace linalg {

struct LinalgDiagParam : public dmlc::Parameter<LinalgDiagParam> {
  int offset;
  DMLC_DECLARE_PARAMETER(LinalgDiagParam) {
    DMLC_DECLARE_FIELD(offset).set_default(0).describe(
        "The diagonal: 0 the main one, > 0 above it, < 0 below it.");
  }
};

struct LinalgTrianParam : public dmlc::Parameter<LinalgTrianParam> {
  int offset;
  bool lower;
  DMLC_DECLARE_PARAMETER(LinalgTrianParam) {
    DMLC_DECLARE_FIELD(offset).set_default(0).describe(
        "The triangle's outermost diagonal: > 0 the upper triangle from that diagonal up, < 0 "
        "the lower one from that diagonal down, 0 the main diagonal and the triangle `lower` "
        "says.");
    DMLC_DECLARE_FIELD(lower).set_default(true).describe(
        "With offset 0: the lower triangle (true) or the upper one.");
  }
};

// Where the packed elements of an n x n matrix lie: `packed` of them a matrix, a diagonal of
// `side` elements from (row_shift, column_shift), or a triangle of `side` rows whose first
// row is row n - side (for an upper one, of the transpose: column n - side).
struct PackedLayout {
  enum Kind { kDiagonal, kLower, kUpper };
  Kind kind = kDiagonal;
  index_t n = 0;       // the matrices' side
  index_t side = 0;    // the diagonal's length, the triangle's rows: n - |offset|
  index_t packed = 0;  // elements packed from each matrix
  index_t row_shift = 0, column_shift = 0;  // a diagonal's start: (row_shift, column_shift)

  // The row-major offset in its matrix of packed element p (of its matrix's `packed`).
  MSHADOW_XINLINE index_t MatrixOffsetOf(index_t p) const {
    if (kind == kDiagonal) return (p + row_shift) * n + p + column_shift;
    // Row t of the triangle holds t + 1 elements, from triangle offset t (t + 1) / 2; the
    // double square root is exact enough to be off by one at most near 2^50, and corrected.
    index_t t = static_cast<index_t>((std::sqrt(8.0 * static_cast<double>(p) + 1.0) - 1.0) / 2.0);
    if (t * (t + 1) / 2 > p) --t;
    if ((t + 1) * (t + 2) / 2 <= p) ++t;
    const index_t row = t + n - side, column = p - t * (t + 1) / 2;
    return kind == kLower ? row * n + column : column * n + row;
  }

  // The packed index in its matrix of the matrix element (row, column), or -1 where it is not
  // packed.
  MSHADOW_XINLINE index_t PackedIndexOf(index_t row, index_t column) const {
    if (kind == kDiagonal) {
      return row - row_shift == column - column_shift ? row - row_shift : -1;
    }
    if (kind == kUpper) {
      const index_t swap = row;
      row = column, column = swap;
    }
    const index_t t = row - (n - side);  // the triangle's row
    return column <= t && t >= 0 ? t * (t + 1) / 2 + column : -1;
  }
};

// The layout of the diagonal or triangle `param` names of n x n matrices; an offset that
// leaves nothing is a dmlc::Error naming it and the valid range.
PackedLayout LayoutOf(const LinalgDiagParam& param, index_t n);
PackedLayout LayoutOf(const LinalgTrianParam& param, index_t n);

// GPU item: packed element i (of matrix i / packed) read off the full matrices.
template <int kReq>
struct pack_matrices {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* packed, const DType* full, PackedLayout l) {
    const index_t matrix = i / l.packed;
    AssignReq<kReq>(packed + i, full[matrix * l.n * l.n + l.MatrixOffsetOf(i % l.packed)]);
  }
};

// GPU item: element i of the full matrices, its packed element or zero outside the
// diagonal/triangle.
template <int kReq>
struct unpack_matrices {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* full, const DType* packed, PackedLayout l) {
    const index_t matrix = i / (l.n * l.n), at = i % (l.n * l.n);
    const index_t p = l.PackedIndexOf(at / l.n, at % l.n);
    AssignReq<kReq>(full + i, p < 0 ? DType(0) : packed[matrix * l.packed + p]);
  }
};

// CPU items: a row of the full matrices each (matrix `row / n`), its packed elements packed or
// put back (and the rest zeroed), with no division per element: the elements' own divisions
// had made makediag of (256, 256) matrices 4.6x slower than MXNet (docs/benchmarks.md).
template <int kReq, bool kPack>
struct pack_rows {
  template <typename DType>
  static void Map(index_t row, DType* to, const DType* from, PackedLayout l) {
    const index_t matrix = row / l.n, r = row % l.n;
    DType* full_row = (kPack ? const_cast<DType*>(from) : to) + row * l.n;
    DType* packed = (kPack ? to : const_cast<DType*>(from)) + matrix * l.packed;
    const auto move = [](DType* packed_element, DType* full_element) {
      if constexpr (kPack) {
        AssignReq<kReq>(packed_element, *full_element);
      } else {
        AssignReq<kReq>(full_element, *packed_element);
      }
    };
    if (!kPack && kReq != kAddTo) std::fill(full_row, full_row + l.n, DType(0));
    if (l.kind == PackedLayout::kDiagonal) {
      const index_t c = r - l.row_shift + l.column_shift;
      if (r >= l.row_shift && c < l.n) move(packed + r - l.row_shift, full_row + c);
    } else if (l.kind == PackedLayout::kLower) {
      const index_t t = r - (l.n - l.side);  // the triangle's row: t + 1 elements
      for (index_t c = 0; c <= t; ++c) move(packed + t * (t + 1) / 2 + c, full_row + c);
    } else {  // row r of an upper triangle: element r of each packed column from r + shift on
      for (index_t c = r + l.n - l.side; c < l.n; ++c) {
        const index_t t = c - (l.n - l.side);
        move(packed + t * (t + 1) / 2 + r, full_row + c);
      }
    }
  }
};

// sumlogdiag of matrix i: the sum of the logarithms of its diagonal.
template <int kReq>
struct sum_log_diagonal {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* out, const DType* matrices, index_t n) {
    const DType* a = matrices + i * n * n;
    DType sum = 0;
    for (index_t d = 0; d < n; ++d) sum += std::log(a[d * (n + 1)]);
    AssignReq<kReq>(out + i, sum);
  }
};

// sumlogdiag's gradient at element i of the matrices: the output gradient over the diagonal
// element there, zero off the diagonal (the GPU's items; the CPU's are rows).
template <int kReq>
struct sum_log_diagonal_grad {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* grad, const DType* out_grad,
                                  const DType* matrices, index_t n) {
    const index_t at = i % (n * n);
    const bool diagonal = at / n == at % n;
    AssignReq<kReq>(grad + i, diagonal ? out_grad[i / (n * n)] / matrices[i] : DType(0));
  }
};
template <int kReq>
struct sum_log_diagonal_grad_row {
  template <typename DType>
  static void Map(index_t row, DType* grad, const DType* out_grad, const DType* matrices,
                  index_t n) {
    DType* grad_row = grad + row * n;
    const index_t d = row % n;  // the diagonal's column
    if (kReq != kAddTo) std::fill(grad_row, grad_row + n, DType(0));
    AssignReq<kReq>(grad_row + d, out_grad[row / n] / matrices[row * n + d]);
  }
};

// Packs (kPack) or unpacks the matrices of in[0] into out[0]: the forward operators, and each
// other's gradient.
template <typename xpu, typename Param, bool kPack>
void PackCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const TBlob& full = kPack ? in[0] : out[0];  // the side: its last axis
  const PackedLayout l = LayoutOf(GetParam<Param>(attrs), full.shape_[full.ndim() - 1]);
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    OPS_REQ_SWITCH(req[0], kReq, {
      DType* to = out[0].dptr<DType>();
      const DType* from = in[0].dptr<DType>();
      if constexpr (std::is_same_v<xpu, cpu>) {
        Kernel<pack_rows<kReq, kPack>, cpu>::LaunchItems(s, full.Size() / l.n, l.n, to, from, l);
      } else if constexpr (kPack) {
        Kernel<pack_matrices<kReq>, xpu>::Launch(s, out[0].Size(), to, from, l);
      } else {
        Kernel<unpack_matrices<kReq>, xpu>::Launch(s, out[0].Size(), to, from, l);
      }
    });
  });
}

template <typename xpu>
void SumLogDiagCompute(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const index_t n = in[0].shape_[in[0].ndim() - 1];
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    OPS_REQ_SWITCH(req[0], kReq, {
      Kernel<sum_log_diagonal<kReq>, xpu>::LaunchItems(
          s, out[0].Size(), n * 16, out[0].dptr<DType>(), in[0].dptr<DType>(), n);
    });
  });
}

// Inputs: the output gradient, the matrices.
template <typename xpu>
void SumLogDiagGradCompute(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                           const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const index_t n = in[1].shape_[in[1].ndim() - 1];
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    OPS_REQ_SWITCH(req[0], kReq, {
      if constexpr (std::is_same_v<xpu, cpu>) {
        Kernel<sum_log_diagonal_grad_row<kReq>, cpu>::LaunchItems(
            s, out[0].Size() / n, n, out[0].dptr<DType>(), in[0].dptr<DType>(), in[1].dptr<DType>(),
            n);
      } else {
        Kernel<sum_log_diagonal_grad<kReq>, xpu>::Launch(
            s, out[0].Size(), out[0].dptr<DType>(), in[0].dptr<DType>(), in[1].dptr<DType>(), n);
      }
    });
  });
}

// Adds FCompute<xpu> to the five operators and their backward operators.
template <typename xpu>
void SetLinalgTriangleCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  const auto set = [attr_name](const char* name, FCompute compute) {
    RegisterOp(name).set_attr<FCompute>(attr_name, compute);
  };
  set("_linalg_extractdiag", PackCompute<xpu, LinalgDiagParam, true>);
  set("_backward_linalg_extractdiag", PackCompute<xpu, LinalgDiagParam, false>);
  set("_linalg_makediag", PackCompute<xpu, LinalgDiagParam, false>);
  set("_backward_linalg_makediag", PackCompute<xpu, LinalgDiagParam, true>);
  set("_linalg_extracttrian", PackCompute<xpu, LinalgTrianParam, true>);
  set("_backward_linalg_extracttrian", PackCompute<xpu, LinalgTrianParam, false>);
  set("_linalg_maketrian", PackCompute<xpu, LinalgTrianParam, false>);
  set("_backward_linalg_maketrian", PackCompute<xpu, LinalgTrianParam, true>);
  set("_linalg_sumlogdiag", SumLogDiagCompute<xpu>);
  set("_backward_linalg_sumlogdiag", SumLogDiagGradCompute<xpu>);
}

}  // namespace linalg
}  // namespace ops

#endif  // OPS_LINALG_TRIANGLE_INL_H_
