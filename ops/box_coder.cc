// _contrib_box_encode and _contrib_box_decode (box_coder-inl.h): shape inference and the CPU
// registration; FCompute<gpu>: box_coder.cu.
#include <sstream>
#include <string>
#include <vector>

#include "ops/box_coder-inl.h"
#include "ops/registration_util.h"

namespace ops {
namespace box_coder {

DMLC_REGISTER_PARAMETER(BoxDecodeParam);

namespace {

// `shape` must equal `expected`: otherwise a dmlc::Error naming the operator and the input.
void ExpectShape(const char* op, const char* input, const TShape& shape, const TShape& expected,
                 const char* meaning) {
  if (shape == expected) return;
  std::ostringstream os;
  os << op << ": " << input << " " << shape << " must be " << expected << " (" << meaning << ")";
  throw dmlc::Error(os.str());
}

// samples and matches (B, N), anchors (B, N, 4), refs (B, M, 4), means and stds (4); both
// outputs (B, N, 4).
bool BoxEncodeShape(const NodeAttrs&, std::vector<TShape>* in, std::vector<TShape>* out) {
  for (const TShape& s : *in) {
    if (!ShapeIsKnown(s)) return false;
  }
  const char* op = "_contrib_box_encode";
  const TShape& samples = (*in)[0];
  if (samples.ndim() != 2) {
    std::ostringstream os;
    os << op << ": samples " << samples << " must be (B, N)";
    throw dmlc::Error(os.str());
  }
  const index_t b = samples[0], n = samples[1];
  ExpectShape(op, "matches", (*in)[1], samples, "the samples' shape");
  ExpectShape(op, "anchors", (*in)[2], TShape{b, n, 4}, "a corner box per sample");
  const TShape& refs = (*in)[3];
  if (!(refs.ndim() == 3 && refs[0] == b && refs[2] == 4)) {
    std::ostringstream os;
    os << op << ": refs " << refs << " must be (" << b << ", M, 4): corner boxes per batch";
    throw dmlc::Error(os.str());
  }
  ExpectShape(op, "means", (*in)[4], TShape{4}, "one per offset");
  ExpectShape(op, "stds", (*in)[5], TShape{4}, "one per offset");
  AssignOutputShape(out, 0, TShape{b, n, 4});
  AssignOutputShape(out, 1, TShape{b, n, 4});
  return true;
}

// data (B, N, 4), anchors (1, N, 4); the boxes (B, N, 4).
bool BoxDecodeShape(const NodeAttrs&, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  if (!(data.ndim() == 3 && data[2] == 4)) {
    std::ostringstream os;
    os << "_contrib_box_decode: data " << data << " must be (B, N, 4): four offsets per box";
    throw dmlc::Error(os.str());
  }
  AssignInputShape(in, 1, TShape{1, data[1], 4});
  AssignOutputShape(out, 0, data);
  return true;
}

const bool kRegistered = [] {
  Op& encode = RegisterOp("_contrib_box_encode");
  encode
      .describe(
          "Training targets of anchors (B, N, 4) for their matched references refs (B, M, 4), "
          "corner boxes: ((x - ax) / aw, (y - ay) / ah, log(w / aw), log(h / ah)) of the "
          "centres and sizes, less means and over stds, where samples is positive (above "
          "0.5), 0 elsewhere; and masks, 1 at the positive samples' targets.")
      .set_num_inputs(6)
      .set_num_outputs(2)
      .add_argument("samples", "NDArray-or-Symbol", "(B, N): +1 positive, -1 negative, 0 ignore.")
      .add_argument("matches", "NDArray-or-Symbol", "(B, N): each anchor's row of refs.")
      .add_argument("anchors", "NDArray-or-Symbol", "(B, N, 4) corner boxes.")
      .add_argument("refs", "NDArray-or-Symbol", "(B, M, 4) corner boxes.")
      .add_argument("means", "NDArray-or-Symbol", "(4,) subtracted from the offsets.")
      .add_argument("stds", "NDArray-or-Symbol", "(4,) dividing the offsets.")
      .set_attr<FInferShape>("FInferShape", BoxEncodeShape)
      .set_attr<FInferType>("FInferType", SameRealType);
  SetZeroGradient(encode, "_backward_contrib_box_encode", nullptr);
  SetBoxCoderCompute<cpu>();
  return true;
}();

}  // namespace

OPS_REGISTER_OP(_contrib_box_decode)
    .describe(
        "Corner boxes (B, N, 4) from offsets data (B, N, 4) of anchors (1, N, 4): centre "
        "(std0 * d0 * aw + ax, std1 * d1 * ah + ay), size (exp(std2 * d2) * aw, exp(std3 * d3) "
        "* ah), the scaled size offsets at most clip when it is above 0.")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "(B, N, 4) offsets.")
    .add_argument("anchors", "NDArray-or-Symbol", "(1, N, 4) boxes in format.")
    .add_arguments(BoxDecodeParam::__FIELDS__())
    .set_attr_parser(ParamParser<BoxDecodeParam>)
    .set_attr<FInferShape>("FInferShape", BoxDecodeShape)
    .set_attr<FInferType>("FInferType", SameRealType)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_contrib_box_decode", true, false});

OPS_REGISTER_OP(_backward_contrib_box_decode)
    .describe("Gradient of _contrib_box_decode in the offsets and the anchors.")
    .set_num_inputs(3)
    .set_num_outputs(2)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<BoxDecodeParam>);

}  // namespace box_coder
}  // namespace ops
