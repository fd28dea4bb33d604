// ops/strided_index.h: an N-d index space whose flat index maps to an offset in each of K
// strided arrays, passed by value into device kernels. It is how the GPU kernels of
// broadcast, reduce and transpose find their operands (the CPU's broadcasts walk rows of
// merged axes instead, strided_loop.h).
//
//   // y[i] = a[offset 0] + b[offset 1] over the broadcast output shape:
//   auto at = StridedIndex<2>::Of(out_shape, {BroadcastStrides(a_shape, out_shape),
//                                             BroadcastStrides(b_shape, out_shape)});
//   ... in a kernel: index_t off[2]; at.Offsets(i, off);
#ifndef OPS_STRIDED_INDEX_H_
#define OPS_STRIDED_INDEX_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "dmlc/logging.h"
#include "mshadow/base.h"
#include "mshadow/tshape.h"

// Unrolls the next loop fully in device code (its bounds are constants), so that the arrays it
// indexes stay in kernel parameters. Nothing in host code (nvcc's host pass included).
#ifdef __CUDA_ARCH__
#define OPS_UNROLL _Pragma("unroll")
#else
#define OPS_UNROLL
#endif

namespace ops {

using mshadow::index_t;

// The most axes a kernel's index space holds, after axes of extent 1 are dropped.
constexpr int kMaxKernelAxes = 8;

template <int K>
struct StridedIndex {
  int ndim = 0;
  // Every flat index fits in 32 bits.
  bool fits_32_bits = true;
  index_t extent[kMaxKernelAxes] = {};
  index_t stride[K][kMaxKernelAxes] = {};

  // The index space `extents` (row-major), array k read with strides[k] (elements per step
  // of each axis). More than kMaxKernelAxes axes of extent above 1: a dmlc::Error.
  static StridedIndex Of(const std::vector<index_t>& extents,
                         const std::array<std::vector<index_t>, K>& strides) {
    StridedIndex index;
    for (size_t d = 0; d < extents.size(); ++d) {
      if (extents[d] == 1) continue;
      if (index.ndim == kMaxKernelAxes) {
        throw dmlc::Error("a GPU kernel's index space has at most " +
                          std::to_string(kMaxKernelAxes) +
                          " axes of extent above 1; this one has more");
      }
      index.extent[index.ndim] = extents[d];
      for (int k = 0; k < K; ++k) index.stride[k][index.ndim] = strides[k][d];
      ++index.ndim;
    }
    index.fits_32_bits = index.Size() <= static_cast<index_t>(UINT32_MAX);
    return index;
  }

  // Number of points in the space. An empty axis makes it 0 before the product of the others
  // (which may pass index_t when the space is empty: tile of an empty axis a huge number of
  // times) is taken.
  MSHADOW_XINLINE index_t Size() const {
    for (int d = 0; d < ndim; ++d) {
      if (extent[d] == 0) return 0;
    }
    index_t size = 1;
    for (int d = 0; d < ndim; ++d) size *= extent[d];
    return size;
  }

  // off[k] = the offset of flat index i in array k. The loops run over constant bounds so
  // that a kernel reads extent and stride from its parameters, never from a local copy, and
  // the division is 32-bit where the space fits (several times cheaper on a GPU).
  MSHADOW_XINLINE void Offsets(index_t i, index_t* off) const {
    for (int k = 0; k < K; ++k) off[k] = 0;
    if (fits_32_bits) {
      uint32_t rest = static_cast<uint32_t>(i);
OPS_UNROLL
      for (int d = kMaxKernelAxes - 1; d >= 0; --d) {
        if (d >= ndim) continue;
        const uint32_t e = static_cast<uint32_t>(extent[d]);
        const uint32_t quotient = rest / e;
        const index_t coordinate = rest - quotient * e;
        rest = quotient;
OPS_UNROLL
        for (int k = 0; k < K; ++k) off[k] += coordinate * stride[k][d];
      }
      return;
    }
OPS_UNROLL
    for (int d = kMaxKernelAxes - 1; d >= 0; --d) {
      if (d >= ndim) continue;
      const index_t coordinate = i % extent[d];
      i /= extent[d];
OPS_UNROLL
      for (int k = 0; k < K; ++k) off[k] += coordinate * stride[k][d];
    }
  }
};

}  // namespace ops

#endif  // OPS_STRIDED_INDEX_H_
