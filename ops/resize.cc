// _contrib_BilinearResize2D and _contrib_AdaptiveAvgPooling2D: NCHW images resized by
// bilinear interpolation or averaged over adaptive bins. Output shapes are here; the
// computation, for every device: resize-inl.h; FCompute<gpu>: resize.cu.
#include <sstream>
#include <string>
#include <vector>

#include "ops/infer_util.h"
#include "ops/resize-inl.h"

namespace ops {
namespace resize {

DMLC_REGISTER_PARAMETER(BilinearResizeParam);
DMLC_REGISTER_PARAMETER(AdaptiveAvgPoolingParam);

namespace {

void CheckImages(const TShape& data) {
  if (data.ndim() != 4) {
    std::ostringstream os;
    os << "data must be images (batch, channels, height, width), got " << data;
    throw dmlc::Error(os.str());
  }
}

// One output extent of BilinearResize2D from the input's `extent`, as MXNet's modes say.
index_t ResizedExtent(const BilinearResizeParam& p, index_t extent, index_t size,
                      const dmlc::optional<float>& scale, const char* axis) {
  const bool odd = extent % 2 == 1;
  index_t result = size;
  switch (p.mode) {
    case kSize:
      if (scale.has_value()) result = static_cast<index_t>(scale.value() * extent);
      break;
    case kOddScale:
      if (!scale.has_value()) {
        throw dmlc::Error(std::string("mode odd_scale needs scale_") + axis);
      }
      result = odd ? static_cast<index_t>((extent - 1) * scale.value()) + 1
                   : static_cast<index_t>(extent * scale.value());
      break;
    case kToEvenDown:
      result = odd ? extent - 1 : extent;
      break;
    case kToEvenUp:
      result = odd ? extent + 1 : extent;
      break;
    case kToOddDown:
      result = odd ? extent : extent - 1;
      break;
    case kToOddUp:
      result = odd ? extent : extent + 1;
      break;
    default:
      break;
  }
  if (result < 1) {
    std::ostringstream os;
    os << "the output " << axis << " would be " << result << " (input " << axis << " " << extent
       << "); it must be at least 1";
    throw dmlc::Error(os.str());
  }
  return result;
}

bool BilinearResizeShape(const NodeAttrs& attrs, std::vector<TShape>* in,
                         std::vector<TShape>* out) {
  for (const TShape& s : *in) {
    if (!ShapeIsKnown(s)) return false;
  }
  const BilinearResizeParam& p = GetParam<BilinearResizeParam>(attrs);
  const TShape& data = (*in)[0];
  CheckImages(data);
  TShape result = data;
  if (p.mode == kLike) {
    const TShape& like = (*in)[1];
    if (like.ndim() != 4) {
      std::ostringstream os;
      os << "like must be images (batch, channels, height, width), got " << like;
      throw dmlc::Error(os.str());
    }
    result[2] = like[2];
    result[3] = like[3];
  } else {
    result[2] = ResizedExtent(p, data[2], p.height, p.scale_height, "height");
    result[3] = ResizedExtent(p, data[3], p.width, p.scale_width, "width");
  }
  if (data[2] == 0 || data[3] == 0) {
    std::ostringstream os;
    os << "data " << data << " has no pixels to interpolate";
    throw dmlc::Error(os.str());
  }
  AssignOutputShape(out, 0, result);
  return true;
}

bool AdaptiveAvgPoolingShape(const NodeAttrs& attrs, std::vector<TShape>* in,
                             std::vector<TShape>* out) {
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  CheckImages(data);
  const TShape& size = GetParam<AdaptiveAvgPoolingParam>(attrs).output_size;
  std::ostringstream os;
  if (size.ndim() > 2 || (size.ndim() > 0 && (size[0] < 1 || size[size.ndim() - 1] < 1))) {
    os << "output_size " << size << " must be (), (extent) or (height, width), each at least 1";
    throw dmlc::Error(os.str());
  }
  if (data[2] == 0 || data[3] == 0) {
    os << "data " << data << " has no pixels to average";
    throw dmlc::Error(os.str());
  }
  TShape result = data;
  result[2] = size.ndim() == 0 ? 1 : size[0];
  result[3] = size.ndim() == 0 ? 1 : size[size.ndim() - 1];
  AssignOutputShape(out, 0, result);
  return true;
}

uint32_t BilinearInputs(const NodeAttrs& attrs) {
  return GetParam<BilinearResizeParam>(attrs).mode == kLike ? 2 : 1;
}

std::vector<std::string> BilinearInputNames(const NodeAttrs& attrs) {
  if (BilinearInputs(attrs) == 2) return {"data", "like"};
  return {"data"};
}

const bool kRegistered = [] {
  RegisterOp("_contrib_BilinearResize2D")
      .describe(
          "Bilinear interpolation of images (N, C, H, W) to (N, C, h, w), h and w as `mode` "
          "says (height/width, the scales, like's, or the nearest even or odd extents).")
      .set_num_inputs(BilinearInputs)
      .set_num_outputs(1)
      .add_argument("data", "NDArray-or-Symbol", "The images.")
      .add_argument("like", "NDArray-or-Symbol", "Mode like: images of the output's size.")
      .add_arguments(BilinearResizeParam::__FIELDS__())
      .set_attr_parser(ParamParser<BilinearResizeParam>)
      .set_attr<FListInputNames>("FListInputNames", BilinearInputNames)
      .set_attr<FInferShape>("FInferShape", BilinearResizeShape)
      .set_attr<FInferType>("FInferType", SameRealType)
      .set_attr<FGradient>("FGradient",
                           FGradient{"_backward_contrib_BilinearResize2D", false, false});
  RegisterOp("_backward_contrib_BilinearResize2D")
      .describe("Gradient of _contrib_BilinearResize2D (zeros for like).")
      .set_num_inputs(1)
      .set_num_outputs(BilinearInputs)
      .set_attr<bool>("TIsBackward", true)
      .set_attr_parser(ParamParser<BilinearResizeParam>);
  RegisterOp("_contrib_AdaptiveAvgPooling2D")
      .describe(
          "Average pooling of images (N, C, H, W) to (N, C, h, w) over adaptive bins: output "
          "row i averages input rows [floor(i H / h), ceil((i + 1) H / h)), columns alike.")
      .set_num_inputs(1)
      .set_num_outputs(1)
      .add_argument("data", "NDArray-or-Symbol", "The images.")
      .add_arguments(AdaptiveAvgPoolingParam::__FIELDS__())
      .set_attr_parser(ParamParser<AdaptiveAvgPoolingParam>)
      .set_attr<FInferShape>("FInferShape", AdaptiveAvgPoolingShape)
      .set_attr<FInferType>("FInferType", ElemwiseRealType<1, 1>)
      .set_attr<FGradient>("FGradient",
                           FGradient{"_backward_contrib_AdaptiveAvgPooling2D", false, false});
  RegisterOp("_backward_contrib_AdaptiveAvgPooling2D")
      .describe("Gradient of _contrib_AdaptiveAvgPooling2D: each bin's share spread over it.")
      .set_num_inputs(1)
      .set_num_outputs(1)
      .set_attr<bool>("TIsBackward", true)
      .set_attr_parser(ParamParser<AdaptiveAvgPoolingParam>);
  SetResizeCompute<cpu>();
  return true;
}();

}  // namespace
}  // namespace resize
}  // namespace ops
