// ops/tile_convolution.h: the CPU's forward of a 1-d or 2-d convolution of any stride and
// dilation by position tiles (ops/position_tiles.h) over its zero-padded input, read in place
// with the layer's steps: no column matrix. Convolution's forward where neither the tap
// products nor Winograd run (strided, dilated, padded past the kernel), and Deconvolution's
// data gradient (its equivalent convolution's forward).
//
//   if (Serves<float>(g, filters / groups))
//     ConvolveByTiles(g, groups, filters, batch, data, weight, bias, req, y, space);
#ifndef OPS_TILE_CONVOLUTION_H_
#define OPS_TILE_CONVOLUTION_H_

#include <vector>

#include "mshadow/base.h"
#include "ops/conv_geometry.h"
#include "ops/op_types.h"
#include "ops/position_tiles.h"
#include "ops/tap_gradient.h"
#include "ops/vector_loop.h"

namespace ops {
namespace tile_convolution {

// Whether the tiles serve convolution g with `filters_per_group`: 1 or 2 spatial axes and
// whole strips of filters.
template <typename DType>
bool Serves(const ConvGeometry& g, index_t filters_per_group) {
  return g.ndim <= 2 && position_tiles::Serves<DType>(filters_per_group);
}

// y = bias (null: none) + the convolution g of data by weight (filters, channels per group,
// kernel...), in `groups` groups, written as `req` says. Per image, the input zero-padded
// (tap_gradient::PadInput), then per group the tiles over it, output (oy, ox) reading tap
// (ky, kx) of channel c at c * plane + (oy * stride + ky * dilate) * pitch + ox * stride + kx *
// dilate. No column matrix is written. The images go to BatchThreads(batch) threads in runs;
// space(size) returns `size` elements of scratch.
template <typename DType, typename Space>
void ConvolveByTiles(const ConvGeometry& g, index_t groups, index_t filters, index_t batch,
                     const DType* data, const DType* weight, const DType* bias, OpReqType req,
                     DType* y, Space&& space) {
  if (req == kNullOp) return;
  const tap_gradient::TapLayer t = tap_gradient::TapLayerOf(g, groups, filters);
  const position_tiles::Layer layer{t.filters, t.channels,       t.Taps(), t.out_h,
                                    t.out_w,   t.sy * t.Pitch(), t.sx};
  const index_t depth = layer.Depth(), group_weights = t.filters * depth;
  const index_t threads = BatchThreads(batch);
  const index_t per_thread = t.groups * t.channels * t.Plane() + t.filters * layer.OutPlane();
  DType* packed = space(2 * t.groups * group_weights + threads * per_thread);
  DType* taps = packed + t.groups * group_weights;  // scratch until packed
  DType* scratch = taps + t.groups * group_weights;
  // Row offsets and the weight as position_tiles::Pack takes them: depth t * channels + c.
  std::vector<index_t> offsets(depth), packed_offsets(depth);
  for (index_t ky = 0; ky < t.kh; ++ky) {
    for (index_t kx = 0; kx < t.kw; ++kx) {
      for (index_t c = 0; c < t.channels; ++c) {
        offsets[(ky * t.kw + kx) * t.channels + c] =
            c * t.Plane() + ky * t.dy * t.Pitch() + kx * t.dx;
      }
    }
  }
  for (index_t grp = 0; grp < t.groups; ++grp) {
    for (index_t f = 0; f < t.filters; ++f) {
      const DType* w = weight + (grp * t.filters + f) * t.channels * t.Taps();
      for (index_t c = 0; c < t.channels; ++c) {
        for (index_t k = 0; k < t.Taps(); ++k) {
          taps[f * depth + k * t.channels + c] = w[c * t.Taps() + k];
        }
      }
    }
    position_tiles::Pack(layer, static_cast<const DType*>(taps), offsets.data(),
                         packed + grp * group_weights, packed_offsets.data());
  }
  const index_t image = t.groups * t.channels * t.in_h * t.in_w, out_plane = layer.OutPlane();
  const position_tiles::PhaseGrid grid{t.out_h, t.out_w};
  ForEachImageRun(batch, threads, [&](index_t th, index_t begin, index_t end) {
    DType* padded = scratch + th * per_thread;
    DType* acc = padded + t.groups * t.channels * t.Plane();
    for (index_t n = begin; n < end; ++n) {
      tap_gradient::PadInput(t, data + n * image, padded);
      for (index_t grp = 0; grp < t.groups; ++grp) {
        const position_tiles::Phase<DType> phase{layer, packed + grp * group_weights,
                                                 packed_offsets.data()};
        const DType* group_bias = bias == nullptr ? nullptr : bias + grp * t.filters;
        DType* y_group = y + (n * filters + grp * t.filters) * out_plane;
        const DType* x = padded + grp * t.channels * t.Plane();
        if (req == kAddTo) {
          position_tiles::ConvolvePhases<true>(&phase, 1, grid, x, group_bias, y_group, out_plane,
                                               acc);
        } else {
          position_tiles::ConvolvePhases<false>(&phase, 1, grid, x, group_bias, y_group, out_plane,
                                                acc);
        }
      }
    }
  });
}

}  // namespace tile_convolution
}  // namespace ops

#endif  // OPS_TILE_CONVOLUTION_H_
