// ops/bipartite_matching-inl.h: _contrib_bipartite_matching, MXNet 1.9.1's greedy matching of
// the rows and columns of score matrices (..., N, M), written for every device: the candidates
// (row, column) are taken best score first (highest, or lowest with is_ascend; equal scores in
// row-major order; NaN last), each whose row and column are both free is matched while its
// score passes the threshold (above it, or below with is_ascend), and the first that does not
// pass ends the matching. Outputs: each row's column, each column's row, -1 where unmatched.
// The CPU sorts each matrix's candidates once; the GPU takes, block by block, the best free
// candidate of the matrix again after each match, which picks the same candidates. Zero
// gradient, as MXNet's. bipartite_matching.cc registers the CPU, bipartite_matching.cu adds
// FCompute<gpu>.
#ifndef OPS_BIPARTITE_MATCHING_INL_H_
#define OPS_BIPARTITE_MATCHING_INL_H_

#include <algorithm>
#include <type_traits>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"

namespace ops {
namespace bipartite_matching {

struct BipartiteMatchingParam : public dmlc::Parameter<BipartiteMatchingParam> {
  bool is_ascend;
  float threshold;
  int topk;
  DMLC_DECLARE_PARAMETER(BipartiteMatchingParam) {
    DMLC_DECLARE_FIELD(is_ascend).set_default(false).describe(
        "Take the lowest scores first, and match scores below threshold.");
    DMLC_DECLARE_FIELD(threshold).describe(
        "Scores at or below it (at or above it with is_ascend) are not matched.");
    DMLC_DECLARE_FIELD(topk).set_default(-1).describe(
        "At most this many matches per matrix; -1: no limit. (MXNet 1.9.1 makes topk + 1.)");
  }
};

// The matching's rule as plain data for kernels on either device.
struct Rule {
  float threshold;
  bool ascend;
  index_t limit;  // matches per matrix
};

inline Rule RuleOf(const BipartiteMatchingParam& p, index_t rows, index_t cols) {
  const index_t most = std::min(rows, cols);
  return {p.threshold, p.is_ascend, p.topk < 0 ? most : std::min<index_t>(p.topk, most)};
}

// Whether candidate (a, at) is taken before (b, bt): the better score, NaN last, then the
// lower flat position.
template <typename DType>
MSHADOW_XINLINE bool Precedes(DType a, index_t at, DType b, index_t bt, bool ascend) {
  const bool a_nan = !(a == a), b_nan = !(b == b);
  if (a_nan || b_nan) return b_nan && (!a_nan || at < bt);
  if (a != b) return ascend ? a < b : a > b;
  return at < bt;
}

template <typename DType>
MSHADOW_XINLINE bool Passes(DType score, const Rule& rule) {
  return rule.ascend ? score < DType(rule.threshold) : score > DType(rule.threshold);
}

// The CPU: matrix `item`'s candidates that pass the threshold (those that do not come after
// them all) taken in order from a heap, into its markers (its row of row_of and of col_of, set
// to -1 first): the heap is built in linear time and only the candidates taken are ordered.
struct match_matrix_cpu {
  template <typename DType>
  static void Map(index_t item, DType* all_row_of, DType* all_col_of, const DType* scores,
                  index_t rows, index_t cols, Rule rule) {
    const DType* s = scores + item * rows * cols;
    DType* row_of = all_row_of + item * rows;
    DType* col_of = all_col_of + item * cols;
    std::fill(row_of, row_of + rows, DType(-1));
    std::fill(col_of, col_of + cols, DType(-1));
    std::vector<index_t> passing;
    for (index_t k = 0; k < rows * cols; ++k) {
      if (Passes(s[k], rule)) passing.push_back(k);
    }
    // std's heaps put first what no other element is "less" than.
    const auto later = [&](index_t a, index_t b) {
      return Precedes(s[b], b, s[a], a, rule.ascend);
    };
    std::make_heap(passing.begin(), passing.end(), later);
    auto end = passing.end();
    for (index_t matched = 0; matched < rule.limit && end != passing.begin(); --end) {
      std::pop_heap(passing.begin(), end, later);
      const index_t k = *(end - 1), r = k / cols, c = k % cols;
      if (row_of[r] != DType(-1) || col_of[c] != DType(-1)) continue;
      row_of[r] = static_cast<DType>(c);
      col_of[c] = static_cast<DType>(r);
      ++matched;
    }
  }
};

// The GPU's matching (bipartite_matching.cu): a block per matrix.
template <typename DType>
void MatchOnGpu(mshadow::Stream<gpu>* s, DType* row_of, DType* col_of, const DType* scores,
                index_t matrices, index_t rows, index_t cols, Rule rule);

// Inputs: data (..., N, M). Outputs: the rows' columns (..., N), the columns' rows (..., M).
// The markers are found in the temporary space, then written as req says.
template <typename xpu>
void BipartiteMatchingCompute(const NodeAttrs& attrs, const OpContext& ctx,
                              const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                              const std::vector<TBlob>& out) {
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  const TShape& shape = in[0].shape_;
  const index_t rows = shape[shape.ndim() - 2], cols = shape[shape.ndim() - 1];
  const index_t matrices = shape.ProdShape(0, shape.ndim() - 2);
  const Rule rule = RuleOf(GetParam<BipartiteMatchingParam>(attrs), rows, cols);
  MSHADOW_SGL_DBL_TYPE_SWITCH(in[0].type_flag_, DType, {
    const index_t row_count = matrices * rows, col_count = matrices * cols;
    auto markers =
        ctx.requested[0].get_space_typed<xpu, 1, DType>(mshadow::Shape1(row_count + col_count), s);
    DType* row_of = markers.dptr_;
    DType* col_of = markers.dptr_ + row_count;
    if (matrices > 0) {
      if constexpr (std::is_same_v<xpu, gpu>) {
        MatchOnGpu(s, row_of, col_of, in[0].dptr<DType>(), matrices, rows, cols, rule);
      } else {
        Kernel<match_matrix_cpu, cpu>::LaunchItems(s, matrices, rows * cols * 16, row_of, col_of,
                                                   in[0].dptr<DType>(), rows, cols, rule);
      }
    }
    Assign(out[0].get_with_shape<xpu, 1, DType>(mshadow::Shape1(row_count), s), req[0],
           mshadow::expr::F<mshadow::op::identity>(markers.Slice(0, row_count)));
    Assign(
        out[1].get_with_shape<xpu, 1, DType>(mshadow::Shape1(col_count), s), req[1],
        mshadow::expr::F<mshadow::op::identity>(markers.Slice(row_count, row_count + col_count)));
  });
}

// Adds FCompute<xpu> to _contrib_bipartite_matching and its backward operator.
template <typename xpu>
void SetBipartiteMatchingCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("_contrib_bipartite_matching")
      .set_attr<FCompute>(attr_name, FCompute(BipartiteMatchingCompute<xpu>));
  RegisterOp("_backward_contrib_bipartite_matching")
      .set_attr<FCompute>(attr_name, FCompute(ZeroGradientCompute<xpu>));
}

}  // namespace bipartite_matching
}  // namespace ops

#endif  // OPS_BIPARTITE_MATCHING_INL_H_
