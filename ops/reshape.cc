// Reshape(shape) with MXNet's special values, Flatten, expand_dims, squeeze and reshape_like;
// all copy (or run in place), and their gradient is a copy back into the input's shape. Their
// computation, for every device: reshape-inl.h; FCompute<gpu>: reshape.cu.
#include <algorithm>
#include <sstream>
#include <vector>

#include "mshadow/tensor_blob.h"
#include "ops/reshape-inl.h"

namespace ops {
namespace reshape {
namespace {

struct ReshapeParam : public dmlc::Parameter<ReshapeParam> {
  TShape shape;
  bool reverse;
  TShape target_shape;
  bool keep_highest;
  DMLC_DECLARE_PARAMETER(ReshapeParam) {
    DMLC_DECLARE_FIELD(shape).set_default(TShape()).describe(
        "The target shape. Special values: 0 copies this input axis; -1 is inferred from the "
        "remaining size; -2 copies all remaining input axes; -3 merges the next two input "
        "axes; -4 splits the next input axis into the two values that follow (one may be "
        "-1).");
    DMLC_DECLARE_FIELD(reverse).set_default(false).describe(
        "Apply the special values from the last axis backwards: the input and shape are "
        "reversed, reshaped, and the result reversed.");
    DMLC_DECLARE_FIELD(target_shape)
        .set_default(TShape())
        .describe("(Deprecated: use shape.) The target shape when shape is not given; one 0 "
                  "is inferred from the remaining size.");
    DMLC_DECLARE_FIELD(keep_highest).set_default(false).describe(
        "(Deprecated: use shape.) With target_shape: the first axis stays the input's.");
  }
};

// What the user asked for, for error messages.
struct ReshapeRequest {
  const TShape& data;
  const TShape& spec;
  bool reverse;
};

[[noreturn]] void ReshapeError(const ReshapeRequest& request, const std::string& why) {
  std::ostringstream os;
  os << "cannot reshape " << request.data << " into " << request.spec
     << (request.reverse ? " with reverse=True" : "") << ": " << why;
  throw dmlc::Error(os.str());
}

// a * b, or a ReshapeError when the product does not fit in index_t.
index_t Multiply(index_t a, index_t b, const ReshapeRequest& request) {
  index_t product = 0;
  if (__builtin_mul_overflow(a, b, &product)) {
    ReshapeError(request, std::to_string(a) + " x " + std::to_string(b) + " overflows index_t");
  }
  return product;
}

// target, or a ReshapeError when its size is not the input's.
TShape CheckSize(const std::vector<index_t>& out, const ReshapeRequest& request) {
  TShape target(out.begin(), out.end());
  index_t target_size = 1;
  for (const index_t extent : out) target_size = Multiply(target_size, extent, request);
  if (target_size != request.data.Size()) {
    std::ostringstream os;
    os << "the input has " << request.data.Size() << " elements, the target shape " << target
       << " has " << target_size;
    ReshapeError(request, os.str());
  }
  return target;
}

// MXNet's reshape rules, applied to `data` from the first axis (reverse=True calls this on
// the reversed input and shape).
TShape InferTargetForward(const TShape& data, const TShape& spec,
                          const ReshapeRequest& request) {
  std::vector<index_t> out;
  index_t src = 0;
  int inferred = -1;  // the position of -1 in `out`, if any
  auto next_input_axis = [&](const char* what) {
    if (src >= data.ndim()) ReshapeError(request, std::string(what) + " runs past the input's axes");
    return data[src++];
  };
  for (index_t i = 0; i < spec.ndim(); ++i) {
    const index_t p = spec[i];
    if (p > 0) {
      out.push_back(p);
      ++src;
    } else if (p == 0) {
      out.push_back(next_input_axis("0"));
    } else if (p == -1) {
      if (inferred >= 0) ReshapeError(request, "only one -1 is allowed");
      inferred = static_cast<int>(out.size());
      out.push_back(1);
      ++src;
    } else if (p == -2) {
      while (src < data.ndim()) out.push_back(data[src++]);
    } else if (p == -3) {
      const index_t a = next_input_axis("-3");
      out.push_back(Multiply(a, next_input_axis("-3"), request));
    } else if (p == -4) {
      if (i + 2 >= spec.ndim()) ReshapeError(request, "-4 needs two values after it");
      const index_t d0 = next_input_axis("-4");
      index_t d1 = spec[i + 1], d2 = spec[i + 2];
      i += 2;
      if (d1 == -1 && d2 == -1) ReshapeError(request, "-4 can infer only one of its two values");
      if (d1 == -1 && d2 > 0 && d0 % d2 == 0) d1 = d0 / d2;
      if (d2 == -1 && d1 > 0 && d0 % d1 == 0) d2 = d0 / d1;
      index_t product = 0;
      if (d1 <= 0 || d2 <= 0 || __builtin_mul_overflow(d1, d2, &product) || product != d0) {
        std::ostringstream os;
        os << "-4 cannot split an axis of " << d0 << " into " << spec[i - 1] << " x " << spec[i];
        ReshapeError(request, os.str());
      }
      out.push_back(d1);
      out.push_back(d2);
    } else {
      ReshapeError(request, "invalid value " + std::to_string(p) +
                                   "; valid: positive extents, 0, -1, -2, -3, -4");
    }
  }
  const index_t size = data.Size();
  if (inferred >= 0) {
    index_t known = 1;
    for (size_t i = 0; i < out.size(); ++i) {
      if (static_cast<int>(i) != inferred) known = Multiply(known, out[i], request);
    }
    if (known == 0 || size % known != 0) {
      ReshapeError(request, std::to_string(size) + " elements do not divide into " +
                                   std::to_string(known));
    }
    out[inferred] = size / known;
  }
  return CheckSize(out, request);
}

TShape Reversed(const TShape& shape) {
  std::vector<index_t> dims(shape.begin(), shape.end());
  std::reverse(dims.begin(), dims.end());
  return TShape(dims.begin(), dims.end());
}

// The deprecated target_shape: one 0 inferred from the size; keep_highest keeps the first
// axis. (MXNet 1.9.1 does not check the size; here a mismatch is an error.)
TShape InferLegacyTarget(const TShape& data, const ReshapeParam& param) {
  const ReshapeRequest request{data, param.target_shape, false};
  std::vector<index_t> out(param.target_shape.begin(), param.target_shape.end());
  if (param.keep_highest) out[0] = data.ndim() > 0 ? data[0] : 1;
  int inferred = -1;
  index_t known = 1;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] < 0) {
      ReshapeError(request, "invalid target_shape value " + std::to_string(out[i]) +
                                "; valid: positive extents and one 0");
    }
    if (out[i] == 0) {
      if (inferred >= 0) ReshapeError(request, "target_shape may infer only one 0");
      inferred = static_cast<int>(i);
    } else {
      known = Multiply(known, out[i], request);
    }
  }
  if (inferred >= 0) out[inferred] = data.Size() / known;
  return CheckSize(out, request);
}

TShape InferTarget(const TShape& data, const ReshapeParam& param) {
  if (param.shape.ndim() == 0) {
    if (param.target_shape.ndim() == 0) {
      std::ostringstream os;
      os << "Reshape: no target shape for " << data << "; give shape (or the deprecated "
         << "target_shape)";
      throw dmlc::Error(os.str());
    }
    return InferLegacyTarget(data, param);
  }
  const ReshapeRequest request{data, param.shape, param.reverse};
  if (!param.reverse) return InferTargetForward(data, param.shape, request);
  return Reversed(InferTargetForward(Reversed(data), Reversed(param.shape), request));
}

bool ReshapeShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  if (!ShapeIsKnown((*in)[0])) return false;
  AssignOutputShape(out, 0, InferTarget((*in)[0], GetParam<ReshapeParam>(attrs)));
  return true;
}

bool FlattenShape(const NodeAttrs&, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  AssignOutputShape(out, 0, TShape{data[0], data.ProdShape(1, static_cast<int>(data.ndim()))});
  return true;
}

struct ExpandDimsParam : public dmlc::Parameter<ExpandDimsParam> {
  int axis;
  DMLC_DECLARE_PARAMETER(ExpandDimsParam) {
    DMLC_DECLARE_FIELD(axis).describe(
        "Where the new axis goes, in [-ndim-1, ndim]; negative counts from the end.");
  }
};

struct SqueezeParam : public dmlc::Parameter<SqueezeParam> {
  dmlc::optional<TShape> axis;
  DMLC_DECLARE_PARAMETER(SqueezeParam) {
    DMLC_DECLARE_FIELD(axis)
        .set_default(dmlc::optional<TShape>())
        .describe("The axes to remove, each of extent 1; None removes every axis of extent 1.");
  }
};

bool ExpandDimsShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  const int ndim = static_cast<int>(data.ndim());
  const int axis = NormalizeAxis(GetParam<ExpandDimsParam>(attrs).axis, ndim + 1);
  std::vector<index_t> dims(data.begin(), data.end());
  dims.insert(dims.begin() + axis, 1);
  AssignOutputShape(out, 0, TShape(dims.begin(), dims.end()));
  return true;
}

// As MXNet: removing every axis leaves shape (1,).
bool SqueezeShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  const int ndim = static_cast<int>(data.ndim());
  std::vector<bool> removed(ndim, false);
  const dmlc::optional<TShape>& axes = GetParam<SqueezeParam>(attrs).axis;
  if (!axes.has_value()) {
    for (int a = 0; a < ndim; ++a) removed[a] = data[a] == 1;
  } else {
    for (const index_t given : axes.value()) {
      const int a = NormalizeAxis(given, ndim);
      if (data[a] != 1) {
        std::ostringstream os;
        os << "cannot squeeze axis " << given << " of " << data << ": its extent is " << data[a]
           << ", not 1";
        throw dmlc::Error(os.str());
      }
      removed[a] = true;
    }
  }
  std::vector<index_t> dims;
  for (int a = 0; a < ndim; ++a) {
    if (!removed[a]) dims.push_back(data[a]);
  }
  if (dims.empty()) dims.push_back(1);
  AssignOutputShape(out, 0, TShape(dims.begin(), dims.end()));
  return true;
}

struct ReshapeLikeParam : public dmlc::Parameter<ReshapeLikeParam> {
  dmlc::optional<int> lhs_begin, lhs_end, rhs_begin, rhs_end;
  DMLC_DECLARE_PARAMETER(ReshapeLikeParam) {
    DMLC_DECLARE_FIELD(lhs_begin)
        .set_default(dmlc::optional<int>())
        .describe("First axis of lhs to replace (None: 0; negative counts from the end).");
    DMLC_DECLARE_FIELD(lhs_end)
        .set_default(dmlc::optional<int>())
        .describe("Past the last axis of lhs to replace (None: lhs's rank).");
    DMLC_DECLARE_FIELD(rhs_begin)
        .set_default(dmlc::optional<int>())
        .describe("First axis of rhs whose extents replace them (None: 0).");
    DMLC_DECLARE_FIELD(rhs_end)
        .set_default(dmlc::optional<int>())
        .describe("Past the last axis of rhs to take (None: rhs's rank).");
  }
};

// [begin, end) of a shape of rank ndim, from optional axes (negative count from the end), a
// range of at least one axis, as MXNet requires.
std::pair<int, int> AxisRange(const dmlc::optional<int>& begin, const dmlc::optional<int>& end,
                              int ndim, const char* begin_name, const char* end_name) {
  const int b = begin.has_value() ? NormalizeAxis(begin.value(), ndim, begin_name) : 0;
  int e = ndim;
  if (end.has_value()) {
    e = end.value() < 0 ? end.value() + ndim : end.value();
    if (e < 1 || e > ndim) {
      std::ostringstream os;
      os << end_name << " " << end.value() << " is out of range for a " << ndim
         << "-d input; valid: [" << -ndim + 1 << ", " << ndim << "]";
      throw dmlc::Error(os.str());
    }
  }
  if (b >= e) {
    std::ostringstream os;
    os << begin_name << " " << b << " must come before " << end_name << " " << e
       << " (at least one axis)";
    throw dmlc::Error(os.str());
  }
  return {b, e};
}

// lhs's shape with axes [lhs_begin, lhs_end) replaced by rhs's [rhs_begin, rhs_end); the
// same element count.
bool ReshapeLikeShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape &lhs = (*in)[0], &rhs = (*in)[1];
  if (!ShapeIsKnown(lhs) || !ShapeIsKnown(rhs)) return false;
  const ReshapeLikeParam& param = GetParam<ReshapeLikeParam>(attrs);
  const auto [lb, le] = AxisRange(param.lhs_begin, param.lhs_end, static_cast<int>(lhs.ndim()),
                                  "lhs_begin", "lhs_end");
  const auto [rb, re] = AxisRange(param.rhs_begin, param.rhs_end, static_cast<int>(rhs.ndim()),
                                  "rhs_begin", "rhs_end");
  std::vector<index_t> dims(lhs.begin(), lhs.begin() + lb);
  dims.insert(dims.end(), rhs.begin() + rb, rhs.begin() + re);
  dims.insert(dims.end(), lhs.begin() + le, lhs.end());
  const TShape shape(dims.begin(), dims.end());
  if (lhs.ProdShape(lb, le) != rhs.ProdShape(rb, re)) {
    std::ostringstream os;
    os << "reshape_like: lhs " << lhs << " cannot take the shape " << shape << " ("
       << lhs.ProdShape(lb, le) << " elements of axes [" << lb << ", " << le << ") against "
       << rhs.ProdShape(rb, re) << " of rhs " << rhs << "'s [" << rb << ", " << re << "))";
    throw dmlc::Error(os.str());
  }
  AssignOutputShape(out, 0, shape);
  return true;
}

const bool kRegistered = [] {
  SetCopyCompute<cpu>();
  return true;
}();
}  // namespace

DMLC_REGISTER_PARAMETER(ReshapeParam);
DMLC_REGISTER_PARAMETER(ExpandDimsParam);
DMLC_REGISTER_PARAMETER(SqueezeParam);
DMLC_REGISTER_PARAMETER(ReshapeLikeParam);

OPS_REGISTER_OP(expand_dims)
    .describe("Inserts an axis of extent 1 at position axis.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "The input array.")
    .add_arguments(ExpandDimsParam::__FIELDS__())
    .set_attr_parser(ParamParser<ExpandDimsParam>)
    .set_attr<FInferShape>("FInferShape", ExpandDimsShape)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<1, 1>)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceFirstInput)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_copy", false, false});

OPS_REGISTER_OP(squeeze)
    .describe("Removes axes of extent 1 (the given ones, or all); removing every axis leaves "
              "shape (1,), as in MXNet.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "The input array.")
    .add_arguments(SqueezeParam::__FIELDS__())
    .set_attr_parser(ParamParser<SqueezeParam>)
    .set_attr<FInferShape>("FInferShape", SqueezeShape)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<1, 1>)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceFirstInput)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_copy", false, false});

OPS_REGISTER_OP(Reshape)
    .add_alias("reshape")
    .describe(
        "Gives the data a new shape with the same number of elements; see the shape "
        "parameter for the special values, e.g. (0,-1) keeps the first axis and folds "
        "the rest.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "The input array.")
    .add_arguments(ReshapeParam::__FIELDS__())
    .set_attr_parser(ParamParser<ReshapeParam>)
    .set_attr<FInferShape>("FInferShape", ReshapeShape)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<1, 1>)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceFirstInput)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_copy", false, false});

OPS_REGISTER_OP(Flatten)
    .add_alias("flatten")
    .describe("Folds every axis but the first: (d0, d1, ..., dk) -> (d0, d1*...*dk).")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "The input array.")
    .set_attr<FInferShape>("FInferShape", FlattenShape)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<1, 1>)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceFirstInput)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_copy", false, false});

OPS_REGISTER_OP(reshape_like)
    .describe(
        "lhs's elements in rhs's shape, or with lhs's axes [lhs_begin, lhs_end) replaced "
        "by rhs's [rhs_begin, rhs_end); rhs gets a zero gradient.")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .add_argument("lhs", "NDArray-or-Symbol", "The array whose elements are reshaped.")
    .add_argument("rhs", "NDArray-or-Symbol", "The array whose shape (or axes) it takes.")
    .add_arguments(ReshapeLikeParam::__FIELDS__())
    .set_attr_parser(ParamParser<ReshapeLikeParam>)
    .set_attr<FInferShape>("FInferShape", ReshapeLikeShape)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<2, 1>)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceFirstInput)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_reshape_like", true, false});

OPS_REGISTER_OP(_backward_reshape_like)
    .describe("Gradient of reshape_like: the output gradient in lhs's shape; zeros for rhs.")
    .set_num_inputs(3)
    .set_num_outputs(2)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<ReshapeLikeParam>);

OPS_REGISTER_OP(_copy)
    .add_alias("identity")
    .describe("The input unchanged, copied.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "The input array.")
    .set_attr<FInferShape>("FInferShape", ElemwiseShape<1, 1>)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<1, 1>)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceFirstInput)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_copy", false, false});

namespace {

// _backward_copy serves Reshape and Flatten, so it cannot infer through one forward
// operator; what holds for both is that the gradient keeps its element count.
bool SameSizeShape(const NodeAttrs&, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& grad = in->at(0);
  const TShape& input_grad = out->at(0);
  if (!ShapeIsKnown(grad) || !ShapeIsKnown(input_grad)) return false;
  if (grad.Size() != input_grad.Size()) {
    std::ostringstream os;
    os << "the output gradient " << grad << " has " << grad.Size()
       << " elements but the input gradient " << input_grad << " has " << input_grad.Size();
    throw dmlc::Error(os.str());
  }
  return true;
}

}  // namespace

OPS_REGISTER_OP(_backward_copy)
    .describe("Gradient of operators that only reshape: the output gradient, copied into the "
              "input's shape.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr<bool>("TIsBackward", true)
    .set_attr<FInferShape>("FInferShape", SameSizeShape)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<1, 1>);

}  // namespace reshape
}  // namespace ops
