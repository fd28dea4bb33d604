// ops/spatial_transformer-inl.h: the spatial transformer network's operators as MXNet 1.9.1
// has them, written once for every device:
//   GridGenerator: sampling positions in [-1, 1] from an affine matrix per image (N, 6) over
//     a target_shape grid, or from an optical flow (N, 2, H, W) added to each position;
//   BilinearSampler: the data (N, C, H, W) sampled bilinearly at a grid (N, 2, Ho, Wo) of such
//     positions (x first, -1 the first column, 1 the last), zero outside;
//   SpatialTransformer: the two composed (an affine matrix per image, bilinear sampling).
// Each grid position's cell (its top-left corner and fractions) is found once and shared by
// the channels; an affine grid and its gradient are products with the unit grid, as MXNet
// computes them. Gradients without atomics: the data's by plane (each (n, c) item scatters
// every output of its plane in order), the grid's by position (summed over the channels);
// on the CPU, both of an image at once with the channels innermost where it has a packet of
// channels or more and fits the scratch bound (ChannelsLastServes). None depends on the
// thread count.
// spatial_transformer.cc registers them with FCompute<cpu>; spatial_transformer.cu adds
// FCompute<gpu>.
#ifndef OPS_SPATIAL_TRANSFORMER_INL_H_
#define OPS_SPATIAL_TRANSFORMER_INL_H_

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "mshadow/parallel.h"
#include "mshadow/tensor.h"
#include "ops/dot-inl.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"
#include "ops/transpose_block.h"
#include "ops/vector_loop.h"

namespace ops {
namespace spatial_transformer {

enum TransformType { kAffine = 0, kWarp = 1 };

struct GridGeneratorParam : public dmlc::Parameter<GridGeneratorParam> {
  int transform_type;
  TShape target_shape;
  DMLC_DECLARE_PARAMETER(GridGeneratorParam) {
    DMLC_DECLARE_FIELD(transform_type)
        .add_enum("affine", kAffine)
        .add_enum("warp", kWarp)
        .describe(
            "affine: data is (N, 6), a 2x3 matrix per image; warp: data is an optical "
            "flow (N, 2, H, W) in positions.");
    DMLC_DECLARE_FIELD(target_shape)
        .set_default(TShape{0, 0})
        .describe("The grid's (H, W) for affine, each at least 2; ignored for warp.");
  }
};

struct BilinearSamplerParam : public dmlc::Parameter<BilinearSamplerParam> {
  dmlc::optional<bool> cudnn_off;
  DMLC_DECLARE_PARAMETER(BilinearSamplerParam) {
    DMLC_DECLARE_FIELD(cudnn_off)
        .set_default(dmlc::optional<bool>())
        .describe("Accepted for MXNet's frontends; the library's kernels serve every device.");
  }
};

struct SpatialTransformerParam : public dmlc::Parameter<SpatialTransformerParam> {
  TShape target_shape;
  int transform_type;
  int sampler_type;
  dmlc::optional<bool> cudnn_off;
  DMLC_DECLARE_PARAMETER(SpatialTransformerParam) {
    DMLC_DECLARE_FIELD(target_shape)
        .set_default(TShape{0, 0})
        .describe("The output's (H, W), each at least 2.");
    DMLC_DECLARE_FIELD(transform_type)
        .add_enum("affine", kAffine)
        .describe("The transformation: an affine matrix per image (N, 6).");
    DMLC_DECLARE_FIELD(sampler_type).add_enum("bilinear", 0).describe("The sampling: bilinear.");
    DMLC_DECLARE_FIELD(cudnn_off)
        .set_default(dmlc::optional<bool>())
        .describe("Accepted for MXNet's frontends; the library's kernels serve every device.");
  }
};

// Position `i` of `n` on [-1, 1] (n >= 2).
template <typename DType>
MSHADOW_XINLINE DType UnitPosition(index_t i, index_t n) {
  return DType(-1) + static_cast<DType>(i) * (DType(2) / static_cast<DType>(n - 1));
}

// Element i of the unit grid (3, H * W): x_w, y_h and 1 at every position (h, w); an affine
// grid is theta (N * 2, 3) times it.
struct unit_grid {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* unit, index_t height, index_t width) {
    const index_t positions = height * width, row = i / positions, p = i % positions;
    unit[i] = row == 0 ? UnitPosition<DType>(p % width, width)
                       : (row == 1 ? UnitPosition<DType>(p / width, height) : DType(1));
  }
};

// Grid element i = (n, k, h, w) from a flow: (flow + w) / ((W - 1) / 2) - 1 for x (k = 0),
// (flow + h) / ((H - 1) / 2) - 1 for y; the gradient is the output gradient over the same half
// extents.
template <int kReq, bool kGradient>
struct warp_grid {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* out, const DType* in, index_t height,
                                  index_t width) {
    const index_t w = i % width, h = i / width % height, k = i / (width * height) % 2;
    const DType half = static_cast<DType>(k == 0 ? width - 1 : height - 1) / DType(2);
    if constexpr (kGradient) {
      AssignReq<kReq>(out + i, in[i] / half);
    } else {
      AssignReq<kReq>(out + i, (in[i] + static_cast<DType>(k == 0 ? w : h)) / half - DType(1));
    }
  }
};

// The data (N, C, H, W) and the grid (N, 2, Ho, Wo).
struct SamplerGeometry {
  index_t batch, channels, height, width, out_height, out_width;
  MSHADOW_XINLINE index_t Positions() const { return out_height * out_width; }
};

// Where a grid position samples a plane, found once per position and shared by the channels:
// for each corner k of its cell ((0, 0), (0, 1), (1, 0), (1, 1) as (dy, dx)) the element's
// offset in the plane, clamped into it, and a mask of all ones where the corner is inside the
// plane, zeros outside; and the fractions (fx, fy) past the top-left corner. Kernels mask a
// corner's value, or what they add at it, to +0 outside: no branch per corner (a branch had
// cost the gradients a third of their time), and nothing read or added outside the plane
// whatever the values (an infinite output gradient adds +0 there, not NaN). A position whose
// corners are all outside (or that is not a number) samples 0 and gets no gradient.
template <typename DType>
struct SampleCell {
  using Bits = std::conditional_t<sizeof(DType) == 8, uint64_t, uint32_t>;
  index_t offset[4];
  Bits mask[4];
  DType fx, fy;

  MSHADOW_XINLINE static SampleCell At(DType gx, DType gy, index_t height, index_t width) {
    const DType x = (gx + DType(1)) * static_cast<DType>(width - 1) / DType(2);
    const DType y = (gy + DType(1)) * static_cast<DType>(height - 1) / DType(2);
    SampleCell cell{{0, 0, 0, 0}, {0, 0, 0, 0}, DType(0), DType(0)};
    if (!(x >= DType(-1) && x <= static_cast<DType>(width) && y >= DType(-1) &&
          y <= static_cast<DType>(height))) {
      return cell;
    }
    const DType fx0 = ::floor(x), fy0 = ::floor(y);
    const index_t x0 = static_cast<index_t>(fx0), y0 = static_cast<index_t>(fy0);
    cell.fx = x - fx0;
    cell.fy = y - fy0;
    for (int k = 0; k < 4; ++k) {
      const index_t yy = y0 + k / 2, xx = x0 + k % 2;
      const bool inside = yy >= 0 && yy < height && xx >= 0 && xx < width;
      cell.mask[k] = inside ? ~Bits(0) : Bits(0);
      const index_t cy = yy < 0 ? 0 : (yy >= height ? height - 1 : yy);
      const index_t cx = xx < 0 ? 0 : (xx >= width ? width - 1 : xx);
      cell.offset[k] = cy * width + cx;
    }
    return cell;
  }
  // v where corner k is inside the plane, +0 where it is outside.
  MSHADOW_XINLINE DType Masked(DType v, int k) const {
    Bits bits;
    memcpy(&bits, &v, sizeof(bits));
    bits &= mask[k];
    memcpy(&v, &bits, sizeof(v));
    return v;
  }
  // Corner k's value in the plane, 0 outside it.
  MSHADOW_XINLINE DType Value(const DType* plane, int k) const {
    return Masked(plane[offset[k]], k);
  }
  // Corner k's bilinear weight.
  MSHADOW_XINLINE DType Weight(int k) const {
    return (k / 2 ? fy : DType(1) - fy) * (k % 2 ? fx : DType(1) - fx);
  }
  // The plane's bilinear sample in this cell.
  MSHADOW_XINLINE DType Interpolate(const DType* plane) const {
    return Value(plane, 0) * Weight(0) + Value(plane, 1) * Weight(1) + Value(plane, 2) * Weight(2) +
           Value(plane, 3) * Weight(3);
  }
};

// Cell i = (n, h, w) of grid position (n, :, h, w).
struct locate_cells {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, SampleCell<DType>* cells, const DType* grid,
                                  SamplerGeometry g) {
    const index_t positions = g.Positions(), n = i / positions, p = i % positions;
    const DType* at = grid + n * 2 * positions + p;
    cells[i] = SampleCell<DType>::At(at[0], at[positions], g.height, g.width);
  }
};

// CPU item: image n, its positions in order (the element items divide twice a position).
struct locate_image_cells {
  template <typename DType>
  static void Map(index_t n, SampleCell<DType>* cells, const DType* grid, SamplerGeometry g) {
    const index_t positions = g.Positions();
    const DType* at = grid + n * 2 * positions;
    SampleCell<DType>* cell = cells + n * positions;
    for (index_t p = 0; p < positions; ++p) {
      cell[p] = SampleCell<DType>::At(at[p], at[positions + p], g.height, g.width);
    }
  }
};

// Output element i = (n, c, h, w): the plane (n, c) sampled at cell (n, h, w).
template <int kReq>
struct bilinear_sample {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* out, const DType* data,
                                  const SampleCell<DType>* cells, SamplerGeometry g) {
    const index_t positions = g.Positions();
    const index_t p = i % positions, plane = i / positions, n = plane / g.channels;
    const SampleCell<DType>& s = cells[n * positions + p];
    const DType* d = data + plane * g.height * g.width;
    AssignReq<kReq>(out + i, s.Interpolate(d));
  }
};

// CPU item: plane (n, c), its positions in order (the element items divide three times an
// element: 84% of SpatialTransformer's forward; docs/benchmarks.md).
template <int kReq>
struct bilinear_sample_plane {
  template <typename DType>
  static void Map(index_t plane, DType* out, const DType* data, const SampleCell<DType>* cells,
                  SamplerGeometry g) {
    const index_t positions = g.Positions();
    const SampleCell<DType>* cell = cells + plane / g.channels * positions;
    const DType* d = data + plane * g.height * g.width;
    DType* o = out + plane * positions;
    for (index_t p = 0; p < positions; ++p) AssignReq<kReq>(o + p, cell[p].Interpolate(d));
  }
};

// Planes (n, c) for c in [kPlanes * b, kPlanes * (b + 1)) of the data's gradient, item i =
// (n, b): every output gradient of those planes added to its cell's four corners by their
// weights, positions in order, the planes zeroed first unless kAddTo. Several planes an item
// (on the CPU) interleave their additions: a smooth grid puts neighbouring positions in the
// same cell, and one plane's additions then wait on each other through memory.
template <int kReq, int kPlanes>
struct bilinear_data_gradient {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* grad, const DType* out_grad,
                                  const SampleCell<DType>* cells, SamplerGeometry g) {
    const index_t blocks = (g.channels + kPlanes - 1) / kPlanes;
    const index_t n = i / blocks, first = i % blocks * kPlanes;
    const index_t count = g.channels - first < kPlanes ? g.channels - first : kPlanes;
    const index_t positions = g.Positions(), plane_size = g.height * g.width;
    DType* planes = grad + (n * g.channels + first) * plane_size;
    if (kReq != kAddTo) {
      for (index_t k = 0; k < count * plane_size; ++k) planes[k] = DType(0);
    }
    const SampleCell<DType>* cell = cells + n * positions;
    const DType* og = out_grad + (n * g.channels + first) * positions;
    for (index_t p = 0; p < positions; ++p) {
      const SampleCell<DType>& s = cell[p];
      for (index_t c = 0; c < count; ++c) {
        DType* plane = planes + c * plane_size;
        const DType o = og[c * positions + p];
        const DType top = o * (DType(1) - s.fy), bottom = o * s.fy;
        // An outside corner adds +0 at its clamped offset: that element stays as it was.
        plane[s.offset[0]] += s.Masked(top * (DType(1) - s.fx), 0);
        plane[s.offset[1]] += s.Masked(top * s.fx, 1);
        plane[s.offset[2]] += s.Masked(bottom * (DType(1) - s.fx), 2);
        plane[s.offset[3]] += s.Masked(bottom * s.fx, 3);
      }
    }
  }
};

// Grid position i = (n, h, w) of the grid's gradient: d out / d x and d out / d y summed over
// the channels against the output gradient, times the half extents (d x / d gx = (W - 1) / 2).
template <int kReq>
struct bilinear_grid_gradient {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* grid_grad, const DType* out_grad,
                                  const DType* data, const SampleCell<DType>* cells,
                                  SamplerGeometry g) {
    const index_t positions = g.Positions(), p = i % positions, n = i / positions;
    const SampleCell<DType>& s = cells[i];
    DType dx = 0, dy = 0;
    for (index_t c = 0; c < g.channels; ++c) {
      const index_t plane = n * g.channels + c;
      const DType* d = data + plane * g.height * g.width;
      const DType v00 = s.Value(d, 0), v01 = s.Value(d, 1), v10 = s.Value(d, 2),
                  v11 = s.Value(d, 3);
      const DType o = out_grad[plane * positions + p];
      dx += o * ((DType(1) - s.fy) * (v01 - v00) + s.fy * (v11 - v10));
      dy += o * ((DType(1) - s.fx) * (v10 - v00) + s.fx * (v11 - v01));
    }
    DType* out = grid_grad + n * 2 * positions + p;
    AssignReq<kReq>(out, dx * static_cast<DType>(g.width - 1) / DType(2));
    AssignReq<kReq>(out + positions, dy * static_cast<DType>(g.height - 1) / DType(2));
  }
};

// The CPU's grid gradient where ChannelsLastServes does not take the image, item n an image: for
// each run of positions, each channel in turn (reading every channel at one position, as
// bilinear_grid_gradient does, misses the L1 cache at each corner: planes a power of two
// apart share cache sets). Each position's sums run over the channels in order, the same
// arithmetic as bilinear_grid_gradient's.
template <int kReq>
struct bilinear_grid_gradient_by_image {
  template <typename DType>
  static void Map(index_t n, DType* grid_grad, const DType* out_grad, const DType* data,
                  const SampleCell<DType>* cells, SamplerGeometry g) {
    const index_t positions = g.Positions();
    std::vector<DType> sums(2 * positions, DType(0));
    DType *dx = sums.data(), *dy = sums.data() + positions;
    const SampleCell<DType>* cell = cells + n * positions;
    // Runs of positions whose cells stay in the L1 cache while every channel visits them.
    constexpr index_t kRun = 256;
    for (index_t begin = 0; begin < positions; begin += kRun) {
      const index_t end = begin + kRun < positions ? begin + kRun : positions;
      for (index_t c = 0; c < g.channels; ++c) {
        const index_t plane = n * g.channels + c;
        const DType* d = data + plane * g.height * g.width;
        const DType* og = out_grad + plane * positions;
        for (index_t p = begin; p < end; ++p) {
          const SampleCell<DType>& s = cell[p];
          const DType v00 = s.Value(d, 0), v01 = s.Value(d, 1), v10 = s.Value(d, 2),
                      v11 = s.Value(d, 3);
          dx[p] += og[p] * ((DType(1) - s.fy) * (v01 - v00) + s.fy * (v11 - v10));
          dy[p] += og[p] * ((DType(1) - s.fx) * (v10 - v00) + s.fx * (v11 - v01));
        }
      }
    }
    DType* out = grid_grad + n * 2 * positions;
    for (index_t p = 0; p < positions; ++p) {
      AssignReq<kReq>(out + p, dx[p] * static_cast<DType>(g.width - 1) / DType(2));
      AssignReq<kReq>(out + positions + p, dy[p] * static_cast<DType>(g.height - 1) / DType(2));
    }
  }
};

// The CPU's two gradients with the channels innermost, item n an image that
// ChannelsLastServes takes (kNullOp: that gradient is not formed). Plane by plane (the kernels
// above), a position's scalar additions often land where the previous position's did and wait on
// them through memory: the two gradients took 73% of SpatialTransformer's backward, 3x this
// kernel's time (docs/benchmarks.md). Here the image's data and data gradient are (H * W, C)
// in the calling thread's scratch (twice the image's size), a position's output gradients a
// row of C: a corner's addition is a row of packets, and the grid's gradient four dot
// products of rows, S_k = sum_c out_grad_c * corner_k,c, since
//   d out / d x = sum_c o_c ((1 - fy) (v01 - v00) + fy (v11 - v10))
//               = (1 - fy) (S_1 - S_0) + fy (S_3 - S_2),
// and likewise for y. A corner outside the plane is skipped (S_k = 0, nothing added).
template <int kDataReq, int kGridReq>
struct bilinear_gradients_channels_last {
  // Positions whose output gradients are transposed together.
  static constexpr index_t kRun = 64;

  template <typename DType>
  static size_t ScratchBytes(const SamplerGeometry& g) {
    const index_t planes = (kDataReq != kNullOp) + (kGridReq != kNullOp);
    return static_cast<size_t>((planes * g.height * g.width + kRun) * g.channels) * sizeof(DType);
  }

  template <typename DType>
  static void Map(index_t n, DType* data_grad, DType* grid_grad, const DType* out_grad,
                  const DType* data, const SampleCell<DType>* cells, SamplerGeometry g) {
    constexpr bool kData = kDataReq != kNullOp, kGrid = kGridReq != kNullOp;
    using transpose::Transpose2D;
    const index_t channels = g.channels, plane_size = g.height * g.width;
    const index_t positions = g.Positions();
    auto* scratch = static_cast<DType*>(mshadow::ThreadScratch(ScratchBytes<DType>(g)));
    DType* data_t = scratch;                                       // (H * W, C), kGrid
    DType* grad_t = data_t + (kGrid ? plane_size * channels : 0);  // (H * W, C), kData
    DType* og_t = grad_t + (kData ? plane_size * channels : 0);    // (kRun, C)
    const DType* image = data + n * channels * plane_size;
    const DType* image_og = out_grad + n * channels * positions;
    if (kGrid) Transpose2D<false>(image, plane_size, data_t, channels, channels, plane_size);
    if (kData) std::fill(grad_t, grad_t + plane_size * channels, DType(0));
    const SampleCell<DType>* cell = cells + n * positions;
    DType* gx = grid_grad + n * 2 * positions;
    const DType x_scale = static_cast<DType>(g.width - 1) / DType(2);
    const DType y_scale = static_cast<DType>(g.height - 1) / DType(2);
    for (index_t begin = 0; begin < positions; begin += kRun) {
      const index_t run = std::min(kRun, positions - begin);
      Transpose2D<false>(image_og + begin, positions, og_t, channels, channels, run);
      for (index_t p = begin; p < begin + run; ++p) {
        const SampleCell<DType>& s = cell[p];
        const DType* o = og_t + (p - begin) * channels;
        if (kGrid) {
          DType sums[4];
          for (int k = 0; k < 4; ++k) {
            const DType* v = data_t + s.offset[k] * channels;
            sums[k] = s.mask[k] ? vec::Sum<DType>(channels,
                                                  [&](index_t i, auto tag) {
                                                    using P = vec::PacketOf<decltype(tag)>;
                                                    return P::LoadUnAligned(o + i) *
                                                           P::LoadUnAligned(v + i);
                                                  })
                                : DType(0);
          }
          const DType dx = (DType(1) - s.fy) * (sums[1] - sums[0]) + s.fy * (sums[3] - sums[2]);
          const DType dy = (DType(1) - s.fx) * (sums[2] - sums[0]) + s.fx * (sums[3] - sums[1]);
          AssignReq<kGridReq>(gx + p, dx * x_scale);
          AssignReq<kGridReq>(gx + positions + p, dy * y_scale);
        }
        if (kData) {
          for (int k = 0; k < 4; ++k) {
            if (!s.mask[k]) continue;
            DType* to = grad_t + s.offset[k] * channels;
            const DType weight = s.Weight(k);
            vec::ForEach<DType>(channels, [&](index_t i, auto tag) {
              using P = vec::PacketOf<decltype(tag)>;
              (P::LoadUnAligned(to + i) + P::Fill(weight) * P::LoadUnAligned(o + i))
                  .StoreUnAligned(to + i);
            });
          }
        }
      }
    }
    if (kData) {
      DType* image_grad = data_grad + n * channels * plane_size;
      Transpose2D<kDataReq == kAddTo>(grad_t, channels, image_grad, plane_size, plane_size,
                                      channels);
    }
  }
};

// Whether bilinear_gradients_channels_last takes an image: a packet of channels or more, and
// a scratch for both gradients of at most 32 MiB (a thread's scratch only grows and stays; larger
// images keep the plane kernels rather than hold twice their size per thread for the process's
// life).
template <typename DType>
bool ChannelsLastServes(const SamplerGeometry& g) {
  constexpr size_t kMaxScratchBytes = size_t{32} << 20;
  return g.channels >= vec::Full<DType>::kSize &&
         bilinear_gradients_channels_last<kWriteTo, kWriteTo>::ScratchBytes<DType>(g) <=
             kMaxScratchBytes;
}

inline SamplerGeometry SamplerGeometryOf(const TShape& data, const TShape& grid) {
  return {data[0], data[1], data[2], data[3], grid[2], grid[3]};
}

// The temporary space as arrays of the given byte sizes, each 64-byte aligned.
inline std::vector<char*> TempArrays(const OpContext& ctx, const std::vector<size_t>& bytes) {
  std::vector<size_t> offsets;
  size_t total = 0;
  for (const size_t b : bytes) {
    offsets.push_back(total);
    total += (b + 63) / 64 * 64;
  }
  CHECK(ctx.requested.at(0).space != nullptr)
      << "the operator requested temporary space but the host gave none";
  char* base = static_cast<char*>(ctx.requested[0].space->Get(total));
  std::vector<char*> arrays;
  for (const size_t offset : offsets) arrays.push_back(base + offset);
  return arrays;
}

// The unit grid's bytes for an (H, W) grid, and the unit grid written there.
template <typename DType>
size_t UnitGridBytes(index_t height, index_t width) {
  return static_cast<size_t>(3 * height * width) * sizeof(DType);
}
template <typename xpu, typename DType>
Tensor<xpu, 2, DType> UnitGrid(mshadow::Stream<xpu>* s, char* space, index_t height,
                               index_t width) {
  DType* unit = reinterpret_cast<DType*>(space);
  Kernel<unit_grid, xpu>::Launch(s, 3 * height * width, unit, height, width);
  return Tensor<xpu, 2, DType>(unit, mshadow::Shape2(3, height * width), s);
}

// CPU item: row (j, h) of the grid (N * 2, H, W), j = n * 2 + k: theta row j's x weight
// times the unit grid's x positions plus the row's constant (y weight times y_h, plus the
// offset), a vectorized loop; through a product of depth 3 the grid had been written at 0.98x
// MXNet's rate on 2 threads (docs/benchmarks.md).
template <int kReq>
struct affine_grid_row {
  template <typename DType>
  static void Map(index_t row, DType* grid, const DType* theta, const DType* unit_x,
                  const DType* unit_y, index_t height, index_t width) {
    const index_t j = row / height, h = row % height;
    const DType* t = theta + j * 3;
    const DType x_weight = t[0], constant = t[1] * unit_y[h * width] + t[2];
    DType* out = grid + row * width;
    OPS_SIMD_LOOP
    for (index_t w = 0; w < width; ++w) AssignReq<kReq>(out + w, x_weight * unit_x[w] + constant);
  }
};

// grid (N * 2, H * W), as req says, = theta (N * 2, 3) times the unit grid.
template <typename xpu, typename DType>
void AffineGrid(mshadow::Stream<xpu>* s, OpReqType req, DType* grid, const DType* theta,
                index_t batch, Tensor<xpu, 2, DType> unit, index_t height) {
  const index_t positions = unit.size(1);
  if constexpr (std::is_same_v<xpu, cpu>) {
    if (req == kNullOp || positions == 0) return;
    const index_t width = positions / height;
    OPS_REQ_SWITCH(req, Req, {
      Kernel<affine_grid_row<Req>, cpu>::LaunchItems(s, batch * 2 * height, width, grid, theta,
                                                     unit.dptr_, unit.dptr_ + positions, height,
                                                     width);
    });
    return;
  }
  matmul::Product(
      Tensor<xpu, 2, DType>(grid, mshadow::Shape2(batch * 2, positions), s), req,
      Tensor<xpu, 2, DType>(const_cast<DType*>(theta), mshadow::Shape2(batch * 2, 3), s), false,
      unit, false);
}

// CPU item: row j of theta's gradient (N * 2, 3) from row j of the grid's, (H, W): per grid
// row h, the sums of g and of g times x_w, one pass over the gradient (the product with the
// unit grid's three columns had run at 0.80x MXNet on 2 threads; docs/benchmarks.md).
template <int kReq>
struct affine_grid_gradient_row {
  template <typename DType>
  static void Map(index_t j, DType* theta_grad, const DType* grid_grad, const DType* unit_x,
                  const DType* unit_y, index_t height, index_t width) {
    using P = vec::Full<DType>;
    const DType* g = grid_grad + j * height * width;
    DType by_x = 0, by_y = 0, total = 0;
    for (index_t h = 0; h < height; ++h, g += width) {
      P sum = P::Fill(DType(0)), dot = P::Fill(DType(0));
      index_t w = 0;
      for (; w + P::kSize <= width; w += P::kSize) {
        const P v = P::LoadUnAligned(g + w);
        sum = sum + v;
        dot = dot + v * P::LoadUnAligned(unit_x + w);
      }
      DType row_sum = sum.Sum(), row_dot = dot.Sum();
      for (; w < width; ++w) row_sum += g[w], row_dot += g[w] * unit_x[w];
      by_x += row_dot, by_y += unit_y[h * width] * row_sum, total += row_sum;
    }
    AssignReq<kReq>(theta_grad + j * 3, by_x);
    AssignReq<kReq>(theta_grad + j * 3 + 1, by_y);
    AssignReq<kReq>(theta_grad + j * 3 + 2, total);
  }
};

// theta_grad (N * 2, 3), as req says, = grid_grad (N * 2, H * W) times the unit grid's
// transpose.
template <typename xpu, typename DType>
void AffineGridGradient(mshadow::Stream<xpu>* s, OpReqType req, DType* theta_grad,
                        const DType* grid_grad, index_t batch, Tensor<xpu, 2, DType> unit,
                        index_t height) {
  const index_t positions = unit.size(1);
  if constexpr (std::is_same_v<xpu, cpu>) {
    if (req == kNullOp || positions == 0) return;
    OPS_REQ_SWITCH(req, Req, {
      Kernel<affine_grid_gradient_row<Req>, cpu>::LaunchItems(
          s, batch * 2, positions, theta_grad, grid_grad, unit.dptr_, unit.dptr_ + positions,
          height, positions / height);
    });
    return;
  }
  matmul::Product(Tensor<xpu, 2, DType>(theta_grad, mshadow::Shape2(batch * 2, 3), s), req,
                  Tensor<xpu, 2, DType>(const_cast<DType*>(grid_grad),
                                        mshadow::Shape2(batch * 2, positions), s),
                  false, unit, true);
}

// The cells of every grid position, in the space at `cells`.
template <typename DType>
size_t CellBytes(const SamplerGeometry& g) {
  return static_cast<size_t>(g.batch * g.Positions()) * sizeof(SampleCell<DType>);
}
template <typename xpu, typename DType>
const SampleCell<DType>* LocateCells(mshadow::Stream<xpu>* s, char* space, const DType* grid,
                                     const SamplerGeometry& g) {
  auto* cells = reinterpret_cast<SampleCell<DType>*>(space);
  if constexpr (std::is_same_v<xpu, cpu>) {
    Kernel<locate_image_cells, cpu>::LaunchItems(s, g.batch, g.Positions(), cells, grid, g);
  } else {
    Kernel<locate_cells, xpu>::Launch(s, g.batch * g.Positions(), cells, grid, g);
  }
  return cells;
}

template <typename xpu, typename DType>
void Sample(mshadow::Stream<xpu>* s, OpReqType req, DType* out, const DType* data,
            const SampleCell<DType>* cells, const SamplerGeometry& g) {
  OPS_REQ_SWITCH(req, kReq, {
    if constexpr (std::is_same_v<xpu, cpu>) {
      Kernel<bilinear_sample_plane<kReq>, cpu>::LaunchItems(s, g.batch * g.channels,
                                                            4 * g.Positions(), out, data, cells, g);
    } else {
      Kernel<bilinear_sample<kReq>, xpu>::LaunchItems(s, g.batch * g.channels * g.Positions(), 4,
                                                      out, data, cells, g);
    }
  });
}

// The sampler's gradients: the data's (data_req) and the grid's (grid_req).
template <typename xpu, typename DType>
void SampleGradients(mshadow::Stream<xpu>* s, OpReqType data_req, OpReqType grid_req,
                     DType* data_grad, DType* grid_grad, const DType* out_grad, const DType* data,
                     const SampleCell<DType>* cells, const SamplerGeometry& g) {
  if constexpr (std::is_same_v<xpu, cpu>) {
    if (ChannelsLastServes<DType>(g) && (data_req != kNullOp || grid_req != kNullOp)) {
      WithReqMode(data_req, [&](auto data_mode) {
        WithReqMode(grid_req, [&](auto grid_mode) {
          Kernel<bilinear_gradients_channels_last<data_mode(), grid_mode()>, cpu>::LaunchItems(
              s, g.batch, 4 * g.channels * (g.height * g.width + 2 * g.Positions()), data_grad,
              grid_grad, out_grad, data, cells, g);
        });
      });
      return;
    }
  }
  // Four planes an item on the CPU, one (the most threads) on the GPU.
  constexpr int kPlanes = std::is_same_v<xpu, cpu> ? 4 : 1;
  const index_t blocks = (g.channels + kPlanes - 1) / kPlanes;
  OPS_REQ_SWITCH(data_req, kReq, {
    Kernel<bilinear_data_gradient<kReq, kPlanes>, xpu>::LaunchItems(
        s, g.batch * blocks, kPlanes * (g.height * g.width + 4 * g.Positions()), data_grad,
        out_grad, cells, g);
  });
  OPS_REQ_SWITCH(grid_req, kReq, {
    if constexpr (std::is_same_v<xpu, cpu>) {
      Kernel<bilinear_grid_gradient_by_image<kReq>, xpu>::LaunchItems(
          s, g.batch, 4 * g.channels * g.Positions(), grid_grad, out_grad, data, cells, g);
    } else {
      Kernel<bilinear_grid_gradient<kReq>, xpu>::LaunchItems(
          s, g.batch * g.Positions(), 4 * g.channels, grid_grad, out_grad, data, cells, g);
    }
  });
}

// GridGenerator: input data; output the grid. Backward: input out_grad; output data's.
template <typename xpu, bool kBackward>
void GridGeneratorCompute(const NodeAttrs& attrs, const OpContext& ctx,
                          const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                          const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const GridGeneratorParam& p = GetParam<GridGeneratorParam>(attrs);
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  const TShape& grid = kBackward ? in[0].shape_ : out[0].shape_;
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    if (p.transform_type == kAffine) {
      const auto unit = UnitGrid<xpu, DType>(
          s, TempArrays(ctx, {UnitGridBytes<DType>(grid[2], grid[3])})[0], grid[2], grid[3]);
      if constexpr (kBackward) {
        AffineGridGradient<xpu>(s, req[0], out[0].dptr<DType>(), in[0].dptr<DType>(), grid[0], unit,
                                grid[2]);
      } else {
        AffineGrid<xpu>(s, req[0], out[0].dptr<DType>(), in[0].dptr<DType>(), grid[0], unit,
                        grid[2]);
      }
    } else {
      OPS_REQ_SWITCH(req[0], kReq, {
        Kernel<warp_grid<kReq, kBackward>, xpu>::Launch(s, out[0].Size(), out[0].dptr<DType>(),
                                                        in[0].dptr<DType>(), grid[2], grid[3]);
      });
    }
  });
}

// BilinearSampler: inputs data, grid; output out. Backward: inputs out_grad, data, grid;
// outputs the data's and the grid's gradients. The cells live in the temporary space.
template <typename xpu>
void BilinearSamplerCompute(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                            const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  const SamplerGeometry g = SamplerGeometryOf(in[0].shape_, in[1].shape_);
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    const auto* cells =
        LocateCells<xpu>(s, TempArrays(ctx, {CellBytes<DType>(g)})[0], in[1].dptr<DType>(), g);
    Sample<xpu>(s, req[0], out[0].dptr<DType>(), in[0].dptr<DType>(), cells, g);
  });
}

template <typename xpu>
void BilinearSamplerBackwardCompute(const NodeAttrs&, const OpContext& ctx,
                                    const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                                    const std::vector<TBlob>& out) {
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  const SamplerGeometry g = SamplerGeometryOf(in[1].shape_, in[2].shape_);
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    const auto* cells =
        LocateCells<xpu>(s, TempArrays(ctx, {CellBytes<DType>(g)})[0], in[2].dptr<DType>(), g);
    SampleGradients<xpu>(s, req[0], req[1], out[0].dptr<DType>(), out[1].dptr<DType>(),
                         in[0].dptr<DType>(), in[1].dptr<DType>(), cells, g);
  });
}

// SpatialTransformer: inputs data, loc; output out. The unit grid, the grid and its cells live
// in the temporary space.
template <typename xpu>
void SpatialTransformerCompute(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                               const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  const TShape& y = out[0].shape_;
  const SamplerGeometry g = SamplerGeometryOf(in[0].shape_, TShape{y[0], 2, y[2], y[3]});
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    const std::vector<char*> space = TempArrays(
        ctx, {UnitGridBytes<DType>(y[2], y[3]),
              static_cast<size_t>(y[0] * 2 * g.Positions()) * sizeof(DType), CellBytes<DType>(g)});
    DType* grid = reinterpret_cast<DType*>(space[1]);
    AffineGrid<xpu>(s, kWriteTo, grid, in[1].dptr<DType>(), y[0],
                    UnitGrid<xpu, DType>(s, space[0], y[2], y[3]), y[2]);
    Sample<xpu>(s, req[0], out[0].dptr<DType>(), in[0].dptr<DType>(),
                LocateCells<xpu>(s, space[2], grid, g), g);
  });
}

// Backward: inputs out_grad, data, loc; outputs the data's and loc's gradients. The unit grid,
// the grid, its cells and its gradient live in the temporary space.
template <typename xpu>
void SpatialTransformerBackwardCompute(const NodeAttrs&, const OpContext& ctx,
                                       const std::vector<TBlob>& in,
                                       const std::vector<OpReqType>& req,
                                       const std::vector<TBlob>& out) {
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  const TShape& y = in[0].shape_;
  const SamplerGeometry g = SamplerGeometryOf(in[1].shape_, TShape{y[0], 2, y[2], y[3]});
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    const size_t grid_bytes = static_cast<size_t>(y[0] * 2 * g.Positions()) * sizeof(DType);
    const std::vector<char*> space = TempArrays(
        ctx, {UnitGridBytes<DType>(y[2], y[3]), grid_bytes, CellBytes<DType>(g), grid_bytes});
    DType* grid = reinterpret_cast<DType*>(space[1]);
    DType* grid_grad = reinterpret_cast<DType*>(space[3]);
    const auto unit = UnitGrid<xpu, DType>(s, space[0], y[2], y[3]);
    AffineGrid<xpu>(s, kWriteTo, grid, in[2].dptr<DType>(), y[0], unit, y[2]);
    SampleGradients<xpu>(s, req[0], req[1] == kNullOp ? kNullOp : kWriteTo, out[0].dptr<DType>(),
                         grid_grad, in[0].dptr<DType>(), in[1].dptr<DType>(),
                         LocateCells<xpu>(s, space[2], grid, g), g);
    if (req[1] != kNullOp) {
      AffineGridGradient<xpu>(s, req[1], out[1].dptr<DType>(), grid_grad, y[0], unit, y[2]);
    }
  });
}

// Adds FCompute<xpu> to the three operators and their backward operators.
template <typename xpu>
void SetSpatialTransformerCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("GridGenerator")
      .set_attr<FCompute>(attr_name, FCompute(GridGeneratorCompute<xpu, false>));
  RegisterOp("_backward_GridGenerator")
      .set_attr<FCompute>(attr_name, FCompute(GridGeneratorCompute<xpu, true>));
  RegisterOp("BilinearSampler")
      .set_attr<FCompute>(attr_name, FCompute(BilinearSamplerCompute<xpu>));
  RegisterOp("_backward_BilinearSampler")
      .set_attr<FCompute>(attr_name, FCompute(BilinearSamplerBackwardCompute<xpu>));
  RegisterOp("SpatialTransformer")
      .set_attr<FCompute>(attr_name, FCompute(SpatialTransformerCompute<xpu>));
  RegisterOp("_backward_SpatialTransformer")
      .set_attr<FCompute>(attr_name, FCompute(SpatialTransformerBackwardCompute<xpu>));
}

}  // namespace spatial_transformer
}  // namespace ops

#endif  // OPS_SPATIAL_TRANSFORMER_INL_H_
