// ops/histogram-inl.h: _histogram, MXNet 1.9.1's (and NumPy's) histogram: the count of the
// data's elements in each bin (int64) and the bins' edges (the data's type). Either bin_cnt
// equal bins over range, or the edges given as a second input (non-decreasing, at least two).
// Every bin is [edge, next edge) but the last, which holds its upper edge too; NaN and
// elements outside the edges are not counted. No gradient (MXNet registers none).
//
// Counting: the CPU's items are chunks of the data, each into its own row of counts in the
// temporary space, the rows then summed (exact in any order); the GPU adds each element to
// its bin atomically. histogram.cc registers the CPU, histogram.cu adds FCompute<gpu>.
#ifndef OPS_HISTOGRAM_INL_H_
#define OPS_HISTOGRAM_INL_H_

#include <cmath>
#include <cstdint>
#include <sstream>
#include <type_traits>
#include <vector>

#include "dmlc/optional.h"
#include "mshadow/tensor.h"
#include "ops/float_tuple.h"
#include "ops/index_type.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"

namespace ops {
namespace histogram {

struct HistogramParam : public dmlc::Parameter<HistogramParam> {
  dmlc::optional<int> bin_cnt;
  dmlc::optional<FloatTuple> range;
  DMLC_DECLARE_PARAMETER(HistogramParam) {
    DMLC_DECLARE_FIELD(bin_cnt)
        .set_default(dmlc::optional<int>())
        .describe(
            "The number of equal bins over range (then range is required); None: the "
            "edges are the second input, bins.");
    DMLC_DECLARE_FIELD(range)
        .set_default(dmlc::optional<FloatTuple>())
        .describe(
            "(lower, upper) of the equal bins, lower <= upper (equal: widened by 0.5 "
            "each way, as MXNet).");
  }
};

// The bins: `count` of them, `edges` (count + 1); equal bins over [lo, hi] find an element's
// bin by arithmetic, given edges by a binary search.
struct Bins {
  index_t count;
  bool equal;
  double lo, hi, per_unit;  // per_unit: count / (hi - lo)
};

// The bin of x, or -1 (NaN, outside): for equal bins the arithmetic estimate, corrected by
// the edges as they are in the data's type (so a rounding in the estimate moves no element).
template <typename DType>
MSHADOW_XINLINE index_t BinOf(DType x, const DType* edges, const Bins& b) {
  if (b.equal) {
    if (!(x >= b.lo && x <= b.hi)) return -1;
    index_t bin = static_cast<index_t>((x - b.lo) * b.per_unit);
    bin = bin < b.count - 1 ? bin : b.count - 1;
    if (x < edges[bin]) --bin;
    if (x >= edges[bin + 1] && bin != b.count - 1) ++bin;
    return bin;
  }
  if (!(x >= edges[0] && x <= edges[b.count])) return -1;
  index_t first = 0, last = b.count;  // the first edge above x, in (0, count]
  while (first < last) {
    const index_t mid = (first + last) / 2;
    if (edges[mid] <= x) {
      first = mid + 1;
    } else {
      last = mid;
    }
  }
  return first - 1 < b.count - 1 ? first - 1 : b.count - 1;
}

// edges[i] of equal bins, as MXNet: (hi i + lo (count - i)) / count in double.
template <int kReq>
struct equal_edges {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* edges, Bins b) {
    AssignReq<kReq>(edges + i, DType((b.hi * i + (b.count - i) * b.lo) / b.count));
  }
};

// CPU item c: the elements [c * chunk, (c + 1) * chunk) counted into row c of `rows`.
struct count_chunk {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t c, int64_t* rows, const DType* data, index_t size,
                                  index_t chunk, const DType* edges, Bins b) {
    int64_t* row = rows + c * b.count;
    for (index_t j = 0; j < b.count; ++j) row[j] = 0;
    const index_t end = (c + 1) * chunk < size ? (c + 1) * chunk : size;
    for (index_t i = c * chunk; i < end; ++i) {
      const index_t bin = BinOf(data[i], edges, b);
      if (bin >= 0) ++row[bin];
    }
  }
};

// counts[j] = the sum of the chunks' rows at j.
template <int kReq>
struct sum_chunk_counts {
  MSHADOW_XINLINE static void Map(index_t j, int64_t* counts, const int64_t* rows, index_t chunks,
                                  index_t count) {
    int64_t total = 0;
    for (index_t c = 0; c < chunks; ++c) total += rows[c * count + j];
    AssignReq<kReq>(counts + j, total);
  }
};

// GPU item i: element i added to its bin's count.
struct count_element {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, int64_t* counts, const DType* data, const DType* edges,
                                  Bins b) {
    const index_t bin = BinOf(data[i], edges, b);
    if (bin < 0) return;
#ifdef __CUDA_ARCH__
    atomicAdd(reinterpret_cast<unsigned long long*>(counts + bin), 1ULL);  // NOLINT(runtime/int)
#else
    ++counts[bin];
#endif
  }
};

// The equal bins of the parameters (range checked), or the given edges' count.
inline Bins BinsOf(const HistogramParam& p, index_t edges) {
  if (!p.bin_cnt.has_value()) return {edges - 1, false, 0, 0, 0};
  double lo = p.range.value()[0], hi = p.range.value()[1];
  if (lo == hi) {
    lo -= 0.5;
    hi += 0.5;
  }
  return {p.bin_cnt.value(), true, lo, hi, p.bin_cnt.value() / (hi - lo)};
}

// Given edges must not decrease: a dmlc::Error naming the first that does (or is NaN).
template <typename xpu, typename DType>
void CheckEdges(const TBlob& bins, mshadow::Stream<xpu>* s) {
  WithIndicesOnHost<xpu, DType>(bins, s, [](const DType* e, index_t n) {
    for (index_t i = 0; i < n; ++i) {
      if (!std::isnan(static_cast<double>(e[i])) && (i == 0 || e[i - 1] <= e[i])) continue;
      std::ostringstream os;
      os << "_histogram: bins edge " << i << " (" << static_cast<double>(e[i]) << ")";
      if (i > 0) os << " is below edge " << i - 1 << " (" << static_cast<double>(e[i - 1]) << ")";
      os << "; valid: non-decreasing edges, none NaN";
      throw dmlc::Error(os.str());
    }
  });
}

// Inputs: data[, bins]. Outputs: counts (int64), edges.
template <typename xpu>
void HistogramCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  const HistogramParam& param = GetParam<HistogramParam>(attrs);
  const TBlob& data = in[0];
  const Bins b = BinsOf(param, out[1].Size());
  const index_t size = data.Size();
  MSHADOW_SGL_DBL_TYPE_SWITCH(data.type_flag_, DType, {
    // The edges the counts compare with: the given ones, or equal ones written (as the
    // output, or into temporary space when the output is not written).
    const DType* edges = nullptr;
    constexpr index_t kChunk = 1 << 16;
    const index_t chunks = std::is_same_v<xpu, mshadow::cpu> ? (size + kChunk - 1) / kChunk : 0;
    const size_t row_bytes = sizeof(int64_t) * chunks * b.count;
    char* space = static_cast<char*>(TempBytes(
        ctx, row_bytes + (b.equal ? sizeof(DType) * (b.count + 1) : 0) + sizeof(int64_t), s));
    int64_t* rows = reinterpret_cast<int64_t*>(space);  // the CPU's chunks' counts
    if (b.equal) {
      DType* equal = reinterpret_cast<DType*>(space + row_bytes);
      Kernel<equal_edges<kWriteTo>, xpu>::Launch(s, b.count + 1, equal, b);
      OPS_REQ_SWITCH(req[1], Req, {
        Kernel<equal_edges<Req>, xpu>::Launch(s, b.count + 1, out[1].dptr<DType>(), b);
      });
      edges = equal;
    } else {
      CheckEdges<xpu, DType>(in[1], s);
      edges = in[1].dptr<DType>();
      OPS_REQ_SWITCH(req[1], Req, {
        Kernel<op_with_req<mshadow::op::identity, Req>, xpu>::Launch(s, b.count + 1,
                                                                     out[1].dptr<DType>(), edges);
      });
    }
    if (req[0] == kNullOp) return;
    int64_t* counts = out[0].dptr<int64_t>();
    if constexpr (std::is_same_v<xpu, mshadow::cpu>) {
      Kernel<count_chunk, xpu>::LaunchItems(s, chunks, kChunk, rows, data.dptr<DType>(), size,
                                            kChunk, edges, b);
      OPS_REQ_SWITCH(req[0], Req, {
        Kernel<sum_chunk_counts<Req>, xpu>::Launch(s, b.count, counts, rows, chunks, b.count);
      });
    } else {
      if (req[0] != kAddTo) Flat<xpu, int64_t>(out[0], s) = int64_t(0);
      Kernel<count_element, xpu>::Launch(s, size, counts, data.dptr<DType>(), edges, b);
    }
  });
}

template <typename xpu>
void SetHistogramCompute() {
  RegisterOp("_histogram")
      .set_attr<FCompute>(ComputeAttrName<xpu>(), FCompute(HistogramCompute<xpu>));
}

}  // namespace histogram
}  // namespace ops

#endif  // OPS_HISTOGRAM_INL_H_
