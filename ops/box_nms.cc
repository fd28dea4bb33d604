// _contrib_box_nms (and _contrib_box_non_maximum_suppression): non-maximum suppression of
// detected boxes, and its backward operator. Parameters and shapes are checked here; the
// computation, for every device: box_nms-inl.h; FCompute<gpu>: box_nms.cu.
#include <sstream>
#include <string>
#include <vector>

#include "ops/box_nms-inl.h"
#include "ops/infer.h"
#include "ops/infer_util.h"

namespace ops {
namespace bounding_box {

DMLC_REGISTER_PARAMETER(BoxNmsParam);

NmsLayout NmsLayoutOf(const BoxNmsParam& p, const TShape& data) {
  const int ndim = static_cast<int>(data.ndim());
  if (ndim < 2) {
    throw dmlc::Error("data must be boxes (..., N, K), at least two axes, got " + ShapeText(data));
  }
  NmsLayout l;
  l.items = data.ProdShape(0, ndim - 2);
  l.boxes = data[ndim - 2];
  l.width = data[ndim - 1];
  const auto check_index = [&](const char* name, int value, int lowest, int end) {
    if (value < lowest || value >= end) {
      std::ostringstream os;
      os << name << " " << value << " is outside the boxes of width " << l.width << " (data "
         << data << "); valid: [" << lowest << ", " << end - 1 << "]";
      throw dmlc::Error(os.str());
    }
  };
  const int width = static_cast<int>(l.width);
  check_index("coord_start", p.coord_start, 0, width - 3);
  check_index("score_index", p.score_index, 0, width);
  check_index("id_index", p.id_index, -1, width);
  if (l.boxes > (index_t{1} << 31) - 1) {
    throw dmlc::Error("data holds " + std::to_string(l.boxes) +
                      " boxes an item; valid: at most 2^31 - 1 (positions are int32)");
  }
  l.coord_start = p.coord_start;
  l.score_index = p.score_index;
  l.id_index = p.id_index;
  l.topk = p.topk;
  l.overlap_thresh = p.overlap_thresh;
  l.valid_thresh = p.valid_thresh;
  l.background_id = p.background_id;
  l.force_suppress = p.force_suppress;
  l.in_format = p.in_format;
  l.out_format = p.out_format;
  return l;
}

namespace {

// data (..., N, K) -> out (..., N, K) and the hidden positions (..., N).
bool BoxNmsShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  NmsLayoutOf(GetParam<BoxNmsParam>(attrs), data);
  AssignOutputShape(out, 0, data);
  AssignOutputShape(out, 1, TShape(data.begin(), data.end() - 1));
  return true;
}

bool BoxNmsType(const NodeAttrs&, std::vector<int>* in, std::vector<int>* out) {
  const int data = (*in)[0];
  if (data == -1) return false;
  CheckRealType(data);
  AssignOutputType(out, 0, data);
  AssignOutputType(out, 1, mshadow::kInt32);
  return true;
}

const bool kRegistered = [] {
  SetBoxNmsCompute<cpu>();
  return true;
}();

}  // namespace

OPS_REGISTER_OP(_contrib_box_nms)
    .add_alias("_contrib_box_non_maximum_suppression")
    .describe(
        "Non-maximum suppression of the boxes of every item of data (..., N, K): the valid "
        "boxes (score > valid_thresh, not of background_id) by descending score (ties in input "
        "order), the first topk, each kept box suppressing the later ones of its class (every "
        "box with force_suppress or without id_index) whose IoU with it exceeds overlap_thresh; "
        "the kept boxes first, in out_format, then rows of -1.")
    .set_num_inputs(1)
    .set_num_outputs(2)
    .set_num_visible_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "Boxes (..., N, K).")
    .add_arguments(BoxNmsParam::__FIELDS__())
    .set_attr_parser(ParamParser<BoxNmsParam>)
    .set_attr<FInferShape>("FInferShape", BoxNmsShape)
    .set_attr<FInferType>("FInferType", BoxNmsType)
    .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace)  // the sort's orders
    .set_attr<FGradient>("FGradient", FGradient{"_backward_contrib_box_nms", false, true});

OPS_REGISTER_OP(_backward_contrib_box_nms)
    .describe(
        "Gradient of _contrib_box_nms: each kept box's gradient at its input row (through the "
        "format conversion), zero for the others.")
    .set_num_inputs(4)
    .set_num_outputs(1)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<BoxNmsParam>);

}  // namespace bounding_box
}  // namespace ops
