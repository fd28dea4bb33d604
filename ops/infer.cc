#include "ops/infer.h"

#include <sstream>

#include "ops/backward.h"

namespace ops {
std::string ShapeText(const TShape& shape) {
  std::ostringstream os;
  os << shape;
  return os.str();
}

std::string ArgumentName(const NodeAttrs& attrs, bool is_input, size_t index) {
  if (!is_input) return "output " + std::to_string(index);
  const std::vector<std::string> names = attrs.op->ListInputNames(attrs);
  return "input '" + (index < names.size() ? names[index] : "arg" + std::to_string(index)) + "'";
}

void CheckInputCount(const NodeAttrs& attrs, size_t given) {
  const Op& op = *attrs.op;
  const uint32_t expected = op.num_inputs(attrs);
  if (given == expected) return;
  std::string names;
  for (const std::string& name : op.ListInputNames(attrs)) {
    names += (names.empty() ? "" : ", ") + name;
  }
  throw dmlc::Error(op.name + " takes " + std::to_string(expected) + " inputs (" + names +
                    "), given " + std::to_string(given));
}

index_t CheckedSize(const TShape& shape, absl::FunctionRef<std::string()> where) {
  index_t size = 1;
  for (int d = 0; d < shape.ndim(); ++d) {
    const index_t extent = shape[d];
    if (extent < 0) {
      throw dmlc::Error(where() + " has shape " + ShapeText(shape) + " with negative axis " +
                        std::to_string(d) + "; extents must be >= 0");
    }
    if (__builtin_mul_overflow(size, extent, &size)) {
      throw dmlc::Error(where() + " has shape " + ShapeText(shape) +
                        ", whose element count overflows a 64-bit index");
    }
  }
  return size;
}

std::string TypeText(int type_flag) {
  return type_flag == -1 ? "unknown" : mshadow::TypeFlagName(type_flag);
}

namespace {

template <typename T, typename ToText>
void Assign(std::vector<T>* values, bool is_input, int index, const T& value, const T& unknown,
            ToText to_text) {
  CHECK(index >= 0 && index < static_cast<int>(values->size()))
      << (is_input ? "input" : "output") << " index " << index << " out of range";
  T& slot = (*values)[index];
  if (slot == unknown) {
    slot = value;
  } else if (slot != value) {
    throw InferConflict(is_input, index, to_text(slot), to_text(value));
  }
}

// "data=(2,3), weight=()" for messages.
template <typename T, typename ToText>
std::string Listing(const std::vector<std::string>& names, const std::vector<T>& values,
                    ToText to_text) {
  std::string text;
  for (size_t i = 0; i < values.size(); ++i) {
    if (i) text += ", ";
    text += (i < names.size() ? names[i] : "arg" + std::to_string(i)) + "=" + to_text(values[i]);
  }
  return text;
}

// Runs one inference function with the checks and messages both drivers share.
template <typename T, typename Fn, typename ToText>
void RunInference(const char* what, const NodeAttrs& attrs, const Fn* infer, std::vector<T>* in,
                  std::vector<T>* out, const T& unknown, ToText to_text) {
  const Op& op = *attrs.op;
  // Input names only on the error paths: listing them allocates.
  auto names = [&] { return op.ListInputNames(attrs); };
  CheckInputCount(attrs, in->size());
  out->resize(op.num_outputs(attrs), unknown);
  CHECK(infer != nullptr) << op.name << " has no " << what << " inference function";
  bool complete;
  try {
    complete = (*infer)(attrs, in, out);
  } catch (const InferConflict& conflict) {
    throw dmlc::Error(op.name + ": " + what + " of " +
                      ArgumentName(attrs, conflict.is_input, conflict.index) + " is " +
                      conflict.given + " but " + conflict.required + " is required (inputs: " +
                      Listing(names(), *in, to_text) + ")");
  } catch (const dmlc::Error& e) {
    // Named once: messages that kernels also raise already start with the operator's name.
    const std::string message = e.what(), prefix = op.name + ": ";
    throw dmlc::Error(message.rfind(prefix, 0) == 0 ? message : prefix + message);
  }
  for (size_t i = 0; i < in->size(); ++i) {
    complete = complete && (*in)[i] != unknown;
  }
  for (size_t i = 0; i < out->size(); ++i) complete = complete && (*out)[i] != unknown;
  if (!complete) {
    throw dmlc::Error(op.name + ": cannot infer every " + what + " from the inputs given: " +
                      Listing(names(), *in, to_text));
  }
}

}  // namespace

void AssignInputShape(std::vector<TShape>* shapes, int index, const TShape& shape) {
  Assign(shapes, true, index, shape, TShape(), ShapeText);
}
void AssignOutputShape(std::vector<TShape>* shapes, int index, const TShape& shape) {
  Assign(shapes, false, index, shape, TShape(), ShapeText);
}
void AssignInputType(std::vector<int>* types, int index, int type_flag) {
  Assign(types, true, index, type_flag, -1, TypeText);
}
void AssignOutputType(std::vector<int>* types, int index, int type_flag) {
  Assign(types, false, index, type_flag, -1, TypeText);
}

namespace {

// A backward operator without inference of its own infers through its forward operator.
template <typename Fn>
const Fn* InferenceOf(const Op& op, const Fn* own, const Fn& through_forward) {
  return own != nullptr || !op.HasAttr("TIsBackward") ? own : &through_forward;
}

}  // namespace

void InferShapes(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  CHECK(attrs.op != nullptr) << "InferShapes: the attributes have no operator (ops::ParseAttrs sets it)";
  static const FInferShape through_forward = BackwardInferShape;
  const Op& op = *attrs.op;
  auto check_all = [&](const std::vector<TShape>& shapes, bool is_input) {
    for (size_t i = 0; i < shapes.size(); ++i) {
      CheckedSize(shapes[i], [&] { return op.name + ": " + ArgumentName(attrs, is_input, i); });
    }
  };
  check_all(*in, true);
  check_all(*out, false);
  RunInference("shape", attrs, InferenceOf(op, op.infer_shape(), through_forward), in, out,
               TShape(), ShapeText);
  check_all(*in, true);
  check_all(*out, false);
}

void InferTypes(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  CHECK(attrs.op != nullptr) << "InferTypes: the attributes have no operator (ops::ParseAttrs sets it)";
  static const FInferType through_forward = BackwardInferType;
  RunInference("type", attrs, InferenceOf(*attrs.op, attrs.op->infer_type(), through_forward),
               in, out, -1, TypeText);
}

}  // namespace ops
