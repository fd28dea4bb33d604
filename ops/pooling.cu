// FCompute<gpu> of Pooling (pooling-inl.h), with max pooling's kernels (MaxPoolKernels<gpu>):
// a block of 32 x 8 threads covers a tile of one plane's (height, width) positions and
// gridDim.z its planes and depths, so a thread knows its position without dividing a flat
// index, and its window's or windows' positions in 32 bits. (The generic items divided a flat
// index into four coordinates and ran their loops on 64-bit positions; docs/benchmarks.md has
// both against PyTorch.)
#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#include "mshadow/cuda/check.h"
#include "mshadow/tensor.h"
#include "ops/kernel_launch_gpu.cuh"
#include "ops/pooling-inl.h"

namespace ops {
namespace pooling {
namespace {

constexpr int kTileWidth = 32, kTileHeight = 8;
constexpr unsigned kMaxGridZ = 65535;

// One spatial axis of a 3-D geometry, in 32 bits.
struct Axis {
  int32_t in, out, kernel, stride, pad;

  // The input positions [*begin, *end) of output o's window (WindowOn: cut at the input).
  __device__ void Window(int32_t o, int32_t* begin, int32_t* end) const {
    const int32_t start = o * stride - pad;
    *begin = max(start, 0);
    *end = min(start + kernel, in);
  }
  // The outputs [*first, *last) whose windows hold input position x (OutputsHolding).
  __device__ void Holding(int32_t x, int32_t* first, int32_t* last) const {
    const int32_t hi = x + pad;  // o * stride <= hi < o * stride + kernel
    const int32_t lo = hi - kernel + 1;
    *first = lo <= 0 ? 0 : (lo + stride - 1) / stride;
    *last = min(hi / stride + 1, out);
  }
  // At most two windows hold any one position (kernel <= 2 * stride).
  bool AtMostTwo() const { return kernel <= 2 * stride; }
};

struct Geometry32 {
  Axis d, h, w;
};

Geometry32 Narrow(const ConvGeometry& g) {
  Geometry32 n;
  Axis* axes[3] = {&n.d, &n.h, &n.w};
  for (int a = 0; a < 3; ++a) {
    *axes[a] = Axis{static_cast<int32_t>(g.in[a]), static_cast<int32_t>(g.out[a]),
                    static_cast<int32_t>(g.kernel[a]), static_cast<int32_t>(g.stride[a]),
                    static_cast<int32_t>(g.pad[a])};
  }
  return n;
}

// z as (plane, depth) for a depth of `depth`; kDepth false: a 1-d or 2-d geometry (As3D's unit
// depth), z the plane, no division.
template <bool kDepth, typename Index>
__device__ void SplitDepth(Index z, int32_t depth, Index* plane, int32_t* d) {
  if constexpr (kDepth) {
    *plane = z / depth;
    *d = static_cast<int32_t>(z - *plane * depth);
  } else {
    *plane = z;
    *d = 0;
  }
}

// Output (plane, od, oh, ow) of max pooling, z = plane * out.d + od: the window's maximum and
// the plane offset of its first maximum (-1 for an empty window), as PoolWindow<kMax, true>.
// Index: flat positions over all planes.
template <int kReq, bool kDepth, typename Index, typename DType>
__global__ void __launch_bounds__(kTileWidth* kTileHeight)
    MaxPoolForwardKernel(Geometry32 g, Index depth_planes, const DType* in, DType* out,
                         int32_t* argmax) {
  const int32_t ow = blockIdx.x * kTileWidth + threadIdx.x;
  const int32_t oh = blockIdx.y * kTileHeight + threadIdx.y;
  if (ow >= g.w.out || oh >= g.h.out) return;
  int32_t w0, w1, h0, h1;
  g.w.Window(ow, &w0, &w1);
  g.h.Window(oh, &h0, &h1);
  const int32_t plane_size = g.d.in * g.h.in * g.w.in;
  for (Index z = blockIdx.z; z < depth_planes; z += gridDim.z) {
    Index plane;
    int32_t od;
    SplitDepth<kDepth>(z, g.d.out, &plane, &od);
    int32_t d0, d1;
    g.d.Window(od, &d0, &d1);
    const DType* x = in + plane * plane_size;
    DType acc = FoldIdentity<kMax, DType>();
    int32_t where = (d0 * g.h.in + h0) * g.w.in + w0;
    for (int32_t d = d0; d < d1; ++d) {
      for (int32_t h = h0; h < h1; ++h) {
        const int32_t row = (d * g.h.in + h) * g.w.in;
        for (int32_t w = w0; w < w1; ++w) {
          const DType v = x[row + w];
          where = v > acc ? row + w : where;
          acc = v > acc ? v : acc;
        }
      }
    }
    const Index at = (z * g.h.out + oh) * g.w.out + ow;
    AssignReq<kReq>(out + at, acc);
    argmax[at] = d0 < d1 && h0 < h1 && w0 < w1 ? where : -1;
  }
}

// Input (plane, d, h, w) of max pooling's gradient, z = plane * in.d + d: the sum of the
// output gradients of the windows whose first maximum it is. kPairs (at most two windows on
// the height and width axes, 3x3 stride 2 among them): the four windows' loads are issued
// together, predicated, where the general loops make each window's kept offset, and then its
// gradient, wait for the loads before them (a third faster on an H200, docs/benchmarks.md).
template <int kReq, bool kDepth, bool kPairs, typename Index, typename DType>
__global__ void __launch_bounds__(kTileWidth* kTileHeight)
    MaxPoolBackwardKernel(Geometry32 g, Index depth_planes, const DType* out_grad,
                          const int32_t* argmax, DType* in_grad) {
  const int32_t w = blockIdx.x * kTileWidth + threadIdx.x;
  const int32_t h = blockIdx.y * kTileHeight + threadIdx.y;
  if (w >= g.w.in || h >= g.h.in) return;
  int32_t w0, w1, h0, h1;
  g.w.Holding(w, &w0, &w1);
  g.h.Holding(h, &h0, &h1);
  const int32_t out_size = g.d.out * g.h.out * g.w.out;
  for (Index z = blockIdx.z; z < depth_planes; z += gridDim.z) {
    Index plane;
    int32_t d;
    SplitDepth<kDepth>(z, g.d.in, &plane, &d);
    int32_t d0 = 0, d1 = 1;
    if constexpr (kDepth) g.d.Holding(d, &d0, &d1);
    const int32_t offset = (d * g.h.in + h) * g.w.in + w;
    const Index base = plane * out_size;
    DType sum = 0;
    for (int32_t od = d0; od < d1; ++od) {
      if constexpr (kPairs) {
        int32_t kept[2][2];
        DType grad[2][2];
#pragma unroll
        for (int a = 0; a < 2; ++a) {
#pragma unroll
          for (int b = 0; b < 2; ++b) {
            const bool held = h0 + a < h1 && w0 + b < w1;
            const Index at = base + (od * g.h.out + h0 + a) * g.w.out + w0 + b;
            kept[a][b] = held ? argmax[at] : -1;
            grad[a][b] = held ? out_grad[at] : DType(0);
          }
        }
#pragma unroll
        for (int a = 0; a < 2; ++a) {
#pragma unroll
          for (int b = 0; b < 2; ++b) sum += kept[a][b] == offset ? grad[a][b] : DType(0);
        }
      } else {
        for (int32_t oh = h0; oh < h1; ++oh) {
          const Index row = base + (od * g.h.out + oh) * g.w.out;
          for (int32_t ow = w0; ow < w1; ++ow) {
            if (argmax[row + ow] == offset) sum += out_grad[row + ow];
          }
        }
      }
    }
    AssignReq<kReq>(in_grad + (z * g.h.in + h) * g.w.in + w, sum);
  }
}

// The grid over tiles of (height, width) of `extent` and `depth_planes` along z.
dim3 TileGrid(index_t height, index_t width, index_t depth_planes) {
  return dim3(static_cast<unsigned>((width + kTileWidth - 1) / kTileWidth),
              static_cast<unsigned>((height + kTileHeight - 1) / kTileHeight),
              static_cast<unsigned>(std::min<index_t>(depth_planes, kMaxGridZ)));
}

// fn(Index(), kDepth) with Index 32-bit where every flat position fits (the loop over z
// steps by planes, never past a position), and kDepth false for a geometry of unit depth (1-d
// and 2-d pooling).
template <typename Fn>
void WithIndexAndDepth(const ConvGeometry& g, index_t planes, Fn&& fn) {
  const bool depth = g.in[0] > 1 || g.out[0] > 1 || g.kernel[0] > 1 || g.pad[0] > 0;
  const index_t positions = planes * std::max(g.InSize(), g.OutSize());
  cuda::WithGridIndex(positions, /*per_block=*/0, [&](auto index) {
    if (depth) {
      fn(index, std::true_type());
    } else {
      fn(index, std::false_type());
    }
  });
}

// A geometry whose planes' positions fit int32 (a plane's offsets are int32 anyway: argmax).
void CheckPlaneFits(const ConvGeometry& g) {
  const index_t largest = std::max(g.InSize(), g.OutSize()) + g.KernelSize();
  if (largest >= (index_t{1} << 31)) {
    throw dmlc::Error("Pooling on the GPU: a plane of " + std::to_string(g.InSize()) +
                      " positions is more than int32 offsets hold");
  }
}

}  // namespace

template <>
struct MaxPoolKernels<gpu> {
  template <int kReq, typename DType>
  static void Forward(mshadow::Stream<gpu>* stream, const ConvGeometry& g, index_t planes,
                      const DType* in, DType* out, int32_t* argmax) {
    const index_t depth_planes = planes * g.out[0];
    if (depth_planes == 0 || g.OutSize() == 0) return;
    CheckPlaneFits(g);
    const dim3 grid = TileGrid(g.out[1], g.out[2], depth_planes);
    const dim3 block(kTileWidth, kTileHeight);
    WithIndexAndDepth(g, planes, [&](auto index, auto depth) {
      using Index = decltype(index);
      MaxPoolForwardKernel<kReq, decltype(depth)::value>
          <<<grid, block, 0, mshadow::Stream<gpu>::GetStream(stream)>>>(
              Narrow(g), static_cast<Index>(depth_planes), in, out, argmax);
    });
    MSHADOW_CUDA_CHECK_LAUNCH("MaxPoolForwardKernel");
  }

  template <int kReq, typename DType>
  static void Backward(mshadow::Stream<gpu>* stream, const ConvGeometry& g, index_t planes,
                       const DType* out_grad, const int32_t* argmax, DType* in_grad) {
    const index_t depth_planes = planes * g.in[0];
    if (depth_planes == 0 || g.InSize() == 0) return;
    CheckPlaneFits(g);
    const dim3 grid = TileGrid(g.in[1], g.in[2], depth_planes);
    const dim3 block(kTileWidth, kTileHeight);
    const Geometry32 narrow = Narrow(g);
    WithIndexAndDepth(g, planes, [&](auto index, auto depth) {
      using Index = decltype(index);
      const auto launch = [&](auto pairs) {
        MaxPoolBackwardKernel<kReq, decltype(depth)::value, decltype(pairs)::value>
            <<<grid, block, 0, mshadow::Stream<gpu>::GetStream(stream)>>>(
                narrow, static_cast<Index>(depth_planes), out_grad, argmax, in_grad);
      };
      if (narrow.h.AtMostTwo() && narrow.w.AtMostTwo()) {
        launch(std::true_type());
      } else {
        launch(std::false_type());
      }
    });
    MSHADOW_CUDA_CHECK_LAUNCH("MaxPoolBackwardKernel");
  }
};

namespace {

const bool kRegistered = [] {
  SetPoolingCompute<gpu>();
  return true;
}();

}  // namespace
}  // namespace pooling
}  // namespace ops
