#include "ops/backward.h"

#include <mutex>
#include <unordered_map>

#include "ops/infer.h"

namespace ops {
namespace {

// Backward operator name -> the forward operators whose FGradient names it. Filled while
// operators register (static initialisation, or a plugin library being loaded).
struct GradientTable {
  std::mutex mutex;
  std::unordered_map<std::string, std::vector<const Op*>> forwards;
};

GradientTable& Table() {
  static GradientTable* table = new GradientTable();  // never destroyed: used at exit too
  return *table;
}

// Where a backward call's tensors sit relative to its forward call's.
struct Layout {
  const Op* forward = nullptr;
  NodeAttrs forward_attrs;
  FGradient gradient;
  uint32_t num_inputs = 0;   // of the forward call
  uint32_t num_outputs = 0;  // of the forward call
  size_t inputs_at = 0;      // first forward input among the backward inputs
  size_t outputs_at = 0;     // first forward output among the backward inputs
};

Layout LayoutOf(const NodeAttrs& attrs) {
  const Op& backward = *attrs.op;
  Layout layout;
  layout.forward = ForwardOpOf(backward);
  CHECK(layout.forward != nullptr)
      << backward.name << " has no inference of its own and no forward operator names it in "
      << "its FGradient";
  layout.forward_attrs.dict = attrs.dict;
  layout.forward->ParseAttrs(&layout.forward_attrs);
  layout.gradient = GradientOf(*layout.forward);
  layout.num_inputs = layout.forward->num_inputs(layout.forward_attrs);
  layout.num_outputs = layout.forward->num_outputs(layout.forward_attrs);
  layout.inputs_at = layout.num_outputs;
  layout.outputs_at = layout.inputs_at + (layout.gradient.uses_inputs ? layout.num_inputs : 0);
  const size_t expected_inputs =
      layout.outputs_at + (layout.gradient.uses_outputs ? layout.num_outputs : 0);
  // A registration error, not a host's: the backward arity must follow FGradient.
  CHECK_EQ(backward.num_inputs(attrs), expected_inputs)
      << backward.name << " is registered with the wrong number of inputs for "
      << layout.forward->name << "'s FGradient";
  CHECK_EQ(backward.num_outputs(attrs), layout.num_inputs)
      << backward.name << " must have one output per input of " << layout.forward->name;
  return layout;
}

std::string Text(const TShape& shape) { return ShapeText(shape); }
std::string Text(int type_flag) { return TypeText(type_flag); }

// What differs between shape and type inference.
struct ShapeTraits {
  using Value = TShape;
  static Value Unknown() { return TShape(); }
  static const FInferShape* Infer(const Op& op) { return op.infer_shape(); }
  static void AssignInput(std::vector<Value>* v, int i, const Value& x) { AssignInputShape(v, i, x); }
  static void AssignOutput(std::vector<Value>* v, int i, const Value& x) { AssignOutputShape(v, i, x); }
};
struct TypeTraits {
  using Value = int;
  static Value Unknown() { return -1; }
  static const FInferType* Infer(const Op& op) { return op.infer_type(); }
  static void AssignInput(std::vector<Value>* v, int i, const Value& x) { AssignInputType(v, i, x); }
  static void AssignOutput(std::vector<Value>* v, int i, const Value& x) { AssignOutputType(v, i, x); }
};

// Gathers the forward call's shapes (or types) from every backward slot that holds one, runs
// the forward operator's inference, and writes the results back into every slot.
template <typename Traits>
bool InferThroughForward(const NodeAttrs& attrs, std::vector<typename Traits::Value>* in,
                         std::vector<typename Traits::Value>* out) {
  using Value = typename Traits::Value;
  const Value unknown = Traits::Unknown();
  const Layout layout = LayoutOf(attrs);
  std::vector<Value> forward_in(layout.num_inputs, unknown), forward_out(layout.num_outputs, unknown);
  // Two backward slots that hold the same forward tensor must agree.
  auto gather = [&](std::vector<Value>* forward, size_t f, const Value& value, bool is_input,
                    size_t slot) {
    if (value == unknown) return;
    if ((*forward)[f] == unknown) {
      (*forward)[f] = value;
    } else if ((*forward)[f] != value) {
      throw InferConflict(is_input, static_cast<int>(slot), Text(value), Text((*forward)[f]));
    }
  };
  for (uint32_t i = 0; i < layout.num_inputs; ++i) gather(&forward_in, i, (*out)[i], false, i);
  for (uint32_t i = 0; i < layout.num_outputs; ++i) gather(&forward_out, i, (*in)[i], true, i);
  if (layout.gradient.uses_inputs) {
    for (uint32_t i = 0; i < layout.num_inputs; ++i) {
      gather(&forward_in, i, (*in)[layout.inputs_at + i], true, layout.inputs_at + i);
    }
  }
  if (layout.gradient.uses_outputs) {
    for (uint32_t i = 0; i < layout.num_outputs; ++i) {
      gather(&forward_out, i, (*in)[layout.outputs_at + i], true, layout.outputs_at + i);
    }
  }
  const auto* infer = Traits::Infer(*layout.forward);
  CHECK(infer != nullptr) << layout.forward->name << " has no inference function";
  try {
    (*infer)(layout.forward_attrs, &forward_in, &forward_out);
  } catch (const InferConflict& conflict) {
    // A forward input is the backward output of the same index; a forward output is the
    // output gradient of the same index.
    throw InferConflict(!conflict.is_input, conflict.index, conflict.given, conflict.required);
  }
  for (uint32_t i = 0; i < layout.num_inputs; ++i) {
    if (forward_in[i] == unknown) continue;
    Traits::AssignOutput(out, i, forward_in[i]);
    if (layout.gradient.uses_inputs) Traits::AssignInput(in, layout.inputs_at + i, forward_in[i]);
  }
  for (uint32_t i = 0; i < layout.num_outputs; ++i) {
    if (forward_out[i] == unknown) continue;
    Traits::AssignInput(in, i, forward_out[i]);
    if (layout.gradient.uses_outputs) Traits::AssignInput(in, layout.outputs_at + i, forward_out[i]);
  }
  for (const Value& v : *in) {
    if (v == unknown) return false;
  }
  for (const Value& v : *out) {
    if (v == unknown) return false;
  }
  return true;
}

}  // namespace

void RecordGradient(const Op& forward, const FGradient& gradient) {
  GradientTable& table = Table();
  std::lock_guard<std::mutex> lock(table.mutex);
  table.forwards[gradient.backward_op].push_back(&forward);
}

const Op* ForwardOpOf(const Op& backward) {
  GradientTable& table = Table();
  std::lock_guard<std::mutex> lock(table.mutex);
  const auto it = table.forwards.find(backward.name);
  if (it == table.forwards.end()) return nullptr;
  if (it->second.size() > 1) {
    std::string names;
    for (const Op* op : it->second) names += (names.empty() ? "" : ", ") + op->name;
    throw dmlc::Error(backward.name + " is the backward operator of several forward operators (" +
                      names + "), so it needs shape and type inference of its own");
  }
  return it->second.front();
}

const FGradient& GradientOf(const Op& forward) {
  const FGradient* gradient = forward.GetAttr<FGradient>("FGradient");
  CHECK(gradient != nullptr) << forward.name << " has no gradient (no FGradient attribute)";
  return *gradient;
}

NodeAttrs BackwardAttrs(const NodeAttrs& forward) {
  CHECK(forward.op != nullptr) << "BackwardAttrs: the forward attributes have no operator";
  NodeAttrs attrs;
  attrs.dict = forward.dict;
  Op::Get(GradientOf(*forward.op).backward_op)->ParseAttrs(&attrs);
  return attrs;
}

std::vector<TBlob> BackwardInputs(const NodeAttrs& forward, const std::vector<TBlob>& out_grads,
                                  const std::vector<TBlob>& inputs,
                                  const std::vector<TBlob>& outputs) {
  const FGradient& gradient = GradientOf(*forward.op);
  std::vector<TBlob> blobs = out_grads;
  if (gradient.uses_inputs) blobs.insert(blobs.end(), inputs.begin(), inputs.end());
  if (gradient.uses_outputs) blobs.insert(blobs.end(), outputs.begin(), outputs.end());
  return blobs;
}

bool BackwardInferShape(const NodeAttrs& attrs, std::vector<TShape>* in,
                        std::vector<TShape>* out) {
  return InferThroughForward<ShapeTraits>(attrs, in, out);
}

bool BackwardInferType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  return InferThroughForward<TypeTraits>(attrs, in, out);
}

std::vector<std::string> BackwardInputNames(const NodeAttrs& attrs) {
  const Layout layout = LayoutOf(attrs);
  std::vector<std::string> names;
  for (uint32_t i = 0; i < layout.num_outputs; ++i) names.push_back("out_grad" + std::to_string(i));
  if (layout.gradient.uses_inputs) {
    for (const std::string& name : layout.forward->ListInputNames(layout.forward_attrs)) {
      names.push_back(name);
    }
  }
  if (layout.gradient.uses_outputs) {
    for (uint32_t i = 0; i < layout.num_outputs; ++i) names.push_back("out" + std::to_string(i));
  }
  return names;
}

}  // namespace ops
