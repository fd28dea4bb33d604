// Crop(num_args, offset, h_w, center_crop): images (N, C, H, W) cut to a window of h_w or of
// crop_like's height and width. The window and shapes are here; the computation, for every
// device: crop-inl.h; FCompute<gpu>: crop.cu.
#include <sstream>
#include <string>
#include <vector>

#include "ops/crop-inl.h"
#include "ops/infer_util.h"

namespace ops {
namespace crop {

DMLC_REGISTER_PARAMETER(CropParam);

Window WindowOf(const CropParam& param, const TShape& data, const TShape& crop_like) {
  std::ostringstream os;
  if (data.ndim() != 4) {
    os << "data must be images (batch, channels, height, width), got " << data;
    throw dmlc::Error(os.str());
  }
  TShape size = param.h_w;
  if (param.num_args == 2) {
    if (crop_like.ndim() < 4) {
      os << "crop_like must have 4 axes (its last two are the window's height and width), got "
         << crop_like;
      throw dmlc::Error(os.str());
    }
    size = TShape{crop_like[2], crop_like[3]};
  } else if (size.ndim() != 2 || size[0] < 1 || size[1] < 1) {
    os << "h_w " << size << " must be a height and a width of at least 1 (one input)";
    throw dmlc::Error(os.str());
  }
  if (size[0] > data[2] || size[1] > data[3]) {
    os << "the window " << size << " is larger than the images' height and width (" << data[2]
       << "," << data[3] << ")";
    throw dmlc::Error(os.str());
  }
  Window window;
  window.shape = TShape{data[0], data[1], size[0], size[1]};
  if (param.center_crop) {
    window.y = (data[2] - size[0]) / 2;
    window.x = (data[3] - size[1]) / 2;
    return window;
  }
  if (param.offset.ndim() != 2 || param.offset[0] < 0 || param.offset[1] < 0 ||
      param.offset[0] + size[0] > data[2] || param.offset[1] + size[1] > data[3]) {
    os << "offset " << param.offset << " puts the window " << size << " outside the images' "
       << "height and width (" << data[2] << "," << data[3] << "); valid: (0..."
       << data[2] - size[0] << ", 0..." << data[3] - size[1] << ")";
    throw dmlc::Error(os.str());
  }
  window.y = param.offset[0];
  window.x = param.offset[1];
  return window;
}

namespace {

uint32_t NumArgs(const NodeAttrs& attrs) {
  return static_cast<uint32_t>(GetParam<CropParam>(attrs).num_args);
}

std::vector<std::string> InputNames(const NodeAttrs& attrs) {
  if (NumArgs(attrs) == 2) return {"data", "crop_like"};
  return {"data"};
}

bool CropShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  for (const TShape& s : *in) {
    if (!ShapeIsKnown(s)) return false;
  }
  const TShape crop_like = in->size() == 2 ? (*in)[1] : TShape();
  AssignOutputShape(out, 0, WindowOf(GetParam<CropParam>(attrs), (*in)[0], crop_like).shape);
  return true;
}

const bool kRegistered = [] {
  RegisterOp("Crop")
      .describe(
          "Images (N, C, H, W) cut to a window of (h, w), h_w or the height and width of "
          "crop_like (axes 2 and 3), at `offset` (y, x) or centred: (N, C, h, w). Deprecated "
          "in MXNet for slice.")
      .set_num_inputs(NumArgs)
      .set_num_outputs(1)
      .add_argument("data", "NDArray-or-Symbol[]", "The images, and crop_like with num_args 2.")
      .add_arguments(CropParam::__FIELDS__())
      .set_attr_parser(ParamParser<CropParam>)
      .set_attr<FListInputNames>("FListInputNames", InputNames)
      .set_attr<FInferShape>("FInferShape", CropShape)
      .set_attr<FInferType>("FInferType", SameRealType)
      .set_attr<FGradient>("FGradient", FGradient{"_backward_Crop", false, false});
  RegisterOp("_backward_Crop")
      .describe("Gradient of Crop: the output gradient in the window, zeros around it.")
      .set_num_inputs(1)
      .set_num_outputs(NumArgs)
      .set_attr<bool>("TIsBackward", true)
      .set_attr_parser(ParamParser<CropParam>);
  SetCropCompute<cpu>();
  return true;
}();

}  // namespace
}  // namespace crop
}  // namespace ops
