// ops/tile_convolution.h: the CPU's forward of a 1-d, 2-d or 3-d convolution of any stride and
// dilation by position tiles (ops/position_tiles.h) over its zero-padded input, read in place
// with the layer's steps: no column matrix. Convolution's forward where neither the tap
// products nor Winograd run (strided, dilated, padded past the kernel, 3-d), a 3-d
// convolution's data gradient at stride 1, and Deconvolution's data gradient (its equivalent
// convolution's forward). A 3-d layer runs as its slices of output depth, each a 2-d layer
// whose taps' offsets reach across the input's depth.
//
//   if (Serves<float>(g, filters / groups))
//     ConvolveByTiles(g, groups, filters, batch, data, weight, bias, req, y, space);
//   if (ServesDataGradient<float>(g, channels / groups))
//     DataGradientByTiles(g, groups, filters, batch, og, weight, req, dx, space);
#ifndef OPS_TILE_CONVOLUTION_H_
#define OPS_TILE_CONVOLUTION_H_

#include <vector>

#include "mshadow/base.h"
#include "mshadow/parallel.h"
#include "ops/conv_geometry.h"
#include "ops/op_types.h"
#include "ops/position_tiles.h"
#include "ops/tap_gradient.h"
#include "ops/transpose_block.h"
#include "ops/vector_loop.h"

namespace ops {
namespace tile_convolution {

// Whether the tiles serve convolution g's forward with `filters_per_group`: 1 to 3 spatial
// axes and whole strips of filters.
template <typename DType>
bool Serves(const ConvGeometry& g, index_t filters_per_group) {
  return g.ndim <= 3 && position_tiles::Serves<DType>(filters_per_group);
}

// y = bias (null: none) + the convolution g of data by the weight weight_at(group, filter,
// channel, tap) returns (tap (kd * kh + ky) * kw + kx; channels and filters per group), in
// `groups` groups, written as `req` says. Per image, the input zero-padded (PadInput, its
// channels interleaved as position_tiles::ChannelInterleave says), then per group and slice of
// output depth the tiles over it, output (od, oy, ox) reading tap (kd, ky, kx) of channel c at
// c * volume + (od * sz + kd * dz) * plane + (oy * sy + ky * dy) * pitch + ox * sx + kx * dx
// (tap_gradient::TapLayer's sizes; interleaved, that position's element of c's block). No
// column matrix is written.
// The images go to BatchThreads(batch) threads one at a time (ForEachImage); space(size)
// returns `size` elements of scratch.
template <typename DType, typename WeightAt, typename Space>
void ConvolveByTilesOf(const ConvGeometry& g, index_t groups, index_t filters, index_t batch,
                       const DType* data, WeightAt weight_at, const DType* bias, OpReqType req,
                       DType* y, Space&& space) {
  if (req == kNullOp) return;
  const mshadow::WorkersStayAwake awake;  // through the packing, for the images' threads
  const tap_gradient::TapLayer t = tap_gradient::TapLayerOf(g, groups, filters);
  const index_t taps = t.Taps(), plane = t.Plane(), volume = t.Volume();
  position_tiles::Layer layer{t.filters, t.channels,       taps, t.out_h,
                              t.out_w,   t.sy * t.Pitch(), t.sx};
  layer.depth_taps = t.kd, layer.kernel_rows = t.kh;
  layer.in_rows = t.in_h, layer.row_origin = -t.pad_h, layer.row_step = t.sy;
  layer.tap_row_step = t.dy;
  layer.in_cols = t.in_w, layer.col_origin = -t.pad_w, layer.tap_col_step = t.dx;
  // The padded input's channels interleaved as the tiles take them best.
  const index_t interleave = position_tiles::ChannelInterleave<DType>(layer);
  layer.pitch *= interleave, layer.column_elements = interleave;
  const index_t depth = layer.Depth(), group_weights = t.filters * depth;
  const index_t threads = BatchThreads(batch);
  const index_t out_plane = t.OutPlane(), out_volume = t.OutSize();
  const index_t per_thread = t.groups * t.channels * volume + t.filters * out_plane;
  DType* packed = space(2 * t.groups * group_weights + threads * per_thread);
  DType* taps_matrix = packed + t.groups * group_weights;  // scratch until packed
  DType* scratch = taps_matrix + t.groups * group_weights;
  // Row offsets and the weight as position_tiles::Pack takes them: depth k * channels + c.
  std::vector<index_t> offsets(depth), packed_offsets(depth);
  for (index_t kd = 0; kd < t.kd; ++kd) {
    for (index_t ky = 0; ky < t.kh; ++ky) {
      for (index_t kx = 0; kx < t.kw; ++kx) {
        const index_t k = (kd * t.kh + ky) * t.kw + kx;
        const index_t shift = kd * t.dz * plane + ky * t.dy * t.Pitch() + kx * t.dx;
        for (index_t c = 0; c < t.channels; ++c) {
          offsets[k * t.channels + c] =
              (c / interleave * volume + shift) * interleave + c % interleave;
        }
      }
    }
  }
  for (index_t grp = 0; grp < t.groups; ++grp) {
    for (index_t f = 0; f < t.filters; ++f) {
      for (index_t c = 0; c < t.channels; ++c) {
        for (index_t k = 0; k < taps; ++k) {
          taps_matrix[f * depth + k * t.channels + c] = weight_at(grp, f, c, k);
        }
      }
    }
    position_tiles::Pack(layer, static_cast<const DType*>(taps_matrix), offsets.data(),
                         packed + grp * group_weights, packed_offsets.data());
  }
  const index_t image = t.groups * t.channels * t.InSize();
  const bool stream =
      req != kAddTo && transpose::StreamsTransposeOf(batch * filters * out_volume *
                                                     static_cast<index_t>(sizeof(DType)));
  const position_tiles::PhaseGrid grid{t.out_h, t.out_w};
  ForEachImage(batch, threads, [&](index_t th, index_t n) {
    DType* padded = scratch + th * per_thread;
    DType* acc = padded + t.groups * t.channels * volume;
    tap_gradient::PadInput(t, data + n * image, padded, interleave);
    for (index_t grp = 0; grp < t.groups; ++grp) {
      position_tiles::Phase<DType> phase{layer, packed + grp * group_weights,
                                         packed_offsets.data()};
      const DType* group_bias = bias == nullptr ? nullptr : bias + grp * t.filters;
      for (index_t od = 0; od < t.out_d; ++od) {
        PositionsReadingInput(od * t.sz - t.pad_d, t.dz, t.kd, t.in_d, &phase.depth_begin,
                              &phase.depth_end);
        DType* y_slice = y + (n * filters + grp * t.filters) * out_volume + od * out_plane;
        const DType* x = padded + (grp * t.channels * volume + od * t.sz * plane * interleave);
        if (req == kAddTo) {
          position_tiles::ConvolvePhases<true>(&phase, 1, grid, x, group_bias, y_slice, out_volume,
                                               acc, false);
        } else {
          position_tiles::ConvolvePhases<false>(&phase, 1, grid, x, group_bias, y_slice, out_volume,
                                                acc, stream);
        }
      }
    }
  });
}

// ConvolveByTilesOf with the weight as Convolution keeps it: (filters, channels per group,
// kernel...).
template <typename DType, typename Space>
void ConvolveByTiles(const ConvGeometry& g, index_t groups, index_t filters, index_t batch,
                     const DType* data, const DType* weight, const DType* bias, OpReqType req,
                     DType* y, Space&& space) {
  ConvolveByTilesOf(g, groups, filters, batch, data,
                    GroupedWeight<DType>(weight, g, groups, filters), bias, req, y, space);
}

// Whether the tiles serve the data gradient of 3-d convolution g (1-d and 2-d layers take
// output phases, ops/deconvolution_phases.h): stride 1, pad at most dilate * (kernel - 1) on
// every axis, data channels per group in whole strips.
template <typename DType>
bool ServesDataGradient(const ConvGeometry& g, index_t channels_per_group) {
  return g.ndim == 3 && position_tiles::Serves<DType>(channels_per_group) &&
         DataGradientIsConvolution(g);
}

// dx (batch, channels, in...) = (or +=, as req says) the data gradient of convolution g
// (ServesDataGradient) from og (batch, filters, out...) and its weight (filters, channels per
// group, kernel...): at stride 1, the convolution of og, padded by dilate * (kernel - 1) - pad,
// with the kernels flipped on every axis and their channels and filters swapped.
template <typename DType, typename Space>
void DataGradientByTiles(const ConvGeometry& g, index_t groups, index_t filters, index_t batch,
                         const DType* og, const DType* weight, OpReqType req, DType* dx,
                         Space&& space) {
  ConvolveByTilesOf(DataGradientGeometry(g, filters), groups, g.channels, batch, og,
                    FlippedWeight<DType>(weight, g, groups, filters),
                    static_cast<const DType*>(nullptr), req, dx, space);
}

}  // namespace tile_convolution
}  // namespace ops

#endif  // OPS_TILE_CONVOLUTION_H_
