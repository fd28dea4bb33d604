// ops/unique_zipfian-inl.h: _sample_unique_zipfian, MXNet 1.9.1's candidate sampler: each of a
// batch's rows draws num_sampled distinct classes of [0, range_max) from the approximately
// log-uniform distribution MXNet's kernel draws, round(exp(u log(range_max))) - 1 for uniform
// u, redrawing repeats, and counts its draws (int64 samples and tries). A row's draws are its
// own Philox sequence (block row of the call's range, its stream word counting up), so a seed
// gives the same rows on any thread count and either device. The rows are drawn on the host
// in parallel (a GPU's results copied to it: the draws are sequential within a row, as MXNet's,
// which has no GPU kernel). unique_zipfian.cc registers the CPU, unique_zipfian.cu the GPU.
#ifndef OPS_UNIQUE_ZIPFIAN_INL_H_
#define OPS_UNIQUE_ZIPFIAN_INL_H_

#include <cmath>
#include <cstdint>
#include <sstream>
#include <type_traits>
#include <unordered_set>
#include <vector>

#include "mshadow/philox.h"
#include "mshadow/tensor.h"
#include "ops/host_values_on_device.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"

namespace ops {
namespace unique_zipfian {

struct UniqueZipfianParam : public dmlc::Parameter<UniqueZipfianParam> {
  int range_max;
  TShape shape;
  DMLC_DECLARE_PARAMETER(UniqueZipfianParam) {
    DMLC_DECLARE_FIELD(range_max).set_lower_bound(1).describe("The number of classes.");
    DMLC_DECLARE_FIELD(shape).set_default(TShape()).describe(
        "(batch, num_sampled): the rows and the distinct classes each draws.");
  }
};

// A row gives up after this many draws (its tries then -1): the rarest classes of a large
// range come once in about range_max log(range_max) draws, so a row that asks for nearly all
// of them could take practically forever (MXNet's would; a few times num_sampled is usual).
inline int64_t MaxTries(index_t num_sampled) { return 100 * int64_t(num_sampled) + 100000; }

// One row's draws: its samples' place and its tries'.
struct draw_row {
  static void Map(index_t row, int64_t* samples, int64_t* tries, index_t num_sampled,
                  double log_range, mshadow::PhiloxKey key, uint64_t counter) {
    std::unordered_set<int64_t> seen;
    seen.reserve(static_cast<size_t>(num_sampled));
    int64_t* out = samples + row * num_sampled;
    int64_t count = 0;
    for (uint64_t stream = 0; static_cast<index_t>(seen.size()) < num_sampled; ++stream) {
      if (count >= MaxTries(num_sampled)) {
        tries[row] = -1;
        return;
      }
      const mshadow::PhiloxBlock bits = mshadow::Philox4x32(key, counter + row, stream);
      for (int half = 0; half < 2 && static_cast<index_t>(seen.size()) < num_sampled; ++half) {
        const double u = mshadow::UnitDouble(bits.w[2 * half], bits.w[2 * half + 1]);
        const int64_t value = std::llround(std::exp(u * log_range)) - 1;
        ++count;
        if (seen.insert(value).second) out[seen.size() - 1] = value;
      }
    }
    tries[row] = count;
  }
};

// Outputs: samples (batch, num_sampled) and tries (batch), int64. requested[0]: random;
// requested[1]: temporary space (a GPU's copy of the draws).
template <typename xpu>
void UniqueZipfianCompute(const NodeAttrs& attrs, const OpContext& ctx,
                          const std::vector<TBlob>& /*in*/, const std::vector<OpReqType>& req,
                          const std::vector<TBlob>& out) {
  const UniqueZipfianParam& p = GetParam<UniqueZipfianParam>(attrs);
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  const index_t batch = out[0].shape_[0], num_sampled = out[0].shape_[1];
  const PhiloxRange range = ctx.requested[0].TakeRandom(static_cast<uint64_t>(batch));
  std::vector<int64_t> drawn(static_cast<size_t>(batch * (num_sampled + 1)));
  int64_t* samples = drawn.data();
  int64_t* tries = samples + batch * num_sampled;
  Kernel<draw_row, mshadow::cpu>::LaunchItems(
      nullptr, batch, num_sampled * 8, samples, tries, num_sampled, std::log(double(p.range_max)),
      mshadow::PhiloxKeyFromSeed(range.seed), range.counter);
  for (index_t row = 0; row < batch; ++row) {
    if (tries[row] >= 0) continue;
    std::ostringstream os;
    os << "_sample_unique_zipfian: row " << row << " drew " << MaxTries(num_sampled)
       << " times without finding " << num_sampled << " distinct classes of range_max "
       << p.range_max << "; ask for fewer (the rarest classes come about once in "
       << "range_max log(range_max) draws)";
    throw dmlc::Error(os.str());
  }
  const int64_t* on_device = HostValuesOnDevice<xpu>(
      drawn.data(), static_cast<index_t>(drawn.size()), ctx.requested[1], s);
  const int64_t* from[2] = {on_device, on_device + batch * num_sampled};
  for (int o = 0; o < 2; ++o) {
    OPS_REQ_SWITCH(req[o], Req, {
      Kernel<op_with_req<mshadow::op::identity, Req>, xpu>::Launch(s, out[o].Size(),
                                                                   out[o].dptr<int64_t>(), from[o]);
    });
  }
}

template <typename xpu>
void SetUniqueZipfianCompute() {
  RegisterOp("_sample_unique_zipfian")
      .set_attr<FCompute>(ComputeAttrName<xpu>(), FCompute(UniqueZipfianCompute<xpu>));
}

}  // namespace unique_zipfian
}  // namespace ops

#endif  // OPS_UNIQUE_ZIPFIAN_INL_H_
