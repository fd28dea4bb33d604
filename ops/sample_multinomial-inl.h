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
// double, in the temporary space), then for each draw a uniform u from a Philox block (two
// draws a block, as ops/pair_draws.h) and the first category whose cumulative sum exceeds
// u times the row's total, by binary search: O(log k) a draw, the same draws on any thread
// count and device, and no draw of a category of probability 0.
// sample_multinomial.cc registers it with FCompute<cpu>; sample_multinomial.cu adds FCompute<gpu>.
#ifndef OPS_SAMPLE_MULTINOMIAL_INL_H_
#define OPS_SAMPLE_MULTINOMIAL_INL_H_

#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/index_type.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"
#include "ops/pair_draws.h"

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
// first whose sum exceeds u times the total. A category of probability 0 adds nothing to
// the sum, so it is never the first; where u times the total rounds up to the total, the last
// category of a positive probability.
MSHADOW_XINLINE index_t CategoryOf(const double* c, index_t k, double u) {
  const double target = u * c[k - 1];
  index_t low = 0, high = k;  // the first sum > target is in [low, high]
  while (low < high) {
    const index_t mid = low + (high - low) / 2;
    if (c[mid] > target) {
      high = mid;
    } else {
      low = mid + 1;
    }
  }
  if (low < k) return low;
  index_t s = k - 1;
  while (s > 0 && c[s] == c[s - 1]) --s;
  return s;
}

// Item b: draws 2b and 2b + 1 (those below n) from Philox block b; draw j is from
// distribution j / per_row. With a log probability output (log_p not null), log(p) of each.
template <int kReq>
struct draw_categories {
  template <typename OType, typename DType>
  MSHADOW_XINLINE static void Map(index_t b, OType* out, DType* log_p, const DType* p,
                                  const double* cumulative, index_t k, index_t per_row, index_t n,
                                  PhiloxRange range) {
    const mshadow::PhiloxBlock block = mshadow::Philox4x32(
        mshadow::PhiloxKeyFromSeed(range.seed), range.counter + static_cast<uint64_t>(b));
    for (int lane = 0; lane < static_cast<int>(sample::kPerBlock); ++lane) {
      const index_t j = b * sample::kPerBlock + lane;
      if (j >= n) return;
      const index_t row = j / per_row;
      const index_t s = CategoryOf(cumulative + row * k, k, sample::Unit<double>(block, lane));
      AssignReq<kReq>(out + j, static_cast<OType>(s));
      if (log_p != nullptr) {
        using Compute = std::conditional_t<std::is_same_v<DType, double>, double, float>;
        AssignReq<kReq>(log_p + j,
                        static_cast<DType>(std::log(static_cast<Compute>(p[row * k + s]))));
      }
    }
  }
};

// Item i: row i of the gradient, the sum over its draws of ograd / p of the drawn category
// (zeros first unless kReq adds).
template <int kReq>
struct score_gradient {
  template <typename OType, typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* grad, const DType* ograd, const DType* p,
                                  const OType* drawn, index_t k, index_t per_row) {
    using Compute = std::conditional_t<std::is_same_v<DType, double>, double, float>;
    DType* row = grad + i * k;
    if (kReq != kAddTo) {
      for (index_t s = 0; s < k; ++s) row[s] = DType(0);
    }
    for (index_t j = i * per_row; j < (i + 1) * per_row; ++j) {
      const index_t s = static_cast<index_t>(drawn[j]);
      row[s] =
          static_cast<DType>(static_cast<Compute>(row[s]) +
                             static_cast<Compute>(ograd[j]) / static_cast<Compute>(p[i * k + s]));
    }
  }
};

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
    const index_t blocks = sample::PairBlocks(n);
    const PhiloxRange range = ctx.requested[0].TakeRandom(static_cast<uint64_t>(blocks));
    DType* log_p = get_prob ? out[1].dptr<DType>() : nullptr;
    MSHADOW_TYPE_SWITCH(out[0].type_flag_, OType, {
      OPS_REQ_SWITCH(req[0], kReq, {
        Kernel<draw_categories<kReq>, xpu>::Launch(s, blocks, out[0].dptr<OType>(), log_p,
                                                   data.dptr<DType>(), cumulative, k, per_row, n,
                                                   range);
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
      // The draws index the gradient's rows: one outside them would write outside it.
      WithIndicesOnHost<xpu, OType>(drawn, s, [&](const OType* host, index_t count) {
        const index_t j = FirstOutside(host, count, -1.0, static_cast<double>(k));
        if (j < count) {
          throw dmlc::Error("draw " + std::to_string(j) + " is category " +
                            dmlc::NumberToString(static_cast<double>(host[j])) + "; valid: 0 to " +
                            std::to_string(k - 1));
        }
      });
      OPS_REQ_SWITCH(req[0], kReq, {
        Kernel<score_gradient<kReq>, xpu>::Launch(ctx.get_stream<xpu>(), rows, out[0].dptr<DType>(),
                                                  ograd.dptr<DType>(), data.dptr<DType>(),
                                                  drawn.dptr<OType>(), k, drawn.Size() / rows);
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
