// ops/sample_multinomial-inl.h: _sample_multinomial(data), MXNet 1.9.1's draws from
// categorical distributions: data (..., k) holds the probabilities of k categories for each
// distribution; the output, data.shape[:-1] + shape, holds prod(shape) categories drawn from
// each ((1,) for one distribution and no shape), in dtype (int32 unless given). get_prob adds
// a second output, the log probability of each draw, whose gradient reaches data as
// ograd / p (the score-function gradient of reinforcement learning); without it the gradient
// is zero. Written once for every device.
//
// Every probability is checked on the host before anything is drawn (a GPU's copied there):
// finite, not negative, each distribution's summing to 1 (within SumTolerance); an error
// names the distribution. MXNet 1.9.1 checks nothing and, for a row summing below 1, returns
// the category k, which does not exist. The draws: each distribution's cumulative sums (in
// double, in the temporary space), then for each draw a uniform u and the first category whose
// cumulative sum exceeds u times the row's total, by binary search (as MXNet's): O(log k) a
// draw, and no draw of a category of probability 0. Each row draws from its own run of Philox
// blocks, so the draws are the same on any thread count and device.
// sample_multinomial.cc registers it with FCompute<cpu>; sample_multinomial.cu adds
// FCompute<gpu>.
#ifndef OPS_SAMPLE_MULTINOMIAL_INL_H_
#define OPS_SAMPLE_MULTINOMIAL_INL_H_

#include <atomic>
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "mshadow/philox.h"
#include "mshadow/tensor.h"
#include "ops/index_type.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"
#include "ops/vector_loop.h"

namespace ops {
namespace sample_multinomial {

struct SampleMultinomialParam : public dmlc::Parameter<SampleMultinomialParam> {
  TShape shape;
  bool get_prob;
  int dtype;
  DMLC_DECLARE_PARAMETER(SampleMultinomialParam) {
    DMLC_DECLARE_FIELD(shape).set_default(TShape()).describe(
        "The draws from each distribution: the output is data.shape[:-1] + shape.");
    DMLC_DECLARE_FIELD(get_prob).set_default(false).describe(
        "Also output the log probability of each draw (of data's type), differentiable.");
    DMLC_DECLARE_FIELD(dtype)
        .add_enum("float16", mshadow::kFloat16)
        .add_enum("float32", mshadow::kFloat32)
        .add_enum("float64", mshadow::kFloat64)
        .add_enum("int32", mshadow::kInt32)
        .add_enum("uint8", mshadow::kUint8)
        .set_default(mshadow::kInt32)
        .describe("The type of the drawn categories.");
  }
};

// How far from 1 a distribution's probabilities may sum: the rounding of a softmax in the
// data's type, with room.
template <typename DType>
constexpr double SumTolerance() {
  return sizeof(DType) <= 2 ? 1e-2 : 1e-3;
}

// A dmlc::Error for the first distribution (row of k) that is not one.
template <typename DType>
void CheckDistributions(const DType* p, index_t rows, index_t k) {
  for (index_t i = 0; i < rows; ++i) {
    double sum = 0;
    for (index_t s = 0; s < k; ++s) {
      const double v = static_cast<double>(p[i * k + s]);
      if (!(v >= 0 && v < INFINITY)) {
        throw dmlc::Error("distribution " + std::to_string(i) + " has probability " +
                          dmlc::NumberToString(v) + " for category " + std::to_string(s) +
                          "; valid: finite and >= 0");
      }
      sum += v;
    }
    if (!(std::abs(sum - 1) <= SumTolerance<DType>())) {
      throw dmlc::Error("distribution " + std::to_string(i) + " sums to " +
                        dmlc::NumberToString(sum) + "; valid: 1 (within " +
                        dmlc::NumberToString(SumTolerance<DType>()) + ")");
    }
  }
}

// Item i: the cumulative sums of row i.
struct cumulate_rows {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, double* cumulative, const DType* p, index_t k) {
    double sum = 0;
    for (index_t s = i * k; s < (i + 1) * k; ++s) {
      sum += static_cast<double>(p[s]);
      cumulative[s] = sum;
    }
  }
};

// The category of a draw u in [0, 1) from the row whose cumulative sums are c[0, k): the
// first whose sum exceeds u times the total, by a binary search whose steps depend on k alone
// (selects, no branch to mispredict). A category of probability 0 adds nothing to the sum, so
// it is never the first; where u times the total rounds up to the total, the last category of
// a positive probability.
MSHADOW_XINLINE index_t CategoryOf(const double* c, index_t k, double u) {
  const double target = u * c[k - 1];
  index_t s = 0;  // the first sum above the target is in [s, s + length]
  for (index_t length = k; length > 1;) {
    const index_t half = length / 2;
    s += half * static_cast<index_t>(c[s + half - 1] <= target);  // a product: no branch
    length -= half;
  }
  s += static_cast<index_t>(c[s] <= target);
  if (s < k) return s;
  s = k - 1;
  while (s > 0 && c[s] == c[s - 1]) --s;
  return s;
}

// A row's draws from its own run of Philox blocks, four a block, each from a 32-bit uniform
// (a category's probability is drawn to within 2^-32), whatever data's type: the same seed
// draws the same categories from float16, float32 and float64 probabilities.
constexpr index_t kDrawsPerBlock = 4;

MSHADOW_XINLINE double UniformOf(const mshadow::PhiloxBlock& block, int lane) {
  return static_cast<double>(block.w[lane]) * 0x1p-32;
}

// Where the draws go: row i's per_row draws from data's row i of k probabilities (cumulative
// sums beside them), from blocks_per_row blocks at range.counter + i * blocks_per_row.
template <typename OType, typename DType>
struct Draws {
  OType* out;
  DType* log_p;  // null without get_prob
  const DType* p;
  const double* cumulative;
  index_t k, per_row, blocks_per_row;
  PhiloxRange range;

  // The draws of block b of row i, written as kReq says.
  template <int kReq>
  MSHADOW_XINLINE void DrawBlock(index_t i, index_t b) const {
    const mshadow::PhiloxBlock block =
        mshadow::Philox4x32(mshadow::PhiloxKeyFromSeed(range.seed),
                            range.counter + static_cast<uint64_t>(i * blocks_per_row + b));
    const index_t first = b * kDrawsPerBlock;
    const index_t last = first + kDrawsPerBlock < per_row ? first + kDrawsPerBlock : per_row;
    for (index_t j = first; j < last; ++j) {
      const index_t s =
          CategoryOf(cumulative + i * k, k, UniformOf(block, static_cast<int>(j - first)));
      AssignReq<kReq>(out + i * per_row + j, static_cast<OType>(s));
      if (log_p != nullptr) {
        using Compute = std::conditional_t<std::is_same_v<DType, double>, double, float>;
        AssignReq<kReq>(log_p + i * per_row + j,
                        static_cast<DType>(std::log(static_cast<Compute>(p[i * k + s]))));
      }
    }
  }
};

// GPU items: item g, block g % blocks_per_row of row g / blocks_per_row.
template <int kReq>
struct draw_block {
  template <typename OType, typename DType>
  MSHADOW_XINLINE static void Map(index_t g, Draws<OType, DType> draws) {
    const index_t i = g / draws.blocks_per_row;
    draws.template DrawBlock<kReq>(i, g - i * draws.blocks_per_row);
  }
};

// On the CPU, the threads take pieces of rows (a run of blocks each), with no division per
// block.
template <int kReq, typename OType, typename DType>
void DrawOnCpu(const Draws<OType, DType>& draws, index_t rows) {
  constexpr index_t kPieceBlocks = 256;
  const index_t pieces = (draws.blocks_per_row + kPieceBlocks - 1) / kPieceBlocks;
  ParallelRows(rows * pieces, kPieceBlocks * kDrawsPerBlock, [&](index_t t0, index_t t1) {
    for (index_t t = t0; t < t1; ++t) {
      const index_t i = t / pieces, begin = t % pieces * kPieceBlocks;
      const index_t end =
          begin + kPieceBlocks < draws.blocks_per_row ? begin + kPieceBlocks : draws.blocks_per_row;
      for (index_t b = begin; b < end; ++b) draws.template DrawBlock<kReq>(i, b);
    }
  });
}

// Item i: row i of the gradient, the sum over its draws of ograd / p of the drawn category
// (zeros first unless kReq adds). Row returns whether every draw of the row is one of its
// categories; one that is not adds nothing (never a write outside the gradient).
template <int kReq>
struct score_gradient {
  template <typename OType, typename DType>
  MSHADOW_XINLINE static bool Row(index_t i, DType* grad, const DType* ograd, const DType* p,
                                  const OType* drawn, index_t k, index_t per_row) {
    using Compute = std::conditional_t<std::is_same_v<DType, double>, double, float>;
    DType* row = grad + i * k;
    if (kReq != kAddTo) {
      for (index_t s = 0; s < k; ++s) row[s] = DType(0);
    }
    bool valid = true;
    for (index_t j = i * per_row; j < (i + 1) * per_row; ++j) {
      const double category = static_cast<double>(drawn[j]);
      if (!(category > -1 && category < static_cast<double>(k))) {
        valid = false;
        continue;
      }
      const index_t s = static_cast<index_t>(category);
      row[s] =
          static_cast<DType>(static_cast<Compute>(row[s]) +
                             static_cast<Compute>(ograd[j]) / static_cast<Compute>(p[i * k + s]));
    }
    return valid;
  }

  template <typename OType, typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* grad, const DType* ograd, const DType* p,
                                  const OType* drawn, index_t k, index_t per_row) {
    Row(i, grad, ograd, p, drawn, k, per_row);
  }
};

// The most categories ScoreGradientRowOfSums takes (its sums in a local array, a bit each in
// a 64-bit mask).
constexpr index_t kMaxSummedCategories = 64;

// CPU: row i as score_gradient::Row computes it, for rows of at most kMaxSummedCategories: the
// draws' ograd summed per category in a local array, each sum divided by its probability
// once (Row divides every term, and its divisions, one a draw, had set its speed).
template <int kReq, typename OType, typename DType>
bool ScoreGradientRowOfSums(index_t i, DType* grad, const DType* ograd, const DType* p,
                            const OType* drawn, index_t k, index_t per_row) {
  using Compute = std::conditional_t<std::is_same_v<DType, double>, double, float>;
  Compute sum[kMaxSummedCategories] = {};
  uint64_t seen = 0;  // the categories drawn
  bool valid = true;
  for (index_t j = i * per_row; j < (i + 1) * per_row; ++j) {
    // The draw's category, truncated as Row's index is.
    index_t s;
    if constexpr (std::is_integral_v<OType>) {
      s = static_cast<index_t>(drawn[j]);
      if (s < 0 || s >= k) {
        valid = false;
        continue;
      }
    } else {
      const double category = static_cast<double>(drawn[j]);
      if (!(category > -1 && category < static_cast<double>(k))) {
        valid = false;
        continue;
      }
      s = static_cast<index_t>(category);
    }
    sum[s] += static_cast<Compute>(ograd[j]);
    seen |= uint64_t{1} << s;
  }
  DType* row = grad + i * k;
  for (index_t c = 0; c < k; ++c) {
    // A category never drawn adds nothing (its probability may be 0).
    const Compute share =
        (seen >> c & 1u) ? sum[c] / static_cast<Compute>(p[i * k + c]) : Compute(0);
    row[c] = static_cast<DType>(kReq == kAddTo ? static_cast<Compute>(row[c]) + share : share);
  }
  return valid;
}

// The error for the first of count draws that is not one of k categories.
template <typename OType>
void ThrowFirstBadDraw(const OType* drawn, index_t count, index_t k) {
  const index_t j = FirstOutside(drawn, count, -1.0, static_cast<double>(k));
  if (j < count) {
    throw dmlc::Error("draw " + std::to_string(j) + " is category " +
                      dmlc::NumberToString(static_cast<double>(drawn[j])) + "; valid: 0 to " +
                      std::to_string(k - 1));
  }
}

template <typename xpu>
void SampleMultinomialCompute(const NodeAttrs& attrs, const OpContext& ctx,
                              const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                              const std::vector<TBlob>& out) {
  const TBlob& data = in[0];
  const index_t k = data.shape_[data.ndim() - 1], rows = data.Size() / k;
  const index_t n = out[0].Size(), per_row = rows == 0 ? 0 : n / rows;
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  const bool get_prob = GetParam<SampleMultinomialParam>(attrs).get_prob;
  MSHADOW_REAL_TYPE_SWITCH_EX(data.type_flag_, DType, {
    WithIndicesOnHost<xpu, DType>(
        data, s, [&](const DType* host, index_t) { CheckDistributions(host, rows, k); });
    if (req[0] == kNullOp || n == 0) return;
    double* cumulative =
        ctx.requested[1].get_space_typed<xpu, 1, double>(mshadow::Shape1(rows * k), s).dptr_;
    Kernel<cumulate_rows, xpu>::Launch(s, rows, cumulative, data.dptr<DType>(), k);
    const index_t blocks_per_row = (per_row + kDrawsPerBlock - 1) / kDrawsPerBlock;
    const PhiloxRange range =
        ctx.requested[0].TakeRandom(static_cast<uint64_t>(rows * blocks_per_row));
    DType* log_p = get_prob ? out[1].dptr<DType>() : nullptr;
    MSHADOW_TYPE_SWITCH(out[0].type_flag_, OType, {
      const Draws<OType, DType> draws{out[0].dptr<OType>(), log_p, data.dptr<DType>(),
                                      cumulative,           k,     per_row,
                                      blocks_per_row,       range};
      OPS_REQ_SWITCH(req[0], kReq, {
        if constexpr (std::is_same_v<xpu, cpu>) {
          DrawOnCpu<kReq>(draws, rows);
        } else {
          Kernel<draw_block<kReq>, xpu>::Launch(s, rows * blocks_per_row, draws);
        }
      });
    });
  });
}

// Inputs: the output gradients (of the draws, unused, and with get_prob of the log
// probabilities), data, the outputs (the draws, and the log probabilities).
template <typename xpu>
void SampleMultinomialBackward(const NodeAttrs& attrs, const OpContext& ctx,
                               const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                               const std::vector<TBlob>& out) {
  if (!GetParam<SampleMultinomialParam>(attrs).get_prob) {
    return ZeroGradientCompute<xpu>(attrs, ctx, in, req, out);
  }
  const TBlob &ograd = in[1], &data = in[2], &drawn = in[3];
  const index_t k = data.shape_[data.ndim() - 1], rows = data.Size() / k;
  if (req[0] == kNullOp || rows == 0) return;
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  MSHADOW_REAL_TYPE_SWITCH_EX(data.type_flag_, DType, {
    MSHADOW_TYPE_SWITCH(drawn.type_flag_, OType, {
      // The draws index the gradient's rows: the CPU's pass checks each as it reads it, a
      // GPU's are checked on the host first.
      const index_t per_row = drawn.Size() / rows;
      DType* grad = out[0].dptr<DType>();
      OPS_REQ_SWITCH(req[0], kReq, {
        if constexpr (std::is_same_v<xpu, cpu>) {
          std::atomic<bool> valid{true};
          ParallelRows(rows, per_row, [&](index_t begin, index_t end) {
            bool all = true;
            const DType *g = ograd.dptr<DType>(), *p = data.dptr<DType>();
            const OType* d = drawn.dptr<OType>();
            for (index_t i = begin; i < end; ++i) {
              if (k <= kMaxSummedCategories) {
                all &= ScoreGradientRowOfSums<kReq>(i, grad, g, p, d, k, per_row);
              } else {
                all &= score_gradient<kReq>::Row(i, grad, g, p, d, k, per_row);
              }
            }
            if (!all) valid = false;
          });
          if (!valid) ThrowFirstBadDraw(drawn.dptr<OType>(), drawn.Size(), k);
        } else {
          WithIndicesOnHost<xpu, OType>(drawn, s, [&](const OType* host, index_t count) {
            ThrowFirstBadDraw(host, count, k);
          });
          Kernel<score_gradient<kReq>, xpu>::Launch(s, rows, grad, ograd.dptr<DType>(),
                                                    data.dptr<DType>(), drawn.dptr<OType>(), k,
                                                    per_row);
        }
      });
    });
  });
}

template <typename xpu>
void SetSampleMultinomialCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("_sample_multinomial")
      .set_attr<FCompute>(attr_name, FCompute(SampleMultinomialCompute<xpu>));
  RegisterOp("_backward_sample_multinomial")
      .set_attr<FCompute>(attr_name, FCompute(SampleMultinomialBackward<xpu>));
}

}  // namespace sample_multinomial
}  // namespace ops

#endif  // OPS_SAMPLE_MULTINOMIAL_INL_H_
