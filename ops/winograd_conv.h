// ops/winograd_conv.h: 3x3, stride-1, undilated, ungrouped 2-d convolutions on the CPU by
// Winograd's minimal filtering F(2x2, 3x3) (Lavin and Gray, "Fast Algorithms for
// Convolutional Neural Networks", 2015).
//
// Each 2x2 block of outputs (a tile) is computed from the 4x4 input patch under it: the patch
// is transformed (V = B^T d B), multiplied point by point with the transformed kernel
// (U = G g G^T) and summed over input channels, then transformed back (Y = A^T M A). Summed
// over channels, each of the 16 points is a matrix product, U[p] (out x in) times V[p] (in x
// tiles), so the work is 16 gemms with 16 multiply-adds per tile and channel pair where im2col
// and one gemm need 36: 2.25 times fewer. The transforms are additions only, over packets of
// consecutive tiles (the patches' rows and columns split by parity), so they vectorize. The
// products are register-tiled (ops/register_gemm.h): OpenBLAS, called once per point, spread
// these 64x64 by 64x1568 products over its threads poorly (docs/benchmarks.md).
//
// Convolution's forward operator uses it for data; its backward operator for the data
// gradient, which is the same convolution of the output gradient with the kernels flipped
// and their channel axes swapped, padded by 2 - pad, and for the kernel gradient. Both go a
// block of tile rows at a time through all their stages (Convolve, KernelGradient). A 3-d
// layer whose kernel is 3x3 over its last two axes goes forward (and back to its data, at
// depth stride 1) as 2-d convolutions per slice of output depth, its depth taps more depth of
// the products, each input slice transformed once for the output slices that read it
// (Shape's depth fields, ConvolveSlices).
#ifndef OPS_WINOGRAD_CONV_H_
#define OPS_WINOGRAD_CONV_H_

#include <algorithm>
#include <limits>
#include <type_traits>
#include <vector>

#include "mshadow/base.h"
#include "mshadow/parallel.h"
#include "ops/conv_geometry.h"
#include "ops/deinterleave.h"
#include "ops/kernel_launch.h"
#include "ops/register_gemm.h"
#include "ops/transpose_block.h"
#include "ops/vector_loop.h"

namespace ops {
namespace winograd {

using mshadow::cpu;

constexpr index_t kPoints = 16;  // transformed points of a 4x4 patch

// The sizes of one F(2x2, 3x3) convolution: `images` images of `in_channels` (in_h, in_w)
// planes into `out_channels` (out_h, out_w) planes, zero-padded by (pad_h, pad_w).
struct Shape {
  index_t images, in_channels, out_channels;
  index_t in_h, in_w, out_h, out_w, pad_h, pad_w;
  // A 3-d layer (Convolve only): each output slice z of its `out_depth` is the sum over its
  // kernel's depth taps t of 2-d convolutions of input slice z * depth_stride + t -
  // depth_pad (zeros where that is outside [0, in_depth): a pad slice). A 2-d layer is one
  // slice of one tap.
  index_t depth_taps = 1, in_depth = 1, out_depth = 1;
  index_t depth_stride = 1, depth_pad = 0;

  // The products' depth: input channel c's depth tap t at t * in_channels + c of the
  // transformed kernels (Convolve's transformed inputs hold the slices in a rotating order).
  index_t KernelChannels() const { return in_channels * depth_taps; }
  // The slots (depth taps) of a 3-d layer's transformed inputs one product takes: as many as
  // keep its left operand, a point's transformed kernels for them, within
  // kProductKernelElements (32 KiB of floats, the L1 cache), which the product reads once per
  // strip of its columns. One product over the three taps of the (8,32,16,28,28) layer ran
  // 1.18x faster than a product per tap, one over those of the (4,64,8,28,28) layer of 128
  // filters 0.84x (its kernels 96 KiB a point; docs/benchmarks.md, thirty-fourth session).
  static constexpr index_t kProductKernelElements = 8192;
  index_t ProductSlots() const {
    const index_t per_slot = std::max<index_t>(out_channels * in_channels, 1);
    return std::clamp<index_t>(kProductKernelElements / per_slot, 1, depth_taps);
  }
  // The rotations of the transformed kernels Convolve keeps: one per tap where a product
  // takes several slots (ConvolveSlices).
  index_t KernelRotations() const { return ProductSlots() > 1 ? depth_taps : 1; }
  // Channel c's plane of input slice z of `image`, and channel k's of output slice z.
  template <typename DType>
  const DType* InputPlane(const DType* data, index_t image, index_t c, index_t z) const {
    return data + ((image * in_channels + c) * in_depth + z) * in_h * in_w;
  }
  template <typename DType>
  DType* OutputPlane(DType* out, index_t image, index_t k, index_t z) const {
    return out + ((image * out_channels + k) * out_depth + z) * out_h * out_w;
  }

  index_t TilesH() const { return (out_h + 1) / 2; }
  index_t TilesW() const { return (out_w + 1) / 2; }
  // Elements of Convolve's workspace: the transformed kernels (a 3-d layer's in each
  // rotation of its taps, KernelRotations()), then per thread a block's transformed inputs,
  // products and scratch.
  index_t WorkspaceSize(index_t threads = 1) const {
    return KernelRotations() * kPoints * out_channels * KernelChannels() +
           threads * BlockWorkspace();
  }
  // Convolve's blocks: BlockRows() tile rows of one image (its last block the rows left), as
  // many as keep a block's transformed inputs (of depth_taps input slices) and products (16
  // points of the input and the output channels a tile) within kBlockElements, so that both
  // stay in a core's L2 cache between the transforms and the products: 256 tiles at 32
  // channels in and out, 112 at 64 of a 28-tile row. Fixed blocks of 256 tiles had gone to the
  // last-level cache at 64 channels, and blocks of 64 tiles at 32 ran slower: more products, each
  // short (docs/benchmarks.md, twelfth and eighteenth sessions).
  static constexpr index_t kBlockElements = index_t{1} << 18;
  index_t BlockRows() const {
    const index_t per_tile = kPoints * (depth_taps * InChannelsInStrips() + out_channels);
    return std::clamp<index_t>(kBlockElements / per_tile / TilesW(), 1, TilesH());
  }
  index_t BlocksPerImage() const { return (TilesH() + BlockRows() - 1) / BlockRows(); }
  // The tile rows of the block that starts at tile row `first_row`.
  index_t RowsOfBlock(index_t first_row) const {
    return std::min(BlockRows(), TilesH() - first_row);
  }
  // A block's columns (tiles) rounded up to whole strips of the products (32 elements at
  // most), and the row stride of its products and of its transformed inputs before they are
  // packed: those columns, 32 the transforms' last packets run into, and an odd number of
  // 16-element lines, so that a transform's 16 streams, one a point, fall into different sets
  // of the L1 cache (4 KiB apart, all in one set, they had thrashed it).
  index_t BlockColumns() const { return (BlockRows() * TilesW() + 31) / 32 * 32; }
  index_t BlockStride() const { return OddLines(BlockColumns() + 32); }
  static index_t OddLines(index_t n) {
    const index_t lines = (n + 15) / 16;
    return (lines + (lines % 2 == 0 ? 1 : 0)) * 16;
  }
  // The stride of a block's points: KernelChannels() packed rows of its transformed inputs
  // (the kernel gradient's: transposed, channels in whole strips), or out_channels rows of its
  // products (or output gradients).
  index_t InputPointStride() const {
    return OddLines(depth_taps * InChannelsInStrips() * BlockColumns());
  }
  // in_channels rounded up to whole strips of the widest packets (32 elements).
  index_t InChannelsInStrips() const { return (in_channels + 31) / 32 * 32; }
  index_t ProductPointStride() const { return OddLines(out_channels * BlockStride()); }
  // The sub-planes of a block's input plane (SplitPlane): a row's pairs of columns and one
  // more (a tile reads the pair after its own), rows SubPlanePitch() apart; the rows the
  // block reads and what its last packets read past them.
  index_t SubPlanePitch() const { return (TilesW() + 1 + 7) / 8 * 8; }
  index_t SubPlaneSize() const { return (BlockRows() + 2) * SubPlanePitch() + 64; }
  // A block's scratch: an input plane's four sub-planes and its 16 transformed rows (later,
  // the block's outputs by position).
  index_t BlockScratch() const { return 4 * SubPlaneSize() + kPoints * BlockStride(); }
  // Elements of one thread's part of Convolve's workspace: a block's transformed inputs,
  // products and scratch.
  index_t BlockWorkspace() const {
    return kPoints * (InputPointStride() + ProductPointStride()) + BlockScratch();
  }
  // KernelGradient sums the gradients of up to 4 runs of images (slots) apart, then adds the
  // sums in order; threads take whole slots, so that the result does not depend on the
  // thread count. Fewer slots where their workspace would pass 64 Mi elements.
  index_t GradientSlots() const {
    for (index_t slots = std::min<index_t>(images, 4); slots > 1; --slots) {
      if (slots * SlotWorkspace() <= (index_t(1) << 26)) return slots;
    }
    return 1;
  }
  // The input channels of KernelGradient's sums and products: whole strips of the products'
  // right operands (kStripWidth).
  template <typename DType>
  index_t PaddedInChannels() const {
    constexpr index_t kStrip = register_gemm::kStripWidth<DType>;
    return (in_channels + kStrip - 1) / kStrip * kStrip;
  }
  // Elements of a slot's sums of the transformed kernels' gradients (for any strip width: 32
  // elements at most).
  index_t GradientSums() const { return kPoints * out_channels * InChannelsInStrips(); }
  // A gradient block's scratch: an input plane's four sub-planes (later an output-gradient
  // plane's rows), and the 16 transformed rows of up to 8 channels, transposed together.
  index_t GradientScratch() const { return 4 * SubPlaneSize() + 8 * kPoints * BlockStride(); }
  // One slot's part of KernelGradient's workspace: its sums, a block's transformed inputs
  // (transposed) and output gradients, and scratch.
  index_t SlotWorkspace() const {
    return GradientSums() + kPoints * (InputPointStride() + ProductPointStride()) +
           GradientScratch();
  }
  index_t GradientWorkspaceSize() const { return GradientSlots() * SlotWorkspace(); }
};

// The forward convolution of `images` images of layer g (2-d, or 3-d by slices of output
// depth) with `filters` filters as F(2x2, 3x3) computes it.
inline Shape ForwardShape(const ConvGeometry& g, index_t images, index_t filters) {
  const int h = g.ndim - 2, w = g.ndim - 1;  // the axes the 3x3 kernel spans
  Shape s{images, g.channels, filters, g.in[h], g.in[w], g.out[h], g.out[w], g.pad[h], g.pad[w]};
  if (g.ndim == 3) {
    s.depth_taps = g.kernel[0], s.in_depth = g.in[0], s.out_depth = g.out[0];
    s.depth_stride = g.stride[0], s.depth_pad = g.pad[0];
  }
  return s;
}

// The data gradient of `images` images of layer g as F(2x2, 3x3) computes it: the output
// gradient convolved with the kernels flipped (their 3x3 and their depth taps), channel axes
// swapped, padded 2 - pad (a 3-d layer's depth, at stride 1: depth taps - 1 - pad).
inline Shape DataGradientShape(const ConvGeometry& g, index_t images, index_t filters) {
  const int h = g.ndim - 2, w = g.ndim - 1;
  Shape s{images,  filters, g.channels,   g.out[h],    g.out[w],
          g.in[h], g.in[w], 2 - g.pad[h], 2 - g.pad[w]};
  if (g.ndim == 3) {
    s.depth_taps = g.kernel[0], s.in_depth = g.out[0], s.out_depth = g.in[0];
    s.depth_pad = g.kernel[0] - 1 - g.pad[0];
  }
  return s;
}

// Whether F(2x2, 3x3) computes this convolution: a 3x3 kernel over its last two axes, stride
// 1 and no dilation on them, one group, 2-d or (the forward and data gradient only) 3-d
// without dilation in depth; and, for its workspace, at most the column matrix's size or 64
// Mi elements.
inline bool Applies(const ConvGeometry& g, index_t groups, index_t filters) {
  if ((g.ndim != 2 && g.ndim != 3) || groups != 1) return false;
  if (g.ndim == 3 && g.dilate[0] != 1) return false;
  for (int a = g.ndim - 2; a < g.ndim; ++a) {
    if (g.kernel[a] != 3 || g.stride[a] != 1 || g.dilate[a] != 1) return false;
  }
  return ForwardShape(g, 1, filters).WorkspaceSize() <=
         std::max<index_t>(g.ColRows() * g.OutSize(), index_t(1) << 26);
}

// U[p][o][i] = (G g G^T)[p] for the 3x3 kernel g of output channel o and every input channel
// i (U's planes `plane` elements apart). `kernel(o, i)` points at that kernel's 9 elements,
// row-major; `flip` reads it rotated by 180 degrees (the data gradient's kernels).
template <typename DType, typename KernelOf>
void TransformKernelsOf(index_t o, index_t in_channels, index_t plane, bool flip,
                        KernelOf& kernel, DType* u) {
  for (index_t i = 0; i < in_channels; ++i) {
    const DType* k = kernel(o, i);
    DType g[3][3];
    for (int r = 0; r < 3; ++r) {
      for (int c = 0; c < 3; ++c) g[r][c] = flip ? k[(2 - r) * 3 + (2 - c)] : k[r * 3 + c];
    }
    DType gg[4][3];  // G g
    for (int c = 0; c < 3; ++c) {
      gg[0][c] = g[0][c];
      gg[1][c] = DType(0.5) * (g[0][c] + g[1][c] + g[2][c]);
      gg[2][c] = DType(0.5) * (g[0][c] - g[1][c] + g[2][c]);
      gg[3][c] = g[2][c];
    }
    DType* out = u + o * in_channels + i;
    for (int r = 0; r < 4; ++r) {  // (G g) G^T
      out[(r * 4 + 0) * plane] = gg[r][0];
      out[(r * 4 + 1) * plane] = DType(0.5) * (gg[r][0] + gg[r][1] + gg[r][2]);
      out[(r * 4 + 2) * plane] = DType(0.5) * (gg[r][0] - gg[r][1] + gg[r][2]);
      out[(r * 4 + 3) * plane] = gg[r][2];
    }
  }
}

// TransformKernelsOf for every output channel, on the library's threads (one thread had held
// the other waiting through a 256-channel layer's transform).
template <typename DType, typename KernelOf>
void TransformKernels(index_t out_channels, index_t in_channels, bool flip, KernelOf kernel,
                      DType* u) {
  const index_t plane = out_channels * in_channels;
  ParallelRows(out_channels, kPoints * in_channels, [&](index_t begin, index_t end) {
    for (index_t o = begin; o < end; ++o) {
      TransformKernelsOf(o, in_channels, plane, flip, kernel, u);
    }
  });
}

using register_gemm::LeftOperand;

// ---- The forward, a block of tile rows at a time (ConvolveBlock): the block's inputs are
// transformed, multiplied and transformed back before the next block's, each stage reading
// what the last wrote while it is still in the cache (whole chunks of images had gone through
// each stage in turn). Each transform is whole packets over a block's tiles: a tile row is 14
// tiles in a 28-wide layer, and loops over rows that short had run 6 of their 14 tiles one at
// a time (docs/benchmarks.md, twelfth session).

// out[2k] = even[k] and out[2k + 1] = odd[k] for k in [0, n), written (kAdd: added): with AVX2,
// two packets of out from a packet of each, the last pair of packets overlapping the one
// before where writing (an output row is a packet or two of tiles).
template <bool kAdd, typename DType>
void Interleave(const DType* even, const DType* odd, index_t n, DType* out) {
  index_t k = 0;
#if MSHADOW_PACKET_HAS_AVX2
  constexpr index_t kLanes = 32 / sizeof(DType);
  auto merge = [&](index_t at) {
    using P = mshadow::packet::Packet<DType, mshadow::packet::kAVX2>;
    if constexpr (std::is_same_v<DType, float>) {
      const __m256 e = _mm256_loadu_ps(even + at), o = _mm256_loadu_ps(odd + at);
      const __m256 lo = _mm256_unpacklo_ps(e, o), hi = _mm256_unpackhi_ps(e, o);
      vec::Store<kAdd>(out + 2 * at, P(_mm256_permute2f128_ps(lo, hi, 0x20)));
      vec::Store<kAdd>(out + 2 * at + kLanes, P(_mm256_permute2f128_ps(lo, hi, 0x31)));
    } else {
      const __m256d e = _mm256_loadu_pd(even + at), o = _mm256_loadu_pd(odd + at);
      const __m256d lo = _mm256_unpacklo_pd(e, o), hi = _mm256_unpackhi_pd(e, o);
      vec::Store<kAdd>(out + 2 * at, P(_mm256_permute2f128_pd(lo, hi, 0x20)));
      vec::Store<kAdd>(out + 2 * at + kLanes, P(_mm256_permute2f128_pd(lo, hi, 0x31)));
    }
  };
  for (; k + kLanes <= n; k += kLanes) merge(k);
  if (!kAdd && k < n && n >= kLanes) {
    merge(n - kLanes);
    return;
  }
#endif
  for (; k < n; ++k) {
    out[2 * k] = kAdd ? out[2 * k] + even[k] : even[k];
    out[2 * k + 1] = kAdd ? out[2 * k + 1] + odd[k] : odd[k];
  }
}

// A block's input planes, each split by the parity of its rows and columns into four
// sub-planes of the zero-padded plane: sub-plane (a, b) holds element (2r + a, 2k + b) of
// the padded rows the block reads at (r, k), rows SubPlanePitch() apart. Tile (ty, tx)'s
// patch element (i, j) is then sub-plane (i % 2, j % 2)'s element (ty + i / 2, tx + j / 2):
// for consecutive tiles, consecutive elements.
template <typename DType>
void SplitPlane(const Shape& s, const DType* plane, index_t first_row, index_t rows, DType* sub) {
  const index_t pitch = s.SubPlanePitch(), size = s.SubPlaneSize();
  // Pair k's columns 2k - pad_w and 2k + 1 - pad_w both lie in the plane for k in [body_begin,
  // body_end); the others are checked one by one.
  const index_t body_begin = std::min<index_t>(pitch, (s.pad_w + 1) / 2);
  const index_t body_end = std::clamp<index_t>((s.in_w + s.pad_w) / 2, body_begin, pitch);
  for (index_t r = 0; r < 2 * rows + 2; ++r) {
    DType* __restrict__ even = sub + (r % 2) * 2 * size + (r / 2) * pitch;
    DType* __restrict__ odd = even + size;
    const index_t y = 2 * first_row + r - s.pad_h;
    if (y < 0 || y >= s.in_h) {
      std::fill(even, even + pitch, DType(0));
      std::fill(odd, odd + pitch, DType(0));
      continue;
    }
    const DType* __restrict__ src = plane + y * s.in_w;
    auto checked = [&](index_t x) { return x >= 0 && x < s.in_w ? src[x] : DType(0); };
    for (index_t k = 0; k < body_begin; ++k) {
      even[k] = checked(2 * k - s.pad_w);
      odd[k] = checked(2 * k + 1 - s.pad_w);
    }
    Deinterleave(src + 2 * body_begin - s.pad_w, body_end - body_begin, even + body_begin,
                 odd + body_begin);
    for (index_t k = body_end; k < pitch; ++k) {
      even[k] = checked(2 * k - s.pad_w);
      odd[k] = checked(2 * k + 1 - s.pad_w);
    }
  }
}

// Row r of V = B^T d B for `lanes` tiles (whole packets), its four points written to
// v[j * point_stride + t]: row r of B^T d is patch row a minus patch row b (plus, kPlus), whose
// elements j for tile t are a[j][t] and b[j][t]. One row of V at a time: with all 16 points in
// one loop, its 32 streams' pointers had not fit in the registers, and reloading them had
// taken much of the transform's time.
template <bool kPlus, typename DType>
MSHADOW_CINLINE void TransformInputLine(const DType* const (&a)[4], const DType* const (&b)[4],
                                        index_t lanes, DType* v, index_t point_stride) {
  using P = vec::Full<DType>;
  const DType *a0 = a[0], *a1 = a[1], *a2 = a[2], *a3 = a[3];
  const DType *b0 = b[0], *b1 = b[1], *b2 = b[2], *b3 = b[3];
  DType *v0 = v, *v1 = v + point_stride, *v2 = v + 2 * point_stride, *v3 = v + 3 * point_stride;
  for (index_t t = 0; t < lanes; t += P::kSize) {
    auto combine = [t](const DType* x, const DType* y) {
      return kPlus ? P::LoadUnAligned(x + t) + P::LoadUnAligned(y + t)
                   : P::LoadUnAligned(x + t) - P::LoadUnAligned(y + t);
    };
    const P e0 = combine(a0, b0), e1 = combine(a1, b1), e2 = combine(a2, b2), e3 = combine(a3, b3);
    (e0 - e2).StoreUnAligned(v0 + t);
    (e1 + e2).StoreUnAligned(v1 + t);
    (e2 - e1).StoreUnAligned(v2 + t);
    (e1 - e3).StoreUnAligned(v3 + t);
  }
}

// V = B^T d B for a block's `rows` tile rows, `tw` tiles each, from SplitPlane's sub-planes:
// tile t's point q written to v[q * point_stride + t], and what the packets write past the
// last tile up to `cols` (past a row's tiles, what the next row overwrites).
template <typename DType>
void TransformInputRows(const Shape& s, const DType* sub, index_t rows, index_t cols, DType* v,
                        index_t point_stride) {
  const index_t pitch = s.SubPlanePitch(), size = s.SubPlaneSize(), tw = s.TilesW();
  index_t offset[4][4];  // of patch element (i, j) of a row's first tile from the row's start
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 4; ++j) offset[i][j] = ((i % 2) * 2 + j % 2) * size + i / 2 * pitch + j / 2;
  }
  for (index_t row = 0; row < rows; ++row) {
    const index_t lanes = row + 1 < rows ? tw : cols - row * tw;
    const DType* x[4][4];
    for (int i = 0; i < 4; ++i) {
      for (int j = 0; j < 4; ++j) x[i][j] = sub + row * pitch + offset[i][j];
    }
    // B^T's rows: d0 - d2, d1 + d2, d2 - d1, d1 - d3.
    DType* vrow = v + row * tw;
    TransformInputLine<false>(x[0], x[2], lanes, vrow, point_stride);
    TransformInputLine<true>(x[1], x[2], lanes, vrow + 4 * point_stride, point_stride);
    TransformInputLine<false>(x[2], x[1], lanes, vrow + 8 * point_stride, point_stride);
    TransformInputLine<false>(x[1], x[3], lanes, vrow + 12 * point_stride, point_stride);
  }
}

// Y = A^T M A plus `bias` for `cols` tiles (whole packets), tile t's point q read at m[q *
// point_stride + t]: its outputs (dy, dx) written to y[(2 * dy + dx) * cols + t].
template <typename DType>
void TransformOutputTiles(const DType* m, index_t point_stride, DType bias, index_t cols,
                          DType* y) {
  using P = vec::Full<DType>;
  const P b = P::Fill(bias);
  for (index_t t = 0; t < cols; t += P::kSize) {
    P z[2][4];  // A^T M
    OPS_UNROLL_FULLY
    for (int j = 0; j < 4; ++j) {
      const DType* mj = m + j * point_stride + t;
      const P m0 = P::LoadUnAligned(mj), m1 = P::LoadUnAligned(mj + 4 * point_stride);
      const P m2 = P::LoadUnAligned(mj + 8 * point_stride);
      const P m3 = P::LoadUnAligned(mj + 12 * point_stride);
      z[0][j] = m0 + m1 + m2;
      z[1][j] = m1 - m2 - m3;
    }
    OPS_UNROLL_FULLY
    for (int dy = 0; dy < 2; ++dy) {  // (A^T M) A
      (z[dy][0] + z[dy][1] + z[dy][2] + b).StoreUnAligned(y + 2 * dy * cols + t);
      (z[dy][1] - z[dy][2] - z[dy][3] + b).StoreUnAligned(y + (2 * dy + 1) * cols + t);
    }
  }
}

// n mod d in [0, d), for negative n too (a pad slice before the input).
inline index_t Modulo(index_t n, index_t d) { return (n % d + d) % d; }

// The inputs of tile rows [first_row, first_row + rows) of input slice z of `image` (zeros
// where z is a pad slice) transformed into `slot` of v: v's 16 points InputPointStride()
// apart, each KernelChannels() rows, slot s's in_channels from row s * in_channels, packed as
// the products' right operands are (strips of kStripWidth columns,
// register_gemm::RightOperand::Packed). `scratch` holds BlockScratch() elements. (The
// products had packed the strips themselves, a copy the transform's writes now make.)
template <typename DType>
void TransformInputSlice(const Shape& s, const DType* data, index_t image, index_t z,
                         index_t first_row, index_t rows, index_t cols, index_t slot, DType* v,
                         DType* scratch) {
  using P = vec::Full<DType>;
  constexpr index_t kStrip = register_gemm::kStripWidth<DType>;  // two packets
  const index_t ld = s.BlockStride(), v_stride = s.InputPointStride(), depth = s.KernelChannels();
  const bool pad = z < 0 || z >= s.in_depth;
  DType* const sub = scratch;
  DType* const transformed = scratch + 4 * s.SubPlaneSize();  // one channel's, ld apart
  // A pad slice transforms to zeros, the same for every channel.
  if (pad) std::fill(transformed, transformed + kPoints * ld, DType(0));
  for (index_t c = 0; c < s.in_channels; ++c) {
    if (!pad) {
      SplitPlane(s, s.InputPlane(data, image, c, z), first_row, rows, sub);
      TransformInputRows(s, static_cast<const DType*>(sub), rows, cols, transformed, ld);
    }
    for (index_t q = 0; q < kPoints; ++q) {
      const DType* from = transformed + q * ld;
      DType* to = v + q * v_stride + (slot * s.in_channels + c) * kStrip;
      for (index_t j = 0; j < cols; j += kStrip) {
        P::LoadUnAligned(from + j).StoreUnAligned(to + j * depth);
        P::LoadUnAligned(from + j + P::kSize).StoreUnAligned(to + j * depth + P::kSize);
      }
    }
  }
}

// The convolution of tile rows [first_row, first_row + rows) of output slices [z_begin,
// z_end) of `image` (a 2-d layer: slice 0). v holds the transformed input slices the taps of
// one output slice read, input slice z in slot z mod depth_taps, each transformed once for
// all the output slices of the run that read it; slot s of output slice z holds its tap
// (s - z * depth_stride + depth_pad) mod depth_taps, and `u` (KernelRotations() rotations of
// the transformed kernels, u_size elements apart) has the kernels in that order in rotation
// (z * depth_stride - depth_pad) mod depth_taps. The products, point by point, over runs of
// ProductSlots() taps, go to m (16 points of out_channels rows BlockStride() apart),
// transformed back into out plus the bias (kAdd: added to out). `scratch` holds
// BlockScratch() elements.
template <bool kAdd, typename DType>
void ConvolveSlices(const Shape& s, const DType* u, index_t u_size, const DType* data,
                    const DType* bias, DType* out, index_t image, index_t first_row, index_t rows,
                    index_t z_begin, index_t z_end, DType* v, DType* m, DType* scratch) {
  constexpr index_t kStrip = register_gemm::kStripWidth<DType>;
  const index_t tw = s.TilesW(), ld = s.BlockStride(), taps = s.depth_taps;
  const index_t cols = (rows * tw + kStrip - 1) / kStrip * kStrip;  // whole strips
  const index_t v_stride = s.InputPointStride(), m_stride = s.ProductPointStride();
  const index_t depth = s.KernelChannels();
  std::vector<index_t> held(taps, std::numeric_limits<index_t>::min());  // each slot's slice
  DType* const y = scratch + 4 * s.SubPlaneSize();
  for (index_t z = z_begin; z < z_end; ++z) {
    const index_t first_slice = z * s.depth_stride - s.depth_pad;
    for (index_t z_in = first_slice; z_in < first_slice + taps; ++z_in) {
      const index_t slot = Modulo(z_in, taps);
      if (held[slot] == z_in) continue;
      TransformInputSlice(s, data, image, z_in, first_row, rows, cols, slot, v, scratch);
      held[slot] = z_in;
    }
    // Runs of ProductSlots() slots, each run's products added to the last's: runs of more
    // than one slot read the rotation of the kernels whose columns follow the slots, single
    // slots tap i's kernels (rotation 0) and slot.
    const index_t rotation = Modulo(first_slice, taps), run = s.ProductSlots();
    const DType* u_z = u + (run > 1 ? rotation * u_size : 0);
    for (index_t p = 0; p < kPoints; ++p) {
      for (index_t i = 0; i < taps; i += run) {
        const index_t slot = run > 1 ? i : (rotation + i) % taps;
        register_gemm::MultiplyBlock<false>(
            s.out_channels, std::min(run, taps - i) * s.in_channels, cols,
            LeftOperand<DType>{u_z + p * s.out_channels * depth + i * s.in_channels, depth, false},
            register_gemm::RightOperand<DType>{v + p * v_stride + slot * s.in_channels * kStrip,
                                               kStrip, nullptr, depth},
            m + p * m_stride, ld,
            i == 0 ? register_gemm::Start<DType>{} : register_gemm::Start<DType>::Accumulating());
      }
    }
    const index_t pairs = s.out_w / 2;
    for (index_t k = 0; k < s.out_channels; ++k) {
      TransformOutputTiles(m + k * ld, m_stride, bias == nullptr ? DType(0) : bias[k], cols, y);
      DType* plane = s.OutputPlane(out, image, k, z);
      for (index_t t = 0; t < rows; ++t) {
        for (index_t dy = 0; dy < 2 && 2 * (first_row + t) + dy < s.out_h; ++dy) {
          const DType* left = y + 2 * dy * cols + t * tw;
          const DType* right = left + cols;
          DType* o = plane + (2 * (first_row + t) + dy) * s.out_w;
          Interleave<kAdd>(left, right, pairs, o);
          if (pairs < tw) o[2 * pairs] = kAdd ? o[2 * pairs] + left[pairs] : left[pairs];
        }
      }
    }
  }
}

// ---- The kernel gradient. With Y = A^T (U .* V) A per tile and U = G g G^T, the gradient
// of a kernel g is G^T dU G, where dU[p] (out x in) sums, over tiles, (A dY A^T)[p] (out x
// tiles) times V[p] transposed (tiles x in): 16 products again, reducing over the tiles. They
// go a block at a time (Convolve's blocks), each a register-tiled product whose depth is the
// block's tiles: its transformed inputs are transposed to tiles x channels, packed as the
// products' right operands are (strips of kStripWidth channels). Whole chunks of images had
// gone through each stage, their transforms written to the last-level cache, and the sums
// over tiles had been dot products, each ending in a sum across a packet.

// A dY A^T for a block's `rows` tile rows of an output-gradient plane (zero past its edge):
// tile t's point q written to y[q * point_stride + t], and what the packets write past the last
// tile (past a row's tiles, what the next row overwrites). `scratch` holds four sub-planes
// (SubPlaneSize() each).
template <typename DType>
void TransformOutputGradientRows(const Shape& s, const DType* plane, index_t first_row,
                                 index_t rows, DType* scratch, DType* y, index_t point_stride) {
  using P = vec::Full<DType>;
  const index_t tw = s.TilesW(), pairs = s.out_w / 2, size = s.SubPlaneSize();
  // A tile row's two rows of dY, each's even and odd columns apart.
  DType* const e0 = scratch;
  DType* const o0 = scratch + size;
  DType* const e1 = scratch + 2 * size;
  DType* const o1 = scratch + 3 * size;
  for (index_t t = 0; t < rows; ++t) {
    for (int dy = 0; dy < 2; ++dy) {
      DType* even = dy == 0 ? e0 : e1;
      DType* odd = dy == 0 ? o0 : o1;
      const index_t oy = 2 * (first_row + t) + dy;
      if (oy >= s.out_h) {
        std::fill(even, even + tw, DType(0));
        std::fill(odd, odd + tw, DType(0));
        continue;
      }
      const DType* src = plane + oy * s.out_w;
      Deinterleave(src, pairs, even, odd);
      if (pairs < tw) {  // an odd width: the last tile's right column is past the edge
        even[pairs] = src[2 * pairs];
        odd[pairs] = DType(0);
      }
    }
    // Row r of A dY is A[r][0] * (e0, o0) + A[r][1] * (e1, o1); each row (x, z) then becomes
    // x, x + z, x - z, -z (times A^T). A's rows: (1, 0), (1, 1), (1, -1), (0, -1).
    DType* yrow = y + t * tw;
    for (index_t tx = 0; tx < tw; tx += P::kSize) {
      const P a0 = P::LoadUnAligned(e0 + tx), b0 = P::LoadUnAligned(o0 + tx);
      const P a1 = P::LoadUnAligned(e1 + tx), b1 = P::LoadUnAligned(o1 + tx);
      const P x[4] = {a0, a0 + a1, a0 - a1, P::Fill(DType(0)) - a1};
      const P z[4] = {b0, b0 + b1, b0 - b1, P::Fill(DType(0)) - b1};
      OPS_UNROLL_FULLY
      for (int r = 0; r < 4; ++r) {
        DType* out = yrow + 4 * r * point_stride + tx;
        x[r].StoreUnAligned(out);
        (x[r] + z[r]).StoreUnAligned(out + point_stride);
        (x[r] - z[r]).StoreUnAligned(out + 2 * point_stride);
        (P::Fill(DType(0)) - z[r]).StoreUnAligned(out + 3 * point_stride);
      }
    }
  }
}

// du (16 points of out_channels x PaddedInChannels<DType>()) += the kernel gradient's sums
// over tile rows [first_row, first_row + rows) of `image`. `vt` holds 16 points of
// InputPointStride() elements (the block's transformed inputs, transposed and packed), `y`
// 16 of ProductPointStride() (its transformed output gradients), `scratch`
// GradientScratch().
template <typename DType>
void KernelGradientBlock(const Shape& s, const DType* data, const DType* out_grad,
                         index_t image, index_t first_row, index_t rows, DType* du, DType* vt,
                         DType* y, DType* scratch) {
  constexpr index_t kStrip = register_gemm::kStripWidth<DType>;
  constexpr index_t kGroup = transpose::RegisterTranspose<DType>::kLanes;  // channels at a time
  const index_t count = rows * s.TilesW(), ld = s.BlockStride();
  const index_t channels = s.PaddedInChannels<DType>();
  const index_t in_plane = s.in_h * s.in_w, out_plane = s.out_h * s.out_w;
  const index_t vt_stride = s.InputPointStride(), y_stride = s.ProductPointStride();
  DType* const sub = scratch;
  DType* const transformed = scratch + 4 * s.SubPlaneSize();  // kGroup channels' 16 points
  for (index_t c0 = 0; c0 < s.in_channels; c0 += kGroup) {
    const index_t group = std::min(kGroup, s.in_channels - c0);
    for (index_t g = 0; g < group; ++g) {
      SplitPlane(s, data + (image * s.in_channels + c0 + g) * in_plane, first_row, rows, sub);
      TransformInputRows(s, static_cast<const DType*>(sub), rows, count,
                         transformed + g * kPoints * ld, ld);
    }
    // Channel c of tile t at strip c / kStrip, row t, lane c % kStrip (kStrip is a multiple
    // of kGroup: a group stays within its strip).
    for (index_t q = 0; q < kPoints; ++q) {
      transpose::TransposeBlock<false, false>(
          transformed + q * ld, kPoints * ld,
          vt + q * vt_stride + c0 / kStrip * kStrip * count + c0 % kStrip, kStrip, group, count);
    }
  }
  if (channels > s.in_channels) {  // the last strip's lanes past the channels: zeros
    for (index_t q = 0; q < kPoints; ++q) {
      DType* strip = vt + q * vt_stride + (channels - kStrip) * count;
      for (index_t t = 0; t < count; ++t) {
        std::fill(strip + t * kStrip + s.in_channels % kStrip, strip + (t + 1) * kStrip, DType(0));
      }
    }
  }
  for (index_t k = 0; k < s.out_channels; ++k) {
    TransformOutputGradientRows(s, out_grad + (image * s.out_channels + k) * out_plane,
                                first_row, rows, sub, y + k * ld, y_stride);
  }
  for (index_t p = 0; p < kPoints; ++p) {
    register_gemm::MultiplyBlock<false>(
        s.out_channels, count, channels, LeftOperand<DType>{y + p * y_stride, ld, false},
        register_gemm::RightOperand<DType>::Packed(vt + p * vt_stride, count),
        du + p * s.out_channels * channels, channels, register_gemm::Start<DType>::Accumulating());
  }
}

// Item: kernel (o, i) = item / in_channels, item % in_channels: G^T du G from its 16 points
// (rows `du_ld` apart, out_channels rows a point), written (kAdd: added) to grad[o][i] (3x3).
template <bool kAdd>
struct FoldKernelGradient {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t item, index_t out_channels, index_t in_channels,
                                  index_t du_ld, const DType* du, DType* grad) {
    const DType* point0 = du + item / in_channels * du_ld + item % in_channels;
    DType x[4][4];
    for (int q = 0; q < 16; ++q) x[q / 4][q % 4] = point0[q * out_channels * du_ld];
    DType z[3][4];  // G^T x
    for (int c = 0; c < 4; ++c) {
      z[0][c] = x[0][c] + DType(0.5) * (x[1][c] + x[2][c]);
      z[1][c] = DType(0.5) * (x[1][c] - x[2][c]);
      z[2][c] = DType(0.5) * (x[1][c] + x[2][c]) + x[3][c];
    }
    DType* out = grad + item * 9;
    for (int r = 0; r < 3; ++r) {  // (G^T x) G
      const DType k[3] = {z[r][0] + DType(0.5) * (z[r][1] + z[r][2]),
                          DType(0.5) * (z[r][1] - z[r][2]),
                          DType(0.5) * (z[r][1] + z[r][2]) + z[r][3]};
      for (int c = 0; c < 3; ++c) out[r * 3 + c] = kAdd ? out[r * 3 + c] + k[c] : k[c];
    }
  }
};

// out (images, out_channels, out_h, out_w), written as `req` says, = the convolution of data
// (images, in_channels, in_h, in_w) with the kernels `kernel(o, i)` (flipped if `flip`), plus
// `bias` (out_channels; null: none); for a 3-d layer, out (images, out_channels, out_depth,
// out_h, out_w) from data (images, in_channels, in_depth, in_h, in_w), `kernel(o, i)` the 3x3
// kernel of input channel i % in_channels at depth tap i / in_channels. `workspace` holds
// s.WorkspaceSize(threads) elements. Each block of tile rows of an image, through a run of
// its output slices (all of them where there are at least as many blocks as threads), goes
// to whichever of up to `threads` threads is free, on that thread's part of the workspace;
// every output is written by one block, so the result does not depend on the thread count.
template <typename DType, typename KernelOf>
void Convolve(mshadow::Stream<cpu>* /*stream*/, const Shape& s, index_t threads, const DType* data,
              KernelOf kernel, bool flip, const DType* bias, DType* out, OpReqType req,
              DType* workspace) {
  if (req == kNullOp || s.images == 0 || s.out_depth == 0) return;
  const mshadow::WorkersStayAwake awake;  // through the kernels' transform
  // Rotation r of the transformed kernels has tap t's in columns ((r + t) mod depth_taps) *
  // in_channels on (ConvolveSlices): rotation 0 as TransformKernels writes them, the others
  // copied from it.
  const index_t depth = s.KernelChannels(), u_size = kPoints * s.out_channels * depth;
  const DType* u = workspace;
  TransformKernels(s.out_channels, depth, flip, kernel, workspace);
  for (index_t r = 1; r < s.KernelRotations(); ++r) {
    for (index_t row = 0; row < kPoints * s.out_channels; ++row) {
      for (index_t t = 0; t < s.depth_taps; ++t) {
        const DType* from = workspace + row * depth + t * s.in_channels;
        std::copy(from, from + s.in_channels,
                  workspace + r * u_size + row * depth + (r + t) % s.depth_taps * s.in_channels);
      }
    }
  }
  const index_t per_image = s.BlocksPerImage(), blocks = s.images * per_image;
  // Runs of output slices: each run transforms again the input slices its first output slice
  // shares with the run before.
  const index_t runs = std::clamp<index_t>((threads + blocks - 1) / blocks, 1, s.out_depth);
  const index_t units = blocks * runs, parts = std::min(threads, units);
  DType* const parts_space = workspace + s.KernelRotations() * u_size;
  for (index_t part = 0; part < parts; ++part) {
    // What the transforms read past a block's rows is never written to an output: zeros,
    // rather than whatever the workspace held.
    DType* scratch =
        parts_space + part * s.BlockWorkspace() + s.BlockWorkspace() - s.BlockScratch();
    std::fill(scratch, scratch + s.BlockScratch(), DType(0));
  }
  vec::WithReq(req, [&](auto add) {
    ForEachImage(units, parts, [&](index_t part, index_t unit) {
      DType* v = parts_space + part * s.BlockWorkspace();
      DType* m = v + kPoints * s.InputPointStride();
      DType* scratch = m + kPoints * s.ProductPointStride();
      const index_t block = unit / runs, run = unit % runs;
      const index_t image = block / per_image, first_row = block % per_image * s.BlockRows();
      ConvolveSlices<decltype(add)::value>(s, u, u_size, data, bias, out, image, first_row,
                                           s.RowsOfBlock(first_row), s.out_depth * run / runs,
                                           s.out_depth * (run + 1) / runs, v, m, scratch);
    });
  });
}

// kernel_grad (out_channels, in_channels, 3, 3), written as `req` says, = the gradient of the
// convolution of data (images, in_channels, in_h, in_w) for out_grad (images, out_channels,
// out_h, out_w). `workspace` holds s.GradientWorkspaceSize() elements. The slots of images
// (GradientSlots) go to the library's threads, each summing its images' gradients on its own
// part of the workspace (with every stage's items on all threads, the stages had waited on
// their slowest items); the slots' sums are added in order after the join.
template <typename DType>
void KernelGradient(mshadow::Stream<cpu>* stream, const Shape& s, const DType* data,
                    const DType* out_grad, DType* kernel_grad, OpReqType req, DType* workspace) {
  if (req == kNullOp) return;
  const index_t channels = s.PaddedInChannels<DType>();
  const index_t sums = kPoints * s.out_channels * channels;
  const index_t slots = s.GradientSlots(), per_slot = s.SlotWorkspace();
  auto slot_gradient = [&](index_t slot) {
    DType* du = workspace + slot * per_slot;
    DType* vt = du + s.GradientSums();
    DType* y = vt + kPoints * s.InputPointStride();
    DType* scratch = y + kPoints * s.ProductPointStride();
    std::fill(du, du + sums, DType(0));  // what no image adds to stays zero
    std::fill(scratch, scratch + s.GradientScratch(), DType(0));
    for (index_t image = s.images * slot / slots; image < s.images * (slot + 1) / slots; ++image) {
      for (index_t first_row = 0; first_row < s.TilesH(); first_row += s.BlockRows()) {
        KernelGradientBlock(s, data, out_grad, image, first_row, s.RowsOfBlock(first_row), du, vt,
                            y, scratch);
      }
    }
  };
  const int threads = static_cast<int>(std::min<index_t>(mshadow::GetNumThreads(), slots));
  if (threads <= 1) {
    for (index_t slot = 0; slot < slots; ++slot) slot_gradient(slot);
  } else {
    mshadow::ParallelFor(slots, threads, slot_gradient);
  }
  for (index_t slot = 1; slot < slots; ++slot) {
    CopyRun<true>(workspace, workspace + slot * per_slot, sums);
  }
  vec::WithReq(req, [&](auto add) {
    Kernel<FoldKernelGradient<decltype(add)::value>, cpu>::Launch(
        stream, s.out_channels * s.in_channels, s.out_channels, s.in_channels, channels,
        static_cast<const DType*>(workspace), kernel_grad);
  });
}

}  // namespace winograd
}  // namespace ops

#endif  // OPS_WINOGRAD_CONV_H_
