// _contrib_MultiBoxPrior and _contrib_box_iou: SSD's anchor boxes and the overlap of two sets of
// boxes. Parameters' checks and shapes are here; the computation, for every device:
// bounding_box-inl.h; FCompute<gpu>: bounding_box.cu.
#include <cmath>
#include <sstream>
#include <vector>

#include "ops/bounding_box-inl.h"
#include "ops/infer_util.h"
#include "ops/registration_util.h"

namespace ops {
namespace bounding_box {

DMLC_REGISTER_PARAMETER(MultiBoxPriorParam);
DMLC_REGISTER_PARAMETER(BoxIouParam);

namespace {

// A tuple of positive values (sizes, ratios) of `min_count` to kMaxAnchors entries.
void CheckPositive(const FloatTuple& t, const char* name) {
  bool ok = t.size() > 0 && t.size() <= static_cast<size_t>(kMaxAnchors);
  for (size_t i = 0; ok && i < t.size(); ++i) ok = t[i] > 0 && std::isfinite(t[i]);
  if (!ok) {
    std::ostringstream os;
    os << name << " " << t << " must have 1 to " << kMaxAnchors << " positive, finite entries";
    throw dmlc::Error(os.str());
  }
}

void CheckPair(const FloatTuple& t, const char* name) {
  if (t.size() != 2) {
    std::ostringstream os;
    os << name << " " << t << " must be a pair (y, x)";
    throw dmlc::Error(os.str());
  }
}

void CheckMaps(const TShape& data) {
  if (data.ndim() != 4) {
    std::ostringstream os;
    os << "data must be feature maps (batch, channels, height, width), got " << data;
    throw dmlc::Error(os.str());
  }
}

}  // namespace

AnchorGeometry AnchorGeometryOf(const MultiBoxPriorParam& p, const TShape& data) {
  CheckMaps(data);
  CheckPositive(p.sizes, "sizes");
  CheckPositive(p.ratios, "ratios");
  CheckPair(p.steps, "steps");
  CheckPair(p.offsets, "offsets");
  AnchorGeometry g;
  g.height = data[2], g.width = data[3];
  g.per_position = static_cast<int>(p.sizes.size() + p.ratios.size() - 1);
  if (g.per_position > kMaxAnchors) {
    std::ostringstream os;
    os << "sizes " << p.sizes << " and ratios " << p.ratios << " make " << g.per_position
       << " anchors a position; at most " << kMaxAnchors;
    throw dmlc::Error(os.str());
  }
  g.step_y = p.steps[0] > 0 ? p.steps[0] : 1.0f / static_cast<float>(g.height);
  g.step_x = p.steps[1] > 0 ? p.steps[1] : 1.0f / static_cast<float>(g.width);
  g.offset_y = p.offsets[0], g.offset_x = p.offsets[1];
  g.clip = p.clip;
  // Every size with the first ratio, then the first size with the other ratios; half extents
  // in MXNet's float arithmetic and order.
  const auto set = [&](int k, float size, float ratio) {
    const float root = std::sqrt(ratio);
    g.half_w[k] = size * static_cast<float>(g.height) / static_cast<float>(g.width) * root / 2;
    g.half_h[k] = size / root / 2;
  };
  int k = 0;
  for (size_t i = 0; i < p.sizes.size(); ++i) set(k++, p.sizes[i], p.ratios[0]);
  for (size_t j = 1; j < p.ratios.size(); ++j) set(k++, p.sizes[0], p.ratios[j]);
  return g;
}

namespace {

bool MultiBoxPriorShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  const AnchorGeometry g = AnchorGeometryOf(GetParam<MultiBoxPriorParam>(attrs), data);
  AssignOutputShape(out, 0, TShape{1, g.height * g.width * g.per_position, 4});
  return true;
}

bool BoxIouShape(const NodeAttrs&, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape &lhs = (*in)[0], &rhs = (*in)[1];
  if (!ShapeIsKnown(lhs) || !ShapeIsKnown(rhs)) return false;
  for (const TShape* s : {&lhs, &rhs}) {
    if (s->ndim() < 1 || (*s)[s->ndim() - 1] != 4) {
      std::ostringstream os;
      os << (s == &lhs ? "lhs" : "rhs") << " must be boxes (..., 4), got " << *s;
      throw dmlc::Error(os.str());
    }
  }
  std::vector<index_t> dims(lhs.begin(), lhs.end() - 1);
  dims.insert(dims.end(), rhs.begin(), rhs.end() - 1);
  AssignOutputShape(out, 0, TShape(dims.begin(), dims.end()));
  return true;
}

const bool kRegistered = [] {
  Op& prior = RegisterOp("_contrib_MultiBoxPrior");
  prior
      .describe(
          "SSD's anchor boxes over feature maps (N, C, H, W): (1, H * W * (sizes + ratios - 1), "
          "4), [xmin, ymin, xmax, ymax] as fractions of the map, for each position every size "
          "with the first ratio, then the first size with each other ratio (a width of size * "
          "H / W * sqrt(ratio), a height of size / sqrt(ratio)).")
      .set_num_inputs(1)
      .set_num_outputs(1)
      .add_argument("data", "NDArray-or-Symbol", "Feature maps; their height and width alone.")
      .add_arguments(MultiBoxPriorParam::__FIELDS__())
      .set_attr_parser(ParamParser<MultiBoxPriorParam>)
      .set_attr<FInferShape>("FInferShape", MultiBoxPriorShape)
      .set_attr<FInferType>("FInferType", ElemwiseRealType<1, 1>);
  SetZeroGradient(prior, "_backward_contrib_MultiBoxPrior", ParamParser<MultiBoxPriorParam>);
  Op& iou = RegisterOp("_contrib_box_iou");
  iou.describe(
         "The intersection over union of every pair of boxes of lhs (..., 4) and rhs (..., 4): "
         "lhs's leading axes then rhs's; 0 for boxes that do not overlap.")
      .set_num_inputs(2)
      .set_num_outputs(1)
      .add_argument("lhs", "NDArray-or-Symbol", "Boxes (..., 4).")
      .add_argument("rhs", "NDArray-or-Symbol", "Boxes (..., 4).")
      .add_arguments(BoxIouParam::__FIELDS__())
      .set_attr_parser(ParamParser<BoxIouParam>)
      .set_attr<FInferShape>("FInferShape", BoxIouShape)
      .set_attr<FInferType>("FInferType", SameRealType);
  SetZeroGradient(iou, "_backward_contrib_box_iou", ParamParser<BoxIouParam>);
  SetBoundingBoxCompute<cpu>();
  return true;
}();

}  // namespace
}  // namespace bounding_box
}  // namespace ops
