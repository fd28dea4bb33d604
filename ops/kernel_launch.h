// ops/kernel_launch.h: operators' elementwise kernels, written once for every device.
//
// An operator writes its element function as a functor with a static Map over a flat index,
// and launches it over n indices on a device's stream; the CPU runs it on the library's
// threads, the GPU as a grid-stride CUDA kernel (ops/kernel_launch_gpu.cuh). The write mode
// (OpReqType) is a template argument of the functor (`op_with_req`), so the loop has no
// branch on it.
//
//   struct clip_inverted {  // MXNet's clip with a_min > a_max
//     template <typename DType>
//     MSHADOW_XINLINE static DType Map(DType x, DType lo, DType hi) {
//       return x > hi ? hi : (x < lo ? lo : x);
//     }
//   };
//   OPS_REQ_SWITCH(req[0], Req, {
//     Kernel<op_with_req<clip_inverted, Req>, xpu>::Launch(
//         stream, n, out.dptr<DType>(), in.dptr<DType>(), lo, hi);
//   });
//
// This is MXNet's mxnet_op::Kernel<OP, xpu>::Launch; the same functor compiles for both
// devices because MSHADOW_XINLINE is __host__ __device__ under nvcc.
#ifndef OPS_KERNEL_LAUNCH_H_
#define OPS_KERNEL_LAUNCH_H_

#include <algorithm>
#include <type_traits>

#include "mshadow/base.h"
#include "mshadow/cpu/packet_executor.h"
#include "mshadow/cpu/stream.h"
#include "mshadow/parallel.h"
#include "ops/op_types.h"
#include "ops/vector_loop.h"

namespace ops {

using mshadow::cpu;
using mshadow::gpu;

// *out = value (kWriteTo, kWriteInplace) or *out += value (kAddTo); kNullOp writes nothing.
template <int kReq, typename DType>
MSHADOW_XINLINE void AssignReq(DType* out, DType value) {
  if constexpr (kReq == kAddTo) {
    *out += value;
  } else if constexpr (kReq != kNullOp) {
    *out = value;
  }
}

// The same with the write mode known at run time: for kernels bound by other work (sorting,
// index arithmetic), where one branch costs less than an instantiation per mode.
template <typename DType>
MSHADOW_XINLINE void AssignReq(DType* out, DType value, OpReqType req) {
  if (req == kAddTo) {
    *out += value;
  } else if (req != kNullOp) {
    *out = value;
  }
}

// out[i] (written as kReq says) = OP::Map(in[i]..., scalars...): an elementwise functor
// lifted to a kernel functor. Arguments that are pointers are read at i; the others are
// passed as they are (scalars).
template <typename OP, int kReq>
struct op_with_req {
  // Item i writes element i only (SimdItems).
  static constexpr bool kSimdItems = true;

  template <typename DType, typename... Args>
  MSHADOW_XINLINE static void Map(index_t i, DType* out, const Args&... args) {
    AssignReq<kReq>(out + i, static_cast<DType>(OP::Map(At(args, i)...)));
  }

 private:
  // A pointer argument's element i; any other argument itself.
  template <typename T>
  MSHADOW_XINLINE static decltype(auto) At(const T& arg, index_t i) {
    if constexpr (std::is_pointer_v<T>) {
      return arg[i];
    } else {
      return arg;
    }
  }
};

// Runs OP::Map(i, args...) for i in [0, n) on Device; declared here, defined per device.
// A device without a definition is a compile error.
template <typename OP, typename Device>
struct Kernel;

// Whether OP's items may run in SIMD lanes on the CPU: OP declares kSimdItems = true when
// item i writes only element i of its outputs, which no other item reads or writes (inputs
// may be shared: where's condition rows). GCC 12's -O2 leaves a loop of run-time length scalar
// otherwise, and a selection (clip's gradient, where) then runs as a branch per element,
// mispredicted half the time on random data.
template <typename OP, typename = void>
struct SimdItems : std::false_type {};
template <typename OP>
struct SimdItems<OP, std::void_t<decltype(OP::kSimdItems)>> : std::bool_constant<OP::kSimdItems> {};

// The CPU: consecutive ranges of indices on the library's threads, as many as the work pays
// for (mshadow's minimum elements per thread). Each index runs once, so results do not
// depend on the thread count.
template <typename OP>
struct Kernel<OP, cpu> {
  template <typename... Args>
  static void Launch(mshadow::Stream<cpu>* stream, index_t n, Args... args) {
    LaunchItems(stream, n, 1, args...);
  }

  // The same for indices that each do about `work_per_item` elements' work (a row, a run of
  // a convolution's columns): the thread count follows the total work, not n.
  template <typename... Args>
  static void LaunchItems(mshadow::Stream<cpu>* /*stream*/, index_t n, index_t work_per_item,
                          Args... args) {
    const int threads = static_cast<int>(std::min<index_t>(
        std::min<index_t>(mshadow::GetNumThreads(), n),
        n * std::max<index_t>(work_per_item, 1) / mshadow::expr::kMinElementsPerThread));
    if (threads <= 1) {
      RunItems(0, n, args...);
      return;
    }
    mshadow::ParallelFor(threads, threads, [&](index_t part) {
      RunItems(n * part / threads, n * (part + 1) / threads, args...);
    });
  }

 private:
  template <typename... Args>
  static void RunItems(index_t begin, index_t end, Args... args) {
    if constexpr (SimdItems<OP>::value) {
      OPS_SIMD_LOOP
      for (index_t i = begin; i < end; ++i) OP::Map(i, args...);
    } else {
      for (index_t i = begin; i < end; ++i) OP::Map(i, args...);
    }
  }
};

// Calls fn(std::integral_constant<int, mode>) for the run-time write mode `req`, kNullOp
// included: for kernels that also compute something besides the output (a mask, statistics).
template <typename Fn>
void WithReqMode(OpReqType req, Fn&& fn) {
  switch (req) {
    case kNullOp:
      return fn(std::integral_constant<int, kNullOp>());
    case kAddTo:
      return fn(std::integral_constant<int, kAddTo>());
    default:
      return fn(std::integral_constant<int, kWriteTo>());
  }
}

}  // namespace ops

// Runs `...` with `Req` a compile-time copy of the run-time write mode `req` (kNullOp runs
// nothing): one instantiation of the kernel per mode.
#define OPS_REQ_SWITCH(req, Req, ...)                              \
  switch (req) {                                                   \
    case ::ops::kNullOp:                                           \
      break;                                                       \
    case ::ops::kWriteTo:                                          \
    case ::ops::kWriteInplace: {                                   \
      constexpr int Req = ::ops::kWriteTo;                         \
      __VA_ARGS__                                                  \
    } break;                                                       \
    case ::ops::kAddTo: {                                          \
      constexpr int Req = ::ops::kAddTo;                           \
      __VA_ARGS__                                                  \
    } break;                                                       \
    default:                                                       \
      LOG(FATAL) << "invalid OpReqType " << static_cast<int>(req); \
  }

#endif  // OPS_KERNEL_LAUNCH_H_
