// ops/deformable_convolution-inl.h: MXNet 1.9.1's _contrib_DeformableConvolution (Deformable
// ConvNets v1), _contrib_ModulatedDeformableConvolution (v2) and their backward operators,
// written once for every device.
//
// A 2-d convolution whose kernel taps sample the input off the grid: tap k of output position
// (y, x) reads channel c at (y * stride - pad + i * dilate + dy, x * stride - pad + j * dilate
// + dx), (dy, dx) the offset input's pair for tap k at (y, x) of c's deformable group, by
// bilinear interpolation, the image's border read as each operator reads it in MXNet 1.9.1
// (Border); v2 multiplies each sample by its mask input's value for that tap, position and
// group. Per image: the sampled column matrix (channel x tap rows, output position columns),
// then one gemm per group with the weight, as Convolution's column path. The backward: the
// weight gradient from the same columns; the columns' gradient (weight^T times the output
// gradient) spread back onto the four neighbours of each sample (the data gradient: a channel
// plane per CPU item, atomics on the GPU) and, through the interpolation's slopes and values,
// onto the offsets and the mask (an item per sample, summing its group's channels). Every
// gradient is the exact derivative of the forward (MXNet 1.9.1's CPU build has no v2
// backward; its GPU build's is that derivative too).
// deformable_convolution.cc registers them with FCompute<cpu> and shape inference,
// deformable_convolution.cu adds FCompute<gpu>.
#ifndef OPS_DEFORMABLE_CONVOLUTION_INL_H_
#define OPS_DEFORMABLE_CONVOLUTION_INL_H_

#include <cmath>
#include <type_traits>
#include <vector>

#include "mshadow/extension/broadcast.h"
#include "mshadow/tensor.h"
#include "ops/conv_geometry.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"

namespace ops {
namespace deformable_convolution {

using mshadow::expr::dot;

// The fields both operators declare alike (layout as MXNet 1.9.1's: NCHW, or None, computed).
#define OPS_DECLARE_DEFORMABLE_CONVOLUTION_FIELDS()                                          \
  DMLC_DECLARE_FIELD(kernel).describe("Kernel size (h, w).");                                \
  DMLC_DECLARE_FIELD(stride).set_default(TShape()).describe(                                 \
      "Stride per spatial axis; () is 1 on both.");                                          \
  DMLC_DECLARE_FIELD(dilate).set_default(TShape()).describe(                                 \
      "Dilation per spatial axis; () is 1 on both.");                                        \
  DMLC_DECLARE_FIELD(pad).set_default(TShape()).describe(                                    \
      "Padding on both sides of each spatial axis; () is 0 on both.");                       \
  DMLC_DECLARE_FIELD(num_filter).set_lower_bound(1).describe("Number of output channels.");  \
  DMLC_DECLARE_FIELD(num_group).set_default(1).set_lower_bound(1).describe(                  \
      "Groups of input and output channels convolved on their own.");                        \
  DMLC_DECLARE_FIELD(num_deformable_group)                                                   \
      .set_default(1)                                                                        \
      .set_lower_bound(1)                                                                    \
      .describe("Groups of input channels sharing one set of offsets.");                     \
  DMLC_DECLARE_FIELD(workspace).set_default(1024).set_lower_bound(0).describe(               \
      "Accepted for MXNet compatibility; ignored.");                                         \
  DMLC_DECLARE_FIELD(no_bias).set_default(false).describe("Whether to leave out the bias."); \
  DMLC_DECLARE_FIELD(layout)                                                                 \
      .add_enum("NCW", 0)                                                                    \
      .add_enum("NCHW", 1)                                                                   \
      .add_enum("NCDHW", 2)                                                                  \
      .set_default(dmlc::optional<int>())                                                    \
      .describe("Data layout: NCHW (or None) only.")

struct DeformableConvolutionParam : public dmlc::Parameter<DeformableConvolutionParam> {
  TShape kernel;
  TShape stride;
  TShape dilate;
  TShape pad;
  uint32_t num_filter;
  uint32_t num_group;
  uint32_t num_deformable_group;
  uint64_t workspace;
  bool no_bias;
  dmlc::optional<int> layout;
  DMLC_DECLARE_PARAMETER(DeformableConvolutionParam) {
    OPS_DECLARE_DEFORMABLE_CONVOLUTION_FIELDS();
  }
};

struct ModulatedDeformableConvolutionParam
    : public dmlc::Parameter<ModulatedDeformableConvolutionParam> {
  TShape kernel;
  TShape stride;
  TShape dilate;
  TShape pad;
  uint32_t num_filter;
  uint32_t num_group;
  uint32_t num_deformable_group;
  uint64_t workspace;
  bool no_bias;
  uint32_t im2col_step;
  dmlc::optional<int> layout;
  DMLC_DECLARE_PARAMETER(ModulatedDeformableConvolutionParam) {
    OPS_DECLARE_DEFORMABLE_CONVOLUTION_FIELDS();
    DMLC_DECLARE_FIELD(im2col_step)
        .set_default(64)
        .set_lower_bound(1)
        .describe(
            "Accepted for MXNet compatibility (its images per column matrix); images go one at a "
            "time here.");
  }
};

// The modulated operator (Deformable ConvNets v2) has a mask input, and its samples read the
// image's border as MXNet 1.9.1 reads it there.
template <typename Param>
constexpr bool kModulated = std::is_same_v<Param, ModulatedDeformableConvolutionParam>;

// What the kernels read: one image's extents, the window and the groups' sizes.
struct DeformableLayout {
  index_t channels = 0, height = 0, width = 0;  // input
  index_t out_height = 0, out_width = 0;
  index_t kernel_h = 0, kernel_w = 0, stride_h = 1, stride_w = 1;
  index_t dilate_h = 1, dilate_w = 1, pad_h = 0, pad_w = 0;
  index_t deformable_groups = 1;
  index_t filters = 0, groups = 1;

  MSHADOW_XINLINE index_t Taps() const { return kernel_h * kernel_w; }
  MSHADOW_XINLINE index_t OutSize() const { return out_height * out_width; }
  MSHADOW_XINLINE index_t InSize() const { return height * width; }
  MSHADOW_XINLINE index_t ColRows() const { return channels * Taps(); }
  // The (dy, dx) planes of tap k in channel c's deformable group: 2 a tap, dy first.
  MSHADOW_XINLINE index_t OffsetAt(index_t c, index_t k) const {
    return (OffsetGroupOf(c) * 2 * Taps() + 2 * k) * OutSize();
  }
  // The mask plane of tap k in channel c's deformable group (the modulated operator's).
  MSHADOW_XINLINE index_t MaskAt(index_t c, index_t k) const {
    return (OffsetGroupOf(c) * Taps() + k) * OutSize();
  }
  MSHADOW_XINLINE index_t OffsetGroupOf(index_t c) const {
    return c / (channels / deformable_groups);
  }
  // Where tap k of output position (y, x) samples before its offset.
  MSHADOW_XINLINE index_t GridY(index_t k, index_t y) const {
    return y * stride_h - pad_h + k / kernel_w * dilate_h;
  }
  MSHADOW_XINLINE index_t GridX(index_t k, index_t x) const {
    return x * stride_w - pad_w + k % kernel_w * dilate_w;
  }
};

// How a sample at real (y, x) reads its (height, width) plane.
enum class Border {
  // _contrib_DeformableConvolution as MXNet 1.9.1's CPU build reads it: a point outside
  // [0, height) x [0, width) reads 0; one in the last row (or column) reads the row itself,
  // whole (the sample does not move along that axis there). MXNet's GPU build differs: it
  // reads as kZeroOutside.
  kClampLast,
  // _contrib_ModulatedDeformableConvolution, both MXNet builds: a point within (-1, height) x
  // (-1, width) reads its four neighbours, those outside the plane as 0.
  kZeroOutside,
};

// A sample of a (height, width) plane at real (y, x) read as kBorder says: its neighbours'
// positions (-1: none), weights and the weights' slopes along y and x (the offsets' gradient).
template <typename DType, Border kBorder>
struct BilinearSample {
  index_t at[4] = {-1, -1, -1, -1};
  DType weight[4] = {DType(0), DType(0), DType(0), DType(0)};
  DType slope_y[4] = {DType(0), DType(0), DType(0), DType(0)};
  DType slope_x[4] = {DType(0), DType(0), DType(0), DType(0)};

  MSHADOW_XINLINE BilinearSample(DType y, DType x, index_t height, index_t width) {
    const DType low = kBorder == Border::kClampLast ? DType(0) : DType(-1);
    const bool inside = kBorder == Border::kClampLast
                            ? y >= low && x >= low && y < DType(height) && x < DType(width)
                            : y > low && x > low && y < DType(height) && x < DType(width);
    if (!inside) return;
    DType y0 = DType(std::floor(y)), x0 = DType(std::floor(x));
    bool last_row = false, last_column = false;
    if constexpr (kBorder == Border::kClampLast) {
      last_row = y0 >= DType(height - 1), last_column = x0 >= DType(width - 1);
      if (last_row) y0 = DType(height - 1), y = y0;
      if (last_column) x0 = DType(width - 1), x = x0;
    }
    const index_t row = static_cast<index_t>(y0), column = static_cast<index_t>(x0);
    const DType ly = y - y0, lx = x - x0;
    const DType wy[2] = {DType(1) - ly, ly}, wx[2] = {DType(1) - lx, lx};
    const DType sy[2] = {last_row ? DType(0) : DType(-1), last_row ? DType(0) : DType(1)};
    const DType sx[2] = {last_column ? DType(0) : DType(-1), last_column ? DType(0) : DType(1)};
    for (int n = 0; n < 4; ++n) {
      const index_t r = row + n / 2, q = column + n % 2;
      if (r < 0 || r >= height || q < 0 || q >= width) continue;
      at[n] = r * width + q;
      weight[n] = wy[n / 2] * wx[n % 2];
      slope_y[n] = sy[n / 2] * wx[n % 2];
      slope_x[n] = wy[n / 2] * sx[n % 2];
    }
  }

  // The interpolated value and its slopes over `plane`.
  MSHADOW_XINLINE DType Value(const DType* plane) const { return Sum(weight, plane); }
  MSHADOW_XINLINE DType SlopeY(const DType* plane) const { return Sum(slope_y, plane); }
  MSHADOW_XINLINE DType SlopeX(const DType* plane) const { return Sum(slope_x, plane); }

 private:
  MSHADOW_XINLINE DType Sum(const DType* factor, const DType* plane) const {
    DType sum = DType(0);
    for (int n = 0; n < 4; ++n) sum += at[n] >= 0 ? factor[n] * plane[at[n]] : DType(0);
    return sum;
  }
};

// BilinearSample's value alone, the forward's. Under kClampLast a neighbour past the last row
// or column is the last one itself at weight 0 (as MXNet's, which also multiplies it by 0).
template <Border kBorder, typename DType>
MSHADOW_XINLINE DType SampleValue(const DType* plane, DType y, DType x, index_t height,
                                  index_t width) {
  if constexpr (kBorder == Border::kZeroOutside) {
    if (!(y > DType(-1) && x > DType(-1) && y < DType(height) && x < DType(width))) {
      return DType(0);
    }
    const DType y0 = DType(std::floor(y)), x0 = DType(std::floor(x));
    const index_t row = static_cast<index_t>(y0), column = static_cast<index_t>(x0);
    const DType ly = y - y0, lx = x - x0;
    const bool top = row >= 0, bottom = row + 1 < height;
    const bool left = column >= 0, right = column + 1 < width;
    const index_t at = row * width + column;  // of the top left neighbour, maybe outside
    const DType v00 = top && left ? plane[at] : DType(0);
    const DType v01 = top && right ? plane[at + 1] : DType(0);
    const DType v10 = bottom && left ? plane[at + width] : DType(0);
    const DType v11 = bottom && right ? plane[at + width + 1] : DType(0);
    return (DType(1) - ly) * ((DType(1) - lx) * v00 + lx * v01) +
           ly * ((DType(1) - lx) * v10 + lx * v11);
  }
  if (!(y >= DType(0) && x >= DType(0) && y < DType(height) && x < DType(width))) {
    return DType(0);
  }
  index_t row = static_cast<index_t>(y), column = static_cast<index_t>(x);  // y, x >= 0
  DType ly = y - DType(row), lx = x - DType(column);
  index_t down = width, right = 1;
  if (row >= height - 1) row = height - 1, ly = DType(0), down = 0;
  if (column >= width - 1) column = width - 1, lx = DType(0), right = 0;
  const DType* p = plane + row * width + column;
  return (DType(1) - ly) * ((DType(1) - lx) * p[0] + lx * p[right]) +
         ly * ((DType(1) - lx) * p[down] + lx * p[down + right]);
}

// The modulated operator's mask at output position o of a plane (nullptr: no mask, 1).
template <typename DType>
MSHADOW_XINLINE DType MaskOf(const DType* mask_plane, index_t o) {
  return mask_plane == nullptr ? DType(1) : mask_plane[o];
}

// Item (both devices): row r = (channel c, tap k, output row y) of one image's column matrix,
// a sampled value (times its mask, when there is one) per output column.
template <Border kBorder>
struct deformable_im2col_row {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t r, DeformableLayout l, const DType* image,
                                  const DType* offset, const DType* mask, DType* col) {
    const index_t y = r % l.out_height, row = r / l.out_height;
    const index_t c = row / l.Taps(), k = row % l.Taps();
    const DType* plane = image + c * l.InSize();
    const DType* dy = offset + l.OffsetAt(c, k);
    const DType* dx = dy + l.OutSize();
    const DType* m = mask == nullptr ? nullptr : mask + l.MaskAt(c, k);
    DType* out = col + row * l.OutSize();
    const DType grid_y = DType(l.GridY(k, y));
    for (index_t x = 0; x < l.out_width; ++x) {
      const index_t o = y * l.out_width + x;
      out[o] = MaskOf(m, o) * SampleValue<kBorder>(plane, grid_y + dy[o],
                                                   DType(l.GridX(k, x)) + dx[o], l.height, l.width);
    }
  }
};

// CPU item: channel c's data gradient, every sample of its column rows spread onto the
// neighbours it read (no other item writes the plane).
template <Border kBorder>
struct deformable_col2im_plane {
  template <typename DType>
  static void Map(index_t c, DeformableLayout l, const DType* col_grad, const DType* offset,
                  const DType* mask, DType* grad) {
    DType* plane = grad + c * l.InSize();
    for (index_t k = 0; k < l.Taps(); ++k) {
      const DType* g = col_grad + (c * l.Taps() + k) * l.OutSize();
      const DType* dy = offset + l.OffsetAt(c, k);
      const DType* dx = dy + l.OutSize();
      const DType* m = mask == nullptr ? nullptr : mask + l.MaskAt(c, k);
      for (index_t o = 0; o < l.OutSize(); ++o) {
        const index_t y = o / l.out_width, x = o % l.out_width;
        const BilinearSample<DType, kBorder> s(DType(l.GridY(k, y)) + dy[o],
                                               DType(l.GridX(k, x)) + dx[o], l.height, l.width);
        const DType share = MaskOf(m, o) * g[o];
        for (int n = 0; n < 4; ++n) {
          if (s.at[n] >= 0) plane[s.at[n]] += s.weight[n] * share;
        }
      }
    }
  }
};

// GPU item: column gradient element i spread onto its sample's neighbours by atomics.
template <Border kBorder>
struct deformable_col2im_atomic {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DeformableLayout l, const DType* col_grad,
                                  const DType* offset, const DType* mask, DType* grad) {
    const index_t o = i % l.OutSize(), row = i / l.OutSize();
    const index_t c = row / l.Taps(), k = row % l.Taps();
    const DType* dy = offset + l.OffsetAt(c, k);
    const BilinearSample<DType, kBorder> s(DType(l.GridY(k, o / l.out_width)) + dy[o],
                                           DType(l.GridX(k, o % l.out_width)) + dy[l.OutSize() + o],
                                           l.height, l.width);
    const DType share = MaskOf(mask == nullptr ? nullptr : mask + l.MaskAt(c, k), o) * col_grad[i];
    DType* plane = grad + c * l.InSize();
    for (int n = 0; n < 4; ++n) {
      if (s.at[n] < 0) continue;
#ifdef __CUDA_ARCH__
      atomicAdd(plane + s.at[n], s.weight[n] * share);
#else
      plane[s.at[n]] += s.weight[n] * share;
#endif
    }
  }
};

// Where the offset and mask gradients go (nullptr: not asked for) and how they are written.
template <typename DType>
struct SampleGradients {
  DType* offset = nullptr;
  DType* mask = nullptr;
  OpReqType offset_req = kNullOp, mask_req = kNullOp;
};

// Item (both devices): sample p = (deformable group, tap k, output position o): the slopes of
// its interpolation times the column gradient, summed over the group's channels, times its
// mask (the offsets' gradient); its interpolated values times the column gradient, summed
// likewise (the mask's gradient).
template <Border kBorder>
struct deformable_sample_gradient {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t p, DeformableLayout l, const DType* col_grad,
                                  const DType* image, const DType* offset, const DType* mask,
                                  SampleGradients<DType> grads) {
    const index_t o = p % l.OutSize(), pair = p / l.OutSize();
    const index_t group = pair / l.Taps(), k = pair % l.Taps();
    const index_t per_group = l.channels / l.deformable_groups;
    const index_t at_y = l.OffsetAt(group * per_group, k) + o, at_x = at_y + l.OutSize();
    const index_t at_mask = l.MaskAt(group * per_group, k) + o;
    const BilinearSample<DType, kBorder> s(DType(l.GridY(k, o / l.out_width)) + offset[at_y],
                                           DType(l.GridX(k, o % l.out_width)) + offset[at_x],
                                           l.height, l.width);
    DType sum_y = DType(0), sum_x = DType(0), sum_value = DType(0);
    for (index_t c = group * per_group; c < (group + 1) * per_group; ++c) {
      const DType* plane = image + c * l.InSize();
      const DType g = col_grad[(c * l.Taps() + k) * l.OutSize() + o];
      sum_y += s.SlopeY(plane) * g;
      sum_x += s.SlopeX(plane) * g;
      if (grads.mask != nullptr) sum_value += s.Value(plane) * g;
    }
    if (grads.offset != nullptr) {
      const DType m = mask == nullptr ? DType(1) : mask[at_mask];
      AssignReq(grads.offset + at_y, m * sum_y, grads.offset_req);
      AssignReq(grads.offset + at_x, m * sum_x, grads.offset_req);
    }
    if (grads.mask != nullptr) AssignReq(grads.mask + at_mask, sum_value, grads.mask_req);
  }
};

// The layout of `data` (batch, channels, height, width) under the parameters; a dmlc::Error
// for what does not fit (a 2-d kernel only, groups dividing the channels, a window larger
// than the padded input).
DeformableLayout LayoutOf(const DeformableConvolutionParam& param, const TShape& data);
DeformableLayout LayoutOf(const ModulatedDeformableConvolutionParam& param, const TShape& data);

// Inputs: data, offset, [mask (modulated),] weight [, bias].
template <typename xpu, typename Param>
void DeformableConvolutionCompute(const NodeAttrs& attrs, const OpContext& ctx,
                                  const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                                  const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  constexpr Border kBorder = kModulated<Param> ? Border::kZeroOutside : Border::kClampLast;
  constexpr size_t kWeight = kModulated<Param> ? 3 : 2;
  const Param& param = GetParam<Param>(attrs);
  const DeformableLayout l = LayoutOf(param, in[0].shape_);
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  const index_t batch = in[0].shape_[0], filters = l.filters;
  const index_t filters_per_group = filters / l.groups, rows_per_group = l.ColRows() / l.groups;
  const index_t offset_size = 2 * l.deformable_groups * l.Taps() * l.OutSize();
  const index_t mask_size = offset_size / 2;
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    auto weight =
        in[kWeight].get_with_shape<xpu, 2, DType>(mshadow::Shape2(filters, rows_per_group), s);
    auto y = out[0].get_with_shape<xpu, 3, DType>(mshadow::Shape3(batch, filters, l.OutSize()), s);
    auto col = ctx.requested[0].get_space_typed<xpu, 2, DType>(
        mshadow::Shape2(l.ColRows(), l.OutSize()), s);
    for (index_t n = 0; n < batch; ++n) {
      const DType* mask = kModulated<Param> ? in[2].dptr<DType>() + n * mask_size : nullptr;
      Kernel<deformable_im2col_row<kBorder>, xpu>::LaunchItems(
          s, l.ColRows() * l.out_height, l.out_width * 16, l,
          in[0].dptr<DType>() + n * l.channels * l.InSize(), in[1].dptr<DType>() + n * offset_size,
          mask, col.dptr_);
      Tensor<xpu, 2, DType> yn = y[n];
      // With a bias, its rows go in first and the products are added onto them.
      const bool bias_first = !param.no_bias && req[0] != kAddTo;
      const auto bias = [&] { return in[kWeight + 1].get<xpu, 1, DType>(s); };
      if (bias_first) yn = mshadow::expr::broadcast<0>(bias(), yn.shape_);
      for (index_t grp = 0; grp < l.groups; ++grp) {
        Assign(yn.Slice(grp * filters_per_group, (grp + 1) * filters_per_group),
               bias_first ? kAddTo : req[0],
               dot(weight.Slice(grp * filters_per_group, (grp + 1) * filters_per_group),
                   col.Slice(grp * rows_per_group, (grp + 1) * rows_per_group)));
      }
      if (!param.no_bias && req[0] == kAddTo) yn += mshadow::expr::broadcast<0>(bias(), yn.shape_);
    }
  });
}

// Inputs: out_grad, data, offset, [mask,] weight [, bias]. Outputs: data_grad, offset_grad,
// [mask_grad,] weight_grad [, bias_grad].
template <typename xpu, typename Param>
void DeformableConvolutionBackwardCompute(const NodeAttrs& attrs, const OpContext& ctx,
                                          const std::vector<TBlob>& in,
                                          const std::vector<OpReqType>& req,
                                          const std::vector<TBlob>& out) {
  constexpr Border kBorder = kModulated<Param> ? Border::kZeroOutside : Border::kClampLast;
  constexpr size_t kWeightGrad = kModulated<Param> ? 3 : 2;  // in: one more (out_grad first)
  const Param& param = GetParam<Param>(attrs);
  const DeformableLayout l = LayoutOf(param, in[1].shape_);
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  const index_t batch = in[1].shape_[0], filters = l.filters;
  const index_t filters_per_group = filters / l.groups, rows_per_group = l.ColRows() / l.groups;
  const index_t image_size = l.channels * l.InSize();
  const index_t offset_size = 2 * l.deformable_groups * l.Taps() * l.OutSize();
  const index_t mask_size = offset_size / 2;
  const OpReqType mask_req = kModulated<Param> ? req[2] : kNullOp;
  MSHADOW_SGL_DBL_TYPE_SWITCH(in[0].type_flag_, DType, {
    auto og = in[0].get_with_shape<xpu, 3, DType>(mshadow::Shape3(batch, filters, l.OutSize()), s);
    auto weight = in[kWeightGrad + 1].get_with_shape<xpu, 2, DType>(
        mshadow::Shape2(filters, rows_per_group), s);
    auto dw =
        out[kWeightGrad].get_with_shape<xpu, 2, DType>(mshadow::Shape2(filters, rows_per_group), s);
    auto col = ctx.requested[0].get_space_typed<xpu, 2, DType>(
        mshadow::Shape2(l.ColRows(), l.OutSize()), s);
    WriteZeroGradient<xpu, DType>(out[0], req[0], s);  // the samples' shares add onto it
    for (index_t n = 0; n < batch; ++n) {
      const DType* image = in[1].dptr<DType>() + n * image_size;
      const DType* offset = in[2].dptr<DType>() + n * offset_size;
      const DType* mask = kModulated<Param> ? in[3].dptr<DType>() + n * mask_size : nullptr;
      Tensor<xpu, 2, DType> ogn = og[n];
      if (req[kWeightGrad] != kNullOp) {  // og * col^T, summed over the batch (the first writes)
        Kernel<deformable_im2col_row<kBorder>, xpu>::LaunchItems(
            s, l.ColRows() * l.out_height, l.out_width * 16, l, image, offset, mask, col.dptr_);
        for (index_t grp = 0; grp < l.groups; ++grp) {
          Assign(dw.Slice(grp * filters_per_group, (grp + 1) * filters_per_group),
                 n == 0 ? req[kWeightGrad] : kAddTo,
                 dot(ogn.Slice(grp * filters_per_group, (grp + 1) * filters_per_group),
                     col.Slice(grp * rows_per_group, (grp + 1) * rows_per_group).T()));
        }
      }
      if (req[0] == kNullOp && req[1] == kNullOp && mask_req == kNullOp) continue;
      for (index_t grp = 0; grp < l.groups; ++grp) {  // the columns' gradient
        col.Slice(grp * rows_per_group, (grp + 1) * rows_per_group) =
            dot(weight.Slice(grp * filters_per_group, (grp + 1) * filters_per_group).T(),
                ogn.Slice(grp * filters_per_group, (grp + 1) * filters_per_group));
      }
      if (req[1] != kNullOp || mask_req != kNullOp) {
        SampleGradients<DType> grads;
        if (req[1] != kNullOp) grads.offset = out[1].dptr<DType>() + n * offset_size;
        if (mask_req != kNullOp) grads.mask = out[2].dptr<DType>() + n * mask_size;
        grads.offset_req = req[1], grads.mask_req = mask_req;
        Kernel<deformable_sample_gradient<kBorder>, xpu>::LaunchItems(
            s, mask_size, l.channels / l.deformable_groups * 8, l, col.dptr_, image, offset, mask,
            grads);
      }
      if (req[0] != kNullOp) {
        DType* grad = out[0].dptr<DType>() + n * image_size;
        if constexpr (std::is_same_v<xpu, cpu>) {
          Kernel<deformable_col2im_plane<kBorder>, xpu>::LaunchItems(
              s, l.channels, l.Taps() * l.OutSize() * 8, l, col.dptr_, offset, mask, grad);
        } else {
          Kernel<deformable_col2im_atomic<kBorder>, xpu>::Launch(s, l.ColRows() * l.OutSize(), l,
                                                                 col.dptr_, offset, mask, grad);
        }
      }
    }
    if (!param.no_bias) BiasGradient<xpu>(s, in[0], req[kWeightGrad + 1], out[kWeightGrad + 1]);
  });
}

// Adds FCompute<xpu> to _contrib_DeformableConvolution, _contrib_ModulatedDeformableConvolution
// and their backward operators.
template <typename xpu>
void SetDeformableConvolutionCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("_contrib_DeformableConvolution")
      .set_attr<FCompute>(attr_name,
                          FCompute(DeformableConvolutionCompute<xpu, DeformableConvolutionParam>));
  RegisterOp("_backward_contrib_DeformableConvolution")
      .set_attr<FCompute>(
          attr_name,
          FCompute(DeformableConvolutionBackwardCompute<xpu, DeformableConvolutionParam>));
  RegisterOp("_contrib_ModulatedDeformableConvolution")
      .set_attr<FCompute>(
          attr_name,
          FCompute(DeformableConvolutionCompute<xpu, ModulatedDeformableConvolutionParam>));
  RegisterOp("_backward_contrib_ModulatedDeformableConvolution")
      .set_attr<FCompute>(
          attr_name,
          FCompute(DeformableConvolutionBackwardCompute<xpu, ModulatedDeformableConvolutionParam>));
}

}  // namespace deformable_convolution
}  // namespace ops

#endif  // OPS_DEFORMABLE_CONVOLUTION_INL_H_
