// ops/all_finite-inl.h: all_finite and multi_all_finite, whether every element of their
// inputs is finite (no infinity, no NaN), as a float32 flag of shape (1,): 1 or 0, or with
// init_output=False 0 written only where an element is not finite (the flag of earlier
// calls kept otherwise), as in MXNet 1.9.1, whose mixed-precision training checks its
// gradients so. Written for every device: the CPU runs a vectorized check on the library's
// threads (all_finite.cc); the GPU one kernel per input whose non-finite elements clear the
// flag. all_finite.cc registers them with FCompute<cpu>; all_finite.cu adds FCompute<gpu>.
#ifndef OPS_ALL_FINITE_INL_H_
#define OPS_ALL_FINITE_INL_H_

#include <type_traits>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"

namespace ops {
namespace all_finite {

struct AllFiniteParam : public dmlc::Parameter<AllFiniteParam> {
  bool init_output;
  DMLC_DECLARE_PARAMETER(AllFiniteParam) {
    DMLC_DECLARE_FIELD(init_output)
        .set_default(true)
        .describe("Write 1 first; False leaves a finite input's flag as it was.");
  }
};

struct MultiAllFiniteParam : public dmlc::Parameter<MultiAllFiniteParam> {
  int num_arrays;
  bool init_output;
  DMLC_DECLARE_PARAMETER(MultiAllFiniteParam) {
    DMLC_DECLARE_FIELD(num_arrays)
        .set_default(1)
        .set_lower_bound(1)
        .describe("The number of input arrays.");
    DMLC_DECLARE_FIELD(init_output)
        .set_default(true)
        .describe("Write 1 first; False leaves the flag as it was where all are finite.");
  }
};

// GPU items. x - x is 0 for a finite x and NaN for an infinity or NaN (no isfinite, which
// has no float16 overload).
struct clear_if_not_finite {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, float* flag, const DType* x) {
    using Compute = std::conditional_t<std::is_same_v<DType, double>, double, float>;
    const Compute v = static_cast<Compute>(x[i]);
    // Every writer writes the same 0: which one lands does not matter.
    if (!(v - v == Compute(0))) *flag = 0.0f;
  }
};

struct set_flag {
  MSHADOW_XINLINE static void Map(index_t, float* flag) { *flag = 1.0f; }
};

// Whether every element of x is finite, on the CPU (all_finite.cc).
bool AllFiniteCpu(const TBlob& x);

template <typename xpu, typename Param>
void AllFiniteCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  RefuseAddTo(attrs, req[0], "a flag");
  const bool init = GetParam<Param>(attrs).init_output;
  float* flag = out[0].dptr<float>();
  if constexpr (std::is_same_v<xpu, cpu>) {
    bool finite = true;
    for (const TBlob& x : in) finite = finite && AllFiniteCpu(x);
    if (init || !finite) *flag = finite ? 1.0f : 0.0f;
  } else {
    mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
    if (init) Kernel<set_flag, xpu>::Launch(s, 1, flag);
    for (const TBlob& x : in) {
      MSHADOW_REAL_TYPE_SWITCH_EX(x.type_flag_, DType, {
        Kernel<clear_if_not_finite, xpu>::Launch(s, x.Size(), flag, x.dptr<DType>());
      });
    }
  }
}

// Adds FCompute<xpu> to both operators.
template <typename xpu>
void SetAllFiniteCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("all_finite")
      .set_attr<FCompute>(attr_name, FCompute(AllFiniteCompute<xpu, AllFiniteParam>));
  RegisterOp("multi_all_finite")
      .set_attr<FCompute>(attr_name, FCompute(AllFiniteCompute<xpu, MultiAllFiniteParam>));
}

}  // namespace all_finite
}  // namespace ops

#endif  // OPS_ALL_FINITE_INL_H_
