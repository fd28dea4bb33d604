// FCompute<gpu> of the broadcasting family (broadcast_add, ... and their backward operators):
// the forward operator one thread per output element (or per four along an innermost axis
// that holds whole runs of four), each input's gradient one thread per element of that input
// summing over the positions it was broadcast to.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/broadcast-inl.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_launch_gpu.cuh"
#include "ops/kernel_util.h"
#include "ops/strided_index.h"
#include "ops/strided_loop.h"

namespace ops {
namespace broadcast {
namespace {

// y[i] = OP(lhs, rhs) at the offsets of output element i.
template <typename OP, int kReq>
struct broadcast_kernel {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* y, const DType* lhs, const DType* rhs,
                                  StridedIndex<2> at) {
    index_t off[2];
    at.Offsets(i, off);
    AssignReq<kReq>(y + i, OP::forward::Map(lhs[off[0]], rhs[off[1]]));
  }
};

// Four consecutive outputs along the innermost axis (whose extent is a multiple of 4): one
// index decomposition for the four, and vector loads and stores (16 bytes for float) where an
// operand runs along that axis; an operand broadcast along it gives one value to all four.
constexpr int kRun = 4;

template <typename DType>
struct alignas(kRun * sizeof(DType)) Run {
  DType v[kRun];
};

template <typename DType>
MSHADOW_XINLINE Run<DType> LoadRun(const DType* p, bool contiguous) {
  if (contiguous) return *reinterpret_cast<const Run<DType>*>(p);
  Run<DType> run;
  for (int j = 0; j < kRun; ++j) run.v[j] = *p;
  return run;
}

template <typename OP, int kReq>
struct broadcast_run_kernel {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t r, DType* y, const DType* lhs, const DType* rhs,
                                  StridedIndex<2> at, bool lhs_runs, bool rhs_runs) {
    const index_t i = r * kRun;
    index_t off[2];
    at.Offsets(i, off);
    const Run<DType> a = LoadRun(lhs + off[0], lhs_runs), b = LoadRun(rhs + off[1], rhs_runs);
    Run<DType>* out = reinterpret_cast<Run<DType>*>(y + i);
    Run<DType> result;
    if constexpr (kReq == kAddTo) result = *out;
    for (int j = 0; j < kRun; ++j) {
      const DType value = static_cast<DType>(OP::forward::Map(a.v[j], b.v[j]));
      if constexpr (kReq == kAddTo) {
        result.v[j] += value;
      } else {
        result.v[j] = value;
      }
    }
    if constexpr (kReq != kNullOp) *out = result;
  }
};

// Whether broadcast_run_kernel serves `at`: an innermost extent that is a multiple of kRun,
// and every operand that runs along it (and the output) aligned to a whole run.
template <typename DType>
bool RunsServe(const StridedIndex<2>& at, const DType* y, const DType* lhs, const DType* rhs) {
  if (at.ndim == 0 || at.extent[at.ndim - 1] % kRun != 0) return false;
  auto aligned = [](const DType* p) {
    return reinterpret_cast<uintptr_t>(p) % sizeof(Run<DType>) == 0;
  };
  const DType* operands[2] = {lhs, rhs};
  for (int k = 0; k < 2; ++k) {
    const index_t inner = at.stride[k][at.ndim - 1];
    if (inner != 0 && (inner != 1 || !aligned(operands[k]))) return false;
  }
  return aligned(y);
}

// grad[j] = sum over the output positions p that input element j was broadcast to of
// og[p] * Grad(lhs, rhs at p). Arrays: 0 og, 1 lhs, 2 rhs; `kept` enumerates j, `summed` the
// positions of one j.
template <typename Grad, int kReq>
struct broadcast_grad_kernel {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t j, DType* grad, const DType* og, const DType* lhs,
                                  const DType* rhs, StridedIndex<3> kept, StridedIndex<3> summed) {
    index_t base[3], off[3];
    kept.Offsets(j, base);
    const index_t count = summed.Size();
    DType acc(0);
    for (index_t r = 0; r < count; ++r) {
      summed.Offsets(r, off);
      acc += og[base[0] + off[0]] * Grad::Map(lhs[base[1] + off[1]], rhs[base[2] + off[2]]);
    }
    AssignReq<kReq>(grad + j, acc);
  }
};

template <typename OP>
void BroadcastComputeGpu(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                         const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const TShape& shape = out[0].shape_;
  const std::vector<index_t> extents(shape.begin(), shape.end());
  const auto at = StridedIndex<2>::Of(
      extents, {BroadcastStrides(in[0].shape_, shape), BroadcastStrides(in[1].shape_, shape)});
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    DType* y = out[0].dptr<DType>();
    const DType* lhs = in[0].dptr<DType>();
    const DType* rhs = in[1].dptr<DType>();
    mshadow::Stream<gpu>* s = ctx.get_stream<gpu>();
    if (RunsServe(at, y, lhs, rhs)) {
      const index_t inner = at.ndim - 1;
      OPS_REQ_SWITCH(req[0], Req, {
        Kernel<broadcast_run_kernel<OP, Req>, gpu>::Launch(s, out[0].Size() / kRun, y, lhs, rhs, at,
                                                           at.stride[0][inner] == 1,
                                                           at.stride[1][inner] == 1);
      });
      return;
    }
    OPS_REQ_SWITCH(req[0], Req, {
      Kernel<broadcast_kernel<OP, Req>, gpu>::Launch(s, out[0].Size(), y, lhs, rhs, at);
    });
  });
}

// Inputs: out_grad, lhs, rhs; outputs: lhs_grad, rhs_grad.
template <typename OP>
void BroadcastBackwardComputeGpu(const NodeAttrs&, const OpContext& ctx,
                                 const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                                 const std::vector<TBlob>& out) {
  const TShape& shape = in[0].shape_;
  const std::array<std::vector<index_t>, 3> strides = {RowMajorStrides(shape),
                                                       BroadcastStrides(in[1].shape_, shape),
                                                       BroadcastStrides(in[2].shape_, shape)};
  // Input `side`'s element j: the axes it has (kept) and those it was broadcast along.
  auto side_index = [&](int side) {
    std::vector<index_t> kept(shape.ndim()), summed(shape.ndim());
    for (index_t d = 0; d < shape.ndim(); ++d) {
      const bool broadcast = strides[1 + side][d] == 0;
      kept[d] = broadcast ? 1 : shape[d];
      summed[d] = broadcast ? shape[d] : 1;
    }
    return std::make_pair(StridedIndex<3>::Of(kept, strides), StridedIndex<3>::Of(summed, strides));
  };
  mshadow::Stream<gpu>* s = ctx.get_stream<gpu>();
  MSHADOW_SGL_DBL_TYPE_SWITCH(in[0].type_flag_, DType, {
    const DType* og = in[0].dptr<DType>();
    const DType* lhs = in[1].dptr<DType>();
    const DType* rhs = in[2].dptr<DType>();
    const auto lhs_index = side_index(0);
    OPS_REQ_SWITCH(req[0], Req, {
      Kernel<broadcast_grad_kernel<typename OP::lhs_grad, Req>, gpu>::Launch(
          s, out[0].Size(), out[0].dptr<DType>(), og, lhs, rhs, lhs_index.first, lhs_index.second);
    });
    const auto rhs_index = side_index(1);
    OPS_REQ_SWITCH(req[1], Req, {
      Kernel<broadcast_grad_kernel<typename OP::rhs_grad, Req>, gpu>::Launch(
          s, out[1].Size(), out[1].dptr<DType>(), og, lhs, rhs, rhs_index.first, rhs_index.second);
    });
  });
}

const bool kRegistered = [] {
  ForEachBroadcast([](auto op, const std::string& name, const std::string&) {
    using OP = typename decltype(op)::type;
    RegisterOp(name).set_attr<FCompute>("FCompute<gpu>", FCompute(BroadcastComputeGpu<OP>));
    RegisterOp("_backward_" + name)
        .set_attr<FCompute>("FCompute<gpu>", arith::ZeroGradients<OP>::value
                                                 ? FCompute(ZeroGradientCompute<gpu>)
                                                 : FCompute(BroadcastBackwardComputeGpu<OP>));
  });
  return true;
}();

}  // namespace
}  // namespace broadcast
}  // namespace ops
