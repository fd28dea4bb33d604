// GridGenerator, BilinearSampler and SpatialTransformer (the spatial transformer network's
// operators) and their backward operators: parameters, shape and type inference. Kernels,
// for every device: spatial_transformer-inl.h; FCompute<gpu>: spatial_transformer.cu.
#include <sstream>
#include <string>
#include <vector>

#include "ops/registration_util.h"
#include "ops/spatial_transformer-inl.h"

namespace ops {
namespace spatial_transformer {
namespace {

// An affine grid's (H, W): two extents of at least 2 (a grid of one position has no span
// from -1 to 1; MXNet 1.9.1 fills it with NaN).
void CheckTargetShape(const char* op, const TShape& target) {
  if (target.ndim() != 2 || target[0] < 2 || target[1] < 2) {
    std::ostringstream os;
    os << op << ": target_shape " << target << " is not valid; valid: (H, W), each at least 2";
    throw dmlc::ParamError(os.str());
  }
}

void ParseGridGenerator(NodeAttrs* attrs) {
  ParamParser<GridGeneratorParam>(attrs);
  const GridGeneratorParam& p = GetParam<GridGeneratorParam>(*attrs);
  if (p.transform_type == kAffine) CheckTargetShape("GridGenerator", p.target_shape);
}

void ParseSpatialTransformer(NodeAttrs* attrs) {
  ParamParser<SpatialTransformerParam>(attrs);
  CheckTargetShape("SpatialTransformer", GetParam<SpatialTransformerParam>(*attrs).target_shape);
}

[[noreturn]] void ShapeError(const char* op, const char* input, const TShape& shape,
                             const char* valid) {
  std::ostringstream os;
  os << op << ": " << input << " has shape " << shape << "; valid: " << valid;
  throw dmlc::Error(os.str());
}

bool GridGeneratorShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const GridGeneratorParam& p = GetParam<GridGeneratorParam>(attrs);
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  if (p.transform_type == kAffine) {
    if (data.ndim() != 2 || data[1] != 6) {
      ShapeError("GridGenerator", "data", data, "(N, 6) for affine: a 2x3 matrix per image");
    }
    AssignOutputShape(out, 0, TShape{data[0], 2, p.target_shape[0], p.target_shape[1]});
  } else {
    if (data.ndim() != 4 || data[1] != 2 || data[2] < 2 || data[3] < 2) {
      ShapeError("GridGenerator", "data", data,
                 "(N, 2, H, W) for warp, H and W at least 2: a flow (x, y) per position");
    }
    AssignOutputShape(out, 0, data);
  }
  return true;
}

bool BilinearSamplerShape(const NodeAttrs&, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape &data = (*in)[0], &grid = (*in)[1];
  if (!ShapeIsKnown(data) || !ShapeIsKnown(grid)) return false;
  if (data.ndim() != 4) ShapeError("BilinearSampler", "data", data, "(N, C, H, W)");
  if (grid.ndim() != 4 || grid[1] != 2 || grid[0] != data[0]) {
    std::ostringstream valid;
    valid << "(" << data[0] << ", 2, Ho, Wo): the data's batch, then (x, y) per position";
    ShapeError("BilinearSampler", "grid", grid, valid.str().c_str());
  }
  AssignOutputShape(out, 0, TShape{data[0], data[1], grid[2], grid[3]});
  return true;
}

bool SpatialTransformerShape(const NodeAttrs& attrs, std::vector<TShape>* in,
                             std::vector<TShape>* out) {
  const TShape& target = GetParam<SpatialTransformerParam>(attrs).target_shape;
  const TShape &data = (*in)[0], &loc = (*in)[1];
  if (!ShapeIsKnown(data) || !ShapeIsKnown(loc)) return false;
  if (data.ndim() != 4) ShapeError("SpatialTransformer", "data", data, "(N, C, H, W)");
  if (loc.ndim() != 2 || loc[1] != 6 || loc[0] != data[0]) {
    std::ostringstream valid;
    valid << "(" << data[0] << ", 6): a 2x3 affine matrix per image";
    ShapeError("SpatialTransformer", "loc", loc, valid.str().c_str());
  }
  AssignOutputShape(out, 0, TShape{data[0], data[1], target[0], target[1]});
  return true;
}

const bool kRegistered = [] {
  SetSpatialTransformerCompute<cpu>();
  return true;
}();

}  // namespace

DMLC_REGISTER_PARAMETER(GridGeneratorParam);
DMLC_REGISTER_PARAMETER(BilinearSamplerParam);
DMLC_REGISTER_PARAMETER(SpatialTransformerParam);

OPS_REGISTER_OP(GridGenerator)
    .describe(
        "A sampling grid (N, 2, H, W) of positions on [-1, 1] (x first): affine, each "
        "image's 2x3 matrix times (x, y, 1) over the target_shape grid (x = -1 + 2w / (W "
        "- 1)); warp, each position (w, h) plus the flow, scaled to [-1, 1].")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol",
                  "Affine matrices (N, 6), or an optical flow (N, 2, H, W) in positions.")
    .add_arguments(GridGeneratorParam::__FIELDS__())
    .set_attr_parser(ParseGridGenerator)
    .set_attr<FInferShape>("FInferShape", GridGeneratorShape)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<1, 1>)
    .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_GridGenerator", false, false});

OPS_REGISTER_OP(_backward_GridGenerator)
    .describe("Gradient of GridGenerator.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParseGridGenerator)
    .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace);

OPS_REGISTER_OP(BilinearSampler)
    .describe(
        "The data (N, C, H, W) sampled bilinearly at a grid (N, 2, Ho, Wo) of positions "
        "on [-1, 1] (x first; -1 the first row or column, 1 the last), 0 outside the "
        "data: output (N, C, Ho, Wo).")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "The data to sample (N, C, H, W).")
    .add_argument("grid", "NDArray-or-Symbol", "Where to sample: (N, 2, Ho, Wo), (x, y).")
    .add_arguments(BilinearSamplerParam::__FIELDS__())
    .set_attr_parser(ParamParser<BilinearSamplerParam>)
    .set_attr<FInferShape>("FInferShape", BilinearSamplerShape)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<2, 1>)
    .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_BilinearSampler", true, false});

OPS_REGISTER_OP(_backward_BilinearSampler)
    .describe("Gradient of BilinearSampler: the data's and the grid's.")
    .set_num_inputs(3)
    .set_num_outputs(2)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<BilinearSamplerParam>)
    .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace);

OPS_REGISTER_OP(SpatialTransformer)
    .describe(
        "GridGenerator (affine, target_shape) on loc, then BilinearSampler of data at "
        "that grid: output (N, C, H, W) of target_shape.")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "The data to transform (N, C, H, W).")
    .add_argument("loc", "NDArray-or-Symbol", "A 2x3 affine matrix per image (N, 6).")
    .add_arguments(SpatialTransformerParam::__FIELDS__())
    .set_attr_parser(ParseSpatialTransformer)
    .set_attr<FInferShape>("FInferShape", SpatialTransformerShape)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<2, 1>)
    .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_SpatialTransformer", true, false});

OPS_REGISTER_OP(_backward_SpatialTransformer)
    .describe("Gradient of SpatialTransformer: the data's and loc's.")
    .set_num_inputs(3)
    .set_num_outputs(2)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParseSpatialTransformer)
    .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace);

}  // namespace spatial_transformer
}  // namespace ops
