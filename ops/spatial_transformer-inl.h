// ops/spatial_transformer-inl.h: the spatial transformer network's operators as MXNet 1.9.1
// has them, written once for every device:
//   GridGenerator: sampling positions in [-1, 1] from an affine matrix per image (N, 6) over
//     a target_shape grid, or from an optical flow (N, 2, H, W) added to each position;
//   BilinearSampler: the data (N, C, H, W) sampled bilinearly at a grid (N, 2, Ho, Wo) of such
//     positions (x first, -1 the first column, 1 the last), zero outside;
//   SpatialTransformer: the two composed (an affine matrix per image, bilinear sampling).
// Gradients without atomics: the data's by plane (each (n, c) item scatters every output of
// its plane in order), the grid's by position (summed over the channels), the affine
// matrix's by coefficient (summed over the grid); none depends on the thread count.
// spatial_transformer.cc registers them with FCompute<cpu>; spatial_transformer.cu adds
// FCompute<gpu>.
#ifndef OPS_SPATIAL_TRANSFORMER_INL_H_
#define OPS_SPATIAL_TRANSFORMER_INL_H_

#include <cmath>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"

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
        .describe("affine: data is (N, 6), a 2x3 matrix per image; warp: data is an optical "
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
    DMLC_DECLARE_FIELD(transform_type).add_enum("affine", kAffine).describe(
        "The transformation: an affine matrix per image (N, 6).");
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

// Grid element i = (n, k, h, w) of an (N, 2, H, W) grid: theta[n] row k times (x_w, y_h, 1).
template <int kReq>
struct affine_grid {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* grid, const DType* theta, index_t height,
                                  index_t width) {
    const index_t w = i % width, h = i / width % height, row = i / (width * height);
    const DType* t = theta + row * 3;  // (n, k) is row 2n + k of the (N * 2, 3) matrices
    AssignReq<kReq>(grid + i, t[0] * UnitPosition<DType>(w, width) +
                                  t[1] * UnitPosition<DType>(h, height) + t[2]);
  }
};

// Coefficient i = (n, k, j) of theta's gradient: the grid gradient's row (n, k) summed against
// x (j = 0), y (j = 1) or 1 (j = 2), in row-major order.
template <int kReq>
struct affine_grid_gradient {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* theta_grad, const DType* grid_grad,
                                  index_t height, index_t width) {
    const index_t j = i % 3, row = i / 3;
    const DType* g = grid_grad + row * height * width;
    DType sum = 0;
    for (index_t h = 0; h < height; ++h) {
      const DType y = UnitPosition<DType>(h, height);
      for (index_t w = 0; w < width; ++w) {
        const DType basis = j == 0 ? UnitPosition<DType>(w, width) : (j == 1 ? y : DType(1));
        sum += g[h * width + w] * basis;
      }
    }
    AssignReq<kReq>(theta_grad + i, sum);
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
};

// Where grid position (gx, gy) samples a plane: the top-left corner (x0, y0) and the
// fractions (fx, fy) past it; false where every corner is outside the plane (or the position
// is not a number), so the sample and its gradients are 0.
template <typename DType>
struct SamplePoint {
  index_t x0, y0;
  DType fx, fy;
  MSHADOW_XINLINE bool Locate(DType gx, DType gy, index_t height, index_t width) {
    const DType x = (gx + DType(1)) * static_cast<DType>(width - 1) / DType(2);
    const DType y = (gy + DType(1)) * static_cast<DType>(height - 1) / DType(2);
    if (!(x >= DType(-1) && x <= static_cast<DType>(width) && y >= DType(-1) &&
          y <= static_cast<DType>(height))) {
      return false;
    }
    const DType fx0 = ::floor(x), fy0 = ::floor(y);
    x0 = static_cast<index_t>(fx0);
    y0 = static_cast<index_t>(fy0);
    fx = x - fx0;
    fy = y - fy0;
    return true;
  }
  // The plane's value at corner (dy, dx) of the cell, 0 outside the plane.
  MSHADOW_XINLINE DType Corner(const DType* plane, index_t dy, index_t dx, index_t height,
                               index_t width) const {
    const index_t yy = y0 + dy, xx = x0 + dx;
    return yy >= 0 && yy < height && xx >= 0 && xx < width ? plane[yy * width + xx] : DType(0);
  }
};

// Output element i = (n, c, h, w): the plane (n, c) sampled at grid (n, :, h, w).
template <int kReq>
struct bilinear_sample {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* out, const DType* data, const DType* grid,
                                  SamplerGeometry g) {
    const index_t positions = g.out_height * g.out_width;
    const index_t p = i % positions, plane = i / positions, n = plane / g.channels;
    const DType* at = grid + n * 2 * positions + p;
    SamplePoint<DType> s;
    DType value = 0;
    if (s.Locate(at[0], at[positions], g.height, g.width)) {
      const DType* d = data + plane * g.height * g.width;
      value = s.Corner(d, 0, 0, g.height, g.width) * (DType(1) - s.fy) * (DType(1) - s.fx) +
              s.Corner(d, 0, 1, g.height, g.width) * (DType(1) - s.fy) * s.fx +
              s.Corner(d, 1, 0, g.height, g.width) * s.fy * (DType(1) - s.fx) +
              s.Corner(d, 1, 1, g.height, g.width) * s.fy * s.fx;
    }
    AssignReq<kReq>(out + i, value);
  }
};

// Plane i = (n, c) of the data's gradient: every output gradient of the plane added to its
// four corners' weights, positions in order; the plane is zeroed first unless kAddTo.
template <int kReq>
struct bilinear_data_gradient {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t i, DType* grad, const DType* out_grad,
                                  const DType* grid, SamplerGeometry g) {
    const index_t positions = g.out_height * g.out_width, n = i / g.channels;
    const index_t plane_size = g.height * g.width;
    DType* plane = grad + i * plane_size;
    if (kReq != kAddTo) {
      for (index_t k = 0; k < plane_size; ++k) plane[k] = DType(0);
    }
    const DType* gx = grid + n * 2 * positions;
    const DType* og = out_grad + i * positions;
    for (index_t p = 0; p < positions; ++p) {
      SamplePoint<DType> s;
      if (!s.Locate(gx[p], gx[positions + p], g.height, g.width)) continue;
      const DType weights[4] = {(DType(1) - s.fy) * (DType(1) - s.fx), (DType(1) - s.fy) * s.fx,
                                s.fy * (DType(1) - s.fx), s.fy * s.fx};
      for (int corner = 0; corner < 4; ++corner) {
        const index_t yy = s.y0 + corner / 2, xx = s.x0 + corner % 2;
        if (yy >= 0 && yy < g.height && xx >= 0 && xx < g.width) {
          plane[yy * g.width + xx] += og[p] * weights[corner];
        }
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
                                  const DType* data, const DType* grid, SamplerGeometry g) {
    const index_t positions = g.out_height * g.out_width;
    const index_t p = i % positions, n = i / positions;
    const DType* at = grid + n * 2 * positions + p;
    DType dx = 0, dy = 0;
    SamplePoint<DType> s;
    if (s.Locate(at[0], at[positions], g.height, g.width)) {
      for (index_t c = 0; c < g.channels; ++c) {
        const index_t plane = n * g.channels + c;
        const DType* d = data + plane * g.height * g.width;
        const DType v00 = s.Corner(d, 0, 0, g.height, g.width);
        const DType v01 = s.Corner(d, 0, 1, g.height, g.width);
        const DType v10 = s.Corner(d, 1, 0, g.height, g.width);
        const DType v11 = s.Corner(d, 1, 1, g.height, g.width);
        const DType o = out_grad[plane * positions + p];
        dx += o * ((DType(1) - s.fy) * (v01 - v00) + s.fy * (v11 - v10));
        dy += o * ((DType(1) - s.fx) * (v10 - v00) + s.fx * (v11 - v01));
      }
    }
    DType* out = grid_grad + n * 2 * positions + p;
    AssignReq<kReq>(out, dx * static_cast<DType>(g.width - 1) / DType(2));
    AssignReq<kReq>(out + positions, dy * static_cast<DType>(g.height - 1) / DType(2));
  }
};

inline SamplerGeometry SamplerGeometryOf(const TShape& data, const TShape& grid) {
  return {data[0], data[1], data[2], data[3], grid[2], grid[3]};
}

// The grid's (N, 2, H, W) from an affine matrix per image (N, 6).
template <typename xpu, typename DType>
void AffineGrid(mshadow::Stream<xpu>* s, OpReqType req, DType* grid, const DType* theta,
                index_t batch, index_t height, index_t width) {
  OPS_REQ_SWITCH(req, kReq, {
    Kernel<affine_grid<kReq>, xpu>::Launch(s, batch * 2 * height * width, grid, theta, height,
                                           width);
  });
}

template <typename xpu, typename DType>
void AffineGridGradient(mshadow::Stream<xpu>* s, OpReqType req, DType* theta_grad,
                        const DType* grid_grad, index_t batch, index_t height, index_t width) {
  OPS_REQ_SWITCH(req, kReq, {
    Kernel<affine_grid_gradient<kReq>, xpu>::LaunchItems(s, batch * 6, height * width,
                                                         theta_grad, grid_grad, height, width);
  });
}

template <typename xpu, typename DType>
void Sample(mshadow::Stream<xpu>* s, OpReqType req, DType* out, const DType* data,
            const DType* grid, const SamplerGeometry& g) {
  OPS_REQ_SWITCH(req, kReq, {
    Kernel<bilinear_sample<kReq>, xpu>::LaunchItems(
        s, g.batch * g.channels * g.out_height * g.out_width, 8, out, data, grid, g);
  });
}

// The sampler's gradients: the data's (data_req) and the grid's (grid_req).
template <typename xpu, typename DType>
void SampleGradients(mshadow::Stream<xpu>* s, OpReqType data_req, OpReqType grid_req,
                     DType* data_grad, DType* grid_grad, const DType* out_grad, const DType* data,
                     const DType* grid, const SamplerGeometry& g) {
  const index_t positions = g.out_height * g.out_width;
  OPS_REQ_SWITCH(data_req, kReq, {
    Kernel<bilinear_data_gradient<kReq>, xpu>::LaunchItems(
        s, g.batch * g.channels, g.height * g.width + 8 * positions, data_grad, out_grad, grid,
        g);
  });
  OPS_REQ_SWITCH(grid_req, kReq, {
    Kernel<bilinear_grid_gradient<kReq>, xpu>::LaunchItems(
        s, g.batch * positions, 8 * g.channels, grid_grad, out_grad, data, grid, g);
  });
}

// GridGenerator: input data; output the grid. Backward: input out_grad; output data's.
template <typename xpu, bool kBackward>
void GridGeneratorCompute(const NodeAttrs& attrs, const OpContext& ctx,
                          const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                          const std::vector<TBlob>& out) {
  const GridGeneratorParam& p = GetParam<GridGeneratorParam>(attrs);
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  const TShape& grid = kBackward ? in[0].shape_ : out[0].shape_;
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    if (p.transform_type == kAffine) {
      if constexpr (kBackward) {
        AffineGridGradient<xpu>(s, req[0], out[0].dptr<DType>(), in[0].dptr<DType>(), grid[0],
                                grid[2], grid[3]);
      } else {
        AffineGrid<xpu>(s, req[0], out[0].dptr<DType>(), in[0].dptr<DType>(), grid[0], grid[2],
                        grid[3]);
      }
    } else {
      OPS_REQ_SWITCH(req[0], kReq, {
        Kernel<warp_grid<kReq, kBackward>, xpu>::Launch(
            s, out[0].Size(), out[0].dptr<DType>(), in[0].dptr<DType>(), grid[2], grid[3]);
      });
    }
  });
}

// BilinearSampler: inputs data, grid; output out. Backward: inputs out_grad, data, grid;
// outputs the data's and the grid's gradients.
template <typename xpu>
void BilinearSamplerCompute(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                            const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    Sample<xpu>(ctx.get_stream<xpu>(), req[0], out[0].dptr<DType>(), in[0].dptr<DType>(),
                in[1].dptr<DType>(), SamplerGeometryOf(in[0].shape_, in[1].shape_));
  });
}

template <typename xpu>
void BilinearSamplerBackwardCompute(const NodeAttrs&, const OpContext& ctx,
                                    const std::vector<TBlob>& in,
                                    const std::vector<OpReqType>& req,
                                    const std::vector<TBlob>& out) {
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    SampleGradients<xpu>(ctx.get_stream<xpu>(), req[0], req[1], out[0].dptr<DType>(),
                         out[1].dptr<DType>(), in[0].dptr<DType>(), in[1].dptr<DType>(),
                         in[2].dptr<DType>(), SamplerGeometryOf(in[1].shape_, in[2].shape_));
  });
}

// SpatialTransformer: inputs data, loc; output out. The grid lives in the temporary space.
template <typename xpu>
void SpatialTransformerCompute(const NodeAttrs&, const OpContext& ctx,
                               const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                               const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  const TShape& y = out[0].shape_;
  const TShape grid_shape{y[0], 2, y[2], y[3]};
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    DType* grid = ctx.requested[0]
                      .get_space_typed<xpu, 1, DType>(mshadow::Shape1(grid_shape.Size()), s)
                      .dptr_;
    AffineGrid<xpu>(s, kWriteTo, grid, in[1].dptr<DType>(), y[0], y[2], y[3]);
    Sample<xpu>(s, req[0], out[0].dptr<DType>(), in[0].dptr<DType>(), grid,
                SamplerGeometryOf(in[0].shape_, grid_shape));
  });
}

// Backward: inputs out_grad, data, loc; outputs the data's and loc's gradients. The grid and
// its gradient live in the temporary space.
template <typename xpu>
void SpatialTransformerBackwardCompute(const NodeAttrs&, const OpContext& ctx,
                                       const std::vector<TBlob>& in,
                                       const std::vector<OpReqType>& req,
                                       const std::vector<TBlob>& out) {
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  const TShape& y = in[0].shape_;
  const TShape grid_shape{y[0], 2, y[2], y[3]};
  const index_t grid_size = grid_shape.Size();
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    DType* grid =
        ctx.requested[0].get_space_typed<xpu, 1, DType>(mshadow::Shape1(2 * grid_size), s).dptr_;
    DType* grid_grad = grid + grid_size;
    AffineGrid<xpu>(s, kWriteTo, grid, in[2].dptr<DType>(), y[0], y[2], y[3]);
    SampleGradients<xpu>(s, req[0], req[1] == kNullOp ? kNullOp : kWriteTo, out[0].dptr<DType>(),
                         grid_grad, in[0].dptr<DType>(), in[1].dptr<DType>(), grid,
                         SamplerGeometryOf(in[1].shape_, grid_shape));
    AffineGridGradient<xpu>(s, req[1], out[1].dptr<DType>(), grid_grad, y[0], y[2], y[3]);
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
