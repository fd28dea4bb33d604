// ops/im2col.h: the column matrix of a 1-, 2- or 3-d convolution, and back, for every device.
//
// For one image of C channels, the column matrix has a row per (channel, kernel offset) and a
// column per output position: col[c*K + k][o] is the input element that kernel offset k sees
// at output position o (zero in the padding). A convolution is then one gemm, weight (F, C*K)
// times col (C*K, O); its data gradient is the transposed gemm followed by Col2Im, which adds
// every column element back onto the input element it came from.
//
// The two devices want different items. The CPU's are whole column rows (Im2Col) and whole
// channels (Col2Im): coordinates advance without divisions, and each run along the last axis
// has its bounds worked out once, so the inner loop is a plain copy or add (contiguous for
// stride 1). Measured on the 3x3 shape, items of one run each spent more time on
// index arithmetic than the copy. The GPU's are single elements, each column element reading
// its input and each input element gathering the column entries that read it: coalesced, and
// no two threads write one element, so no atomics.
#ifndef OPS_IM2COL_H_
#define OPS_IM2COL_H_

#include <algorithm>
#include <type_traits>

#include "mshadow/base.h"
#include "mshadow/parallel.h"
#include "ops/conv_geometry.h"
#include "ops/kernel_launch.h"
#include "ops/vector_loop.h"

namespace ops {
namespace im2col_detail {

// The output positions j in [0, out_extent) whose input position j * stride + base lies in
// [0, in_extent): [*begin, *end).
MSHADOW_XINLINE void ValidRun(index_t base, index_t stride, index_t in_extent,
                              index_t out_extent, index_t* begin, index_t* end) {
  index_t first = base >= 0 ? 0 : (-base + stride - 1) / stride;
  index_t last = in_extent - base <= 0 ? 0 : (in_extent - base + stride - 1) / stride;
  if (last > out_extent) last = out_extent;
  if (first > last) first = last;
  *begin = first;
  *end = last;
}

// Splits a flat index over `extents[0..n)` (row-major) into coordinates.
MSHADOW_XINLINE index_t Unravel(index_t flat, const index_t* extents, int n, index_t* coords) {
  for (int a = n - 1; a >= 0; --a) {
    coords[a] = flat % extents[a];
    flat /= extents[a];
  }
  return flat;  // what is left: the index of the leading (channel) axis
}

// Calls fn(run, outer) for every output position on the axes before the last, with `outer`
// the flat output index over those axes and `run` the input offset (over the same axes) of
// kernel taps `taps`, or -1 where it falls in the padding. Coordinates advance like an
// odometer: no division per run.
template <typename Fn>
inline void ForEachOuterRun(const ConvGeometry& g, const index_t* taps, Fn&& fn) {
  const int outer_axes = g.ndim - 1;
  index_t o[ConvGeometry::kMaxSpatial] = {};
  const index_t count = g.OutSize() / g.out[g.ndim - 1];
  for (index_t outer = 0; outer < count; ++outer) {
    index_t offset = 0;
    bool inside = true;
    for (int a = 0; a < outer_axes; ++a) {
      const index_t x = o[a] * g.stride[a] - g.pad[a] + taps[a] * g.dilate[a];
      inside = inside && x >= 0 && x < g.in[a];
      offset = offset * g.in[a] + x;
    }
    fn(inside ? offset : index_t(-1), outer);
    for (int a = outer_axes - 1; a >= 0; --a) {  // next position
      if (++o[a] < g.out[a]) break;
      o[a] = 0;
    }
  }
}

}  // namespace im2col_detail

// CPU item: column row `row` (channel row / K, kernel taps row % K), every output position.
struct Im2ColRow {
  template <typename DType>
  static void Map(index_t row, const ConvGeometry g, const DType* image, DType* col) {
    const int last = g.ndim - 1;
    index_t taps[ConvGeometry::kMaxSpatial];
    const index_t c = im2col_detail::Unravel(row, g.kernel, g.ndim, taps);
    const index_t width = g.out[last], stride = g.stride[last];
    const index_t base = taps[last] * g.dilate[last] - g.pad[last];
    index_t begin, end;
    im2col_detail::ValidRun(base, stride, g.in[last], width, &begin, &end);
    const DType* channel = image + c * g.InSize();
    DType* row_out = col + row * g.OutSize();
    im2col_detail::ForEachOuterRun(g, taps, [&](index_t run, index_t outer) {
      DType* __restrict__ dst = row_out + outer * width;
      if (run < 0) {
        for (index_t j = 0; j < width; ++j) dst[j] = DType(0);
        return;
      }
      const DType* __restrict__ src = channel + run * g.in[last] + base;
      for (index_t j = 0; j < begin; ++j) dst[j] = DType(0);
      if (stride == 1) {
        // Inline: runs are output rows, a few dozen elements, too short for a memcpy call.
        OPS_SIMD_LOOP
        for (index_t j = begin; j < end; ++j) dst[j] = src[j];
      } else if (stride == 2) {
        // A constant stride vectorizes (loads and shuffles); element by element, this copy had
        // been a quarter of a 4x4 stride-2 Deconvolution's backward.
        OPS_SIMD_LOOP
        for (index_t j = begin; j < end; ++j) dst[j] = src[j * 2];
      } else {
        for (index_t j = begin; j < end; ++j) dst[j] = src[j * stride];
      }
      for (index_t j = end; j < width; ++j) dst[j] = DType(0);
    });
  }
};

// CPU item: channel c of the image, written (kReq) with every column entry of its rows added
// back where it was read.
template <int kReq>
struct Col2ImChannel {
  template <typename DType>
  static void Map(index_t c, const ConvGeometry g, const DType* col, DType* image) {
    const int last = g.ndim - 1;
    DType* channel = image + c * g.InSize();
    if (g.stride[last] > 1) return MapStrided(c, g, col, channel);
    if (kReq != kAddTo) {
      for (index_t x = 0; x < g.InSize(); ++x) channel[x] = DType(0);
    }
    const index_t width = g.out[last], stride = g.stride[last];
    for (index_t k = 0; k < g.KernelSize(); ++k) {
      index_t taps[ConvGeometry::kMaxSpatial];
      im2col_detail::Unravel(k, g.kernel, g.ndim, taps);
      const index_t base = taps[last] * g.dilate[last] - g.pad[last];
      index_t begin, end;
      im2col_detail::ValidRun(base, stride, g.in[last], width, &begin, &end);
      const DType* row = col + (c * g.KernelSize() + k) * g.OutSize();
      im2col_detail::ForEachOuterRun(g, taps, [&](index_t run, index_t outer) {
        if (run < 0) return;
        const DType* __restrict__ src = row + outer * width;
        DType* __restrict__ dst = channel + run * g.in[last] + base;
        CopyRun<true>(dst + begin, src + begin, end - begin);
      });
    }
  }

  // A stride s > 1 on the last axis puts a tap's run on every s-th element. The runs are
  // added de-interleaved instead, element x of an input row at plane x % s, position x / s,
  // where every run is contiguous (packets), then interleaved into the channel once: a 4x4
  // stride-2 Deconvolution's col2im had taken 37% of its time a strided element at a time.
  template <typename DType>
  static void MapStrided(index_t c, const ConvGeometry& g, const DType* col, DType* channel) {
    const int last = g.ndim - 1;
    const index_t width = g.out[last], stride = g.stride[last], in_width = g.in[last];
    const index_t plane = (in_width + stride - 1) / stride, row_len = stride * plane;
    const index_t rows = g.InSize() / std::max<index_t>(in_width, 1);
    auto* planes = static_cast<DType*>(
        mshadow::ThreadScratch(static_cast<size_t>(rows * row_len) * sizeof(DType)));
    std::fill(planes, planes + rows * row_len, DType(0));
    for (index_t k = 0; k < g.KernelSize(); ++k) {
      index_t taps[ConvGeometry::kMaxSpatial];
      im2col_detail::Unravel(k, g.kernel, g.ndim, taps);
      // Input element x = base + stride * j: plane (base mod stride), position first + j.
      const index_t base = taps[last] * g.dilate[last] - g.pad[last];
      const index_t phase = (base % stride + stride) % stride, first = (base - phase) / stride;
      index_t begin, end;
      im2col_detail::ValidRun(base, stride, in_width, width, &begin, &end);
      const DType* row = col + (c * g.KernelSize() + k) * g.OutSize();
      im2col_detail::ForEachOuterRun(g, taps, [&](index_t run, index_t outer) {
        if (run < 0) return;
        DType* dst = planes + run * row_len + phase * plane + first;
        CopyRun<true>(dst + begin, row + outer * width + begin, end - begin);
      });
    }
    for (index_t r = 0; r < rows; ++r) {
      DType* to = channel + r * in_width;
      for (index_t phase = 0; phase < stride; ++phase) {
        const DType* from = planes + r * row_len + phase * plane;
        for (index_t x = phase, j = 0; x < in_width; x += stride, ++j) {
          to[x] = kReq == kAddTo ? to[x] + from[j] : from[j];
        }
      }
    }
  }
};

// GPU item: column element i = row * OutSize + output position.
struct Im2ColElement {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, const ConvGeometry g, const DType* image,
                                  DType* col) {
    index_t o[ConvGeometry::kMaxSpatial], taps[ConvGeometry::kMaxSpatial];
    const index_t row = im2col_detail::Unravel(i, g.out, g.ndim, o);
    const index_t c = im2col_detail::Unravel(row, g.kernel, g.ndim, taps);
    index_t offset = c;
    bool inside = true;
    for (int a = 0; a < g.ndim; ++a) {
      const index_t x = o[a] * g.stride[a] - g.pad[a] + taps[a] * g.dilate[a];
      inside = inside && x >= 0 && x < g.in[a];
      offset = offset * g.in[a] + x;
    }
    col[i] = inside ? image[offset] : DType(0);
  }
};

// GPU item: image element i (channel, spatial coordinates), the sum of the column entries
// that read it, written as kReq says.
template <int kReq>
struct Col2ImElement {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, const ConvGeometry g, const DType* col,
                                  DType* image) {
    index_t x[ConvGeometry::kMaxSpatial], taps[ConvGeometry::kMaxSpatial];
    const index_t c = im2col_detail::Unravel(i, g.in, g.ndim, x);
    DType sum = 0;
    for (index_t k = 0; k < g.KernelSize(); ++k) {
      im2col_detail::Unravel(k, g.kernel, g.ndim, taps);
      index_t o_flat = 0;
      bool reads = true;
      for (int a = 0; a < g.ndim; ++a) {
        const index_t shifted = x[a] + g.pad[a] - taps[a] * g.dilate[a];
        const index_t o = shifted / g.stride[a];
        reads = reads && shifted >= 0 && shifted % g.stride[a] == 0 && o < g.out[a];
        o_flat = o_flat * g.out[a] + o;
      }
      if (reads) sum += col[(c * g.KernelSize() + k) * g.OutSize() + o_flat];
    }
    AssignReq<kReq>(image + i, sum);
  }
};

// col (g.ColRows(), g.OutSize()) from one image (g.channels, g.in...).
template <typename xpu, typename DType>
void Im2Col(mshadow::Stream<xpu>* stream, const ConvGeometry& g, const DType* image, DType* col) {
  if constexpr (std::is_same_v<xpu, cpu>) {
    Kernel<Im2ColRow, cpu>::LaunchItems(stream, g.ColRows(), g.OutSize(), g, image, col);
  } else {
    Kernel<Im2ColElement, xpu>::Launch(stream, g.ColRows() * g.OutSize(), g, image, col);
  }
}

// One image (g.channels, g.in...) written as `req` says with the column matrix folded back.
template <typename xpu, typename DType>
void Col2Im(mshadow::Stream<xpu>* stream, const ConvGeometry& g, const DType* col, DType* image,
            OpReqType req) {
  OPS_REQ_SWITCH(req, Req, {
    if constexpr (std::is_same_v<xpu, cpu>) {
      Kernel<Col2ImChannel<Req>, cpu>::LaunchItems(stream, g.channels,
                                                    g.KernelSize() * g.OutSize(), g, col, image);
    } else {
      Kernel<Col2ImElement<Req>, xpu>::Launch(stream, g.channels * g.InSize(), g, col, image);
    }
  });
}

}  // namespace ops

#endif  // OPS_IM2COL_H_
