// ops/im2col.h: the column matrix of a 1-, 2- or 3-d convolution, and back, for every device.
//
// For one image of C channels, the column matrix has a row per (channel, kernel offset) and a
// column per output position: col[c*K + k][o] is the input element that kernel offset k sees
// at output position o (zero in the padding). A convolution is then one gemm, weight (F, C*K)
// times col (C*K, O); its data gradient is the transposed gemm followed by Col2Im, which adds
// every column element back onto the input element it came from.
//
// Both are Kernel functors whose items are runs along the last spatial axis: a run's bounds
// are worked out once, so the inner loop is a plain (for stride 1, contiguous) copy. Col2Im's
// items are input rows, each gathering from every column entry that reads it, so no two items
// write the same element and no atomics are needed on the GPU.
#ifndef OPS_IM2COL_H_
#define OPS_IM2COL_H_

#include "mshadow/base.h"
#include "ops/conv_geometry.h"
#include "ops/kernel_launch.h"

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

}  // namespace im2col_detail

// Item i: the run of column row `row` = i / outer over output positions whose spatial
// coordinates but the last are the flat index i % outer (outer: the product of the output
// extents but the last).
struct Im2ColRun {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, const ConvGeometry g, const DType* image,
                                  DType* col) {
    const int last = g.ndim - 1;
    const index_t width = g.out[last];
    const index_t outer = g.OutSize() / width;
    const index_t row = i / outer;
    index_t rest = i % outer;
    DType* dst = col + row * g.OutSize() + rest * width;
    // Kernel offsets from the row (channel-major, then each kernel axis); output coordinates
    // but the last from `rest`. Walk axes from the last outer one backwards.
    index_t k = row % g.KernelSize();
    const index_t c = row / g.KernelSize();
    index_t offset = c;  // the input element's flat index, built axis by axis
    bool inside = true;
    index_t kernel_last = k % g.kernel[last];
    k /= g.kernel[last];
    index_t coords[ConvGeometry::kMaxSpatial] = {};
    for (int a = last - 1; a >= 0; --a) {
      const index_t o = rest % g.out[a];
      rest /= g.out[a];
      const index_t ka = k % g.kernel[a];
      k /= g.kernel[a];
      coords[a] = o * g.stride[a] - g.pad[a] + ka * g.dilate[a];
      inside = inside && coords[a] >= 0 && coords[a] < g.in[a];
    }
    if (!inside) {
      for (index_t j = 0; j < width; ++j) dst[j] = DType(0);
      return;
    }
    for (int a = 0; a < last; ++a) offset = offset * g.in[a] + coords[a];
    const DType* src = image + offset * g.in[last];
    const index_t base = kernel_last * g.dilate[last] - g.pad[last];
    const index_t stride = g.stride[last];
    index_t begin, end;
    im2col_detail::ValidRun(base, stride, g.in[last], width, &begin, &end);
    for (index_t j = 0; j < begin; ++j) dst[j] = DType(0);
    if (stride == 1) {
      const DType* from = src + base;
      for (index_t j = begin; j < end; ++j) dst[j] = from[j];
    } else {
      for (index_t j = begin; j < end; ++j) dst[j] = src[j * stride + base];
    }
    for (index_t j = end; j < width; ++j) dst[j] = DType(0);
  }
};

// Item i: input row i (channel and spatial coordinates but the last), written (kReq) with
// the sum of every column entry that reads one of its elements.
template <int kReq>
struct Col2ImRow {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, const ConvGeometry g, const DType* col,
                                  DType* image) {
    const int last = g.ndim - 1;
    const index_t width = g.in[last];
    DType* dst = image + i * width;
    if (kReq != kAddTo) {
      for (index_t x = 0; x < width; ++x) dst[x] = DType(0);
    }
    // This row's channel and coordinates on the outer axes.
    index_t coords[ConvGeometry::kMaxSpatial] = {};
    index_t rest = i;
    for (int a = last - 1; a >= 0; --a) {
      coords[a] = rest % g.in[a];
      rest /= g.in[a];
    }
    const index_t c = rest;
    const index_t out_size = g.OutSize();
    const index_t kernel_outer = g.KernelSize() / g.kernel[last];
    // Every combination of kernel offsets on the outer axes that reaches this row from a
    // whole output coordinate.
    for (index_t ko = 0; ko < kernel_outer; ++ko) {
      index_t k_rest = ko;
      index_t out_outer = 0;  // flat output index over the outer axes
      index_t k_flat = 0;     // flat kernel index over the outer axes
      index_t scale = 1;
      bool reaches = true;
      for (int a = last - 1; a >= 0; --a) {
        const index_t ka = k_rest % g.kernel[a];
        k_rest /= g.kernel[a];
        const index_t shifted = coords[a] + g.pad[a] - ka * g.dilate[a];
        const index_t o = shifted / g.stride[a];
        reaches = reaches && shifted >= 0 && shifted % g.stride[a] == 0 && o < g.out[a];
        out_outer += o * scale;
        scale *= g.out[a];
      }
      if (!reaches) continue;
      k_flat = ko;
      for (index_t kl = 0; kl < g.kernel[last]; ++kl) {
        const index_t row = c * g.KernelSize() + k_flat * g.kernel[last] + kl;
        const DType* src = col + row * out_size + out_outer * g.out[last];
        const index_t base = kl * g.dilate[last] - g.pad[last];
        const index_t stride = g.stride[last];
        index_t begin, end;
        im2col_detail::ValidRun(base, stride, width, g.out[last], &begin, &end);
        if (stride == 1) {
          DType* to = dst + base;
          for (index_t j = begin; j < end; ++j) to[j] += src[j];
        } else {
          for (index_t j = begin; j < end; ++j) dst[j * stride + base] += src[j];
        }
      }
    }
  }
};

// col (g.ColRows(), g.OutSize()) from one image (g.channels, g.in...).
template <typename xpu, typename DType>
void Im2Col(mshadow::Stream<xpu>* stream, const ConvGeometry& g, const DType* image, DType* col) {
  const index_t width = g.out[g.ndim - 1];
  Kernel<Im2ColRun, xpu>::LaunchItems(stream, g.ColRows() * (g.OutSize() / width), width, g,
                                      image, col);
}

// One image (g.channels, g.in...) written as `req` says with the column matrix folded back.
template <typename xpu, typename DType>
void Col2Im(mshadow::Stream<xpu>* stream, const ConvGeometry& g, const DType* col, DType* image,
            OpReqType req) {
  const index_t rows = g.channels * (g.InSize() / g.in[g.ndim - 1]);
  const index_t work = g.KernelSize() * g.out[g.ndim - 1];
  OPS_REQ_SWITCH(req, Req, {
    Kernel<Col2ImRow<Req>, xpu>::LaunchItems(stream, rows, work, g, col, image);
  });
}

}  // namespace ops

#endif  // OPS_IM2COL_H_
