#include "ops/op.h"

#include <utility>

#include "dmlc/suggest.h"
#include "ops/backward.h"

namespace dmlc {
DMLC_REGISTRY_ENABLE(::ops::Op);
}  // namespace dmlc

namespace ops {

Op& Op::describe(const std::string& text) {
  description = text;
  return *this;
}

Op& Op::set_num_inputs(uint32_t n) {
  num_inputs_ = n;
  get_num_inputs_ = nullptr;
  return *this;
}

Op& Op::set_num_inputs(std::function<uint32_t(const NodeAttrs&)> fn) {
  get_num_inputs_ = std::move(fn);
  return *this;
}

Op& Op::set_num_outputs(uint32_t n) {
  num_outputs_ = n;
  get_num_outputs_ = nullptr;
  return *this;
}

Op& Op::set_num_outputs(std::function<uint32_t(const NodeAttrs&)> fn) {
  get_num_outputs_ = std::move(fn);
  return *this;
}

Op& Op::set_num_visible_outputs(uint32_t n) {
  num_visible_outputs_ = n;
  get_num_visible_outputs_ = nullptr;
  return *this;
}

Op& Op::set_num_visible_outputs(std::function<uint32_t(const NodeAttrs&)> fn) {
  num_visible_outputs_.reset();
  get_num_visible_outputs_ = std::move(fn);
  return *this;
}

uint32_t Op::num_visible_outputs(const NodeAttrs& attrs) const {
  if (get_num_visible_outputs_) return get_num_visible_outputs_(attrs);
  return num_visible_outputs_ ? *num_visible_outputs_ : num_outputs(attrs);
}

Op& Op::add_argument(const std::string& arg_name, const std::string& type,
                     const std::string& arg_description) {
  dmlc::ParamFieldInfo info;
  info.name = arg_name;
  info.type = type;
  info.type_info_str = type;
  info.description = arg_description;
  arguments.push_back(std::move(info));
  return *this;
}

Op& Op::add_arguments(const std::vector<dmlc::ParamFieldInfo>& args) {
  arguments.insert(arguments.end(), args.begin(), args.end());
  return *this;
}

Op& Op::set_attr_parser(std::function<void(NodeAttrs* attrs)> parser) {
  attr_parser_ = std::move(parser);
  return *this;
}

Op& Op::add_alias(const std::string& alias) {
  dmlc::Registry<Op>::Get()->AddAlias(name, alias);
  return *this;
}

void Op::RememberCallAttr(const std::string& attr_name, const std::any& value) {
  // Each names its type: a value of another type would make every call fail later, so it
  // fails here, at registration.
  auto typed = [&](auto* type_tag) {
    using T = std::remove_pointer_t<decltype(type_tag)>;
    const T* typed_value = std::any_cast<T>(&value);
    CHECK(typed_value != nullptr) << "attribute " << attr_name << " of operator " << name
                                  << " must be set with its type, e.g. set_attr<ops::"
                                  << attr_name.substr(0, attr_name.find('<')) << ">";
    return typed_value;
  };
  if (attr_name == "FInferShape") infer_shape_ = typed(static_cast<FInferShape*>(nullptr));
  if (attr_name == "FInferType") infer_type_ = typed(static_cast<FInferType*>(nullptr));
  if (attr_name == "FResourceRequest") {
    resource_request_ = typed(static_cast<FResourceRequest*>(nullptr));
  }
  if (attr_name == "FCompute<cpu>") compute_cpu_ = typed(static_cast<FCompute*>(nullptr));
  if (attr_name == "FCompute<gpu>") compute_gpu_ = typed(static_cast<FCompute*>(nullptr));
  if (attr_name == "FGradient") RecordGradient(*this, *typed(static_cast<FGradient*>(nullptr)));
}

namespace {

// `__name__` keys are a host's own annotations, which operators ignore (as dmlc::Parameter does).
bool IsHiddenKey(const std::string& key) {
  return key.size() > 4 && key.compare(0, 2, "__") == 0 && key.compare(key.size() - 2, 2, "__") == 0;
}

}  // namespace

void Op::ParseAttrs(NodeAttrs* attrs) const {
  attrs->op = this;
  try {
    if (attr_parser_) {
      attr_parser_(attrs);
    } else if (!HasAttr("TIsBackward")) {
      // Backward operators read their forward operator's keys; anything else with no parser
      // takes no parameters, and a key given to it is a mistake the host should hear about.
      for (const auto& [key, value] : attrs->dict) {
        if (!IsHiddenKey(key)) {
          throw dmlc::ParamError(name + " takes no parameters; got '" + key + "'");
        }
      }
    }
    if (has_variable_inputs() || has_variable_outputs()) CheckArity(*attrs);
  } catch (const dmlc::ParamError& e) {
    throw dmlc::ParamError("Invalid parameter of operator " + name + ": " + e.what());
  }
}

void Op::CheckArity(const NodeAttrs& attrs) const {
  for (const auto& [count, what] : {std::pair{num_inputs(attrs), "inputs"},
                                    std::pair{num_outputs(attrs), "outputs"}}) {
    if (count > kMaxArity) {
      throw dmlc::ParamError("these parameters give " + std::to_string(count) + " " + what +
                             "; at most " + std::to_string(kMaxArity) + " are supported");
    }
  }
}

std::vector<std::string> Op::ListInputNames(const NodeAttrs& attrs) const {
  if (const auto* list = GetAttr<FListInputNames>("FListInputNames")) return (*list)(attrs);
  const uint32_t n = num_inputs(attrs);
  std::vector<std::string> names;
  for (const auto& argument : arguments) {
    if (argument.type.rfind("NDArray-or-Symbol", 0) == 0) names.push_back(argument.name);
  }
  if (names.size() == n) return names;
  if (HasAttr("TIsBackward")) {
    // Names only make messages clearer: a backward operator shared by several forward
    // operators (ForwardOpOf throws) falls back to numbered names.
    try {
      if (ForwardOpOf(*this) != nullptr) return BackwardInputNames(attrs);
    } catch (const dmlc::Error&) {
    }
  }
  if (n == 1) return {"data"};
  names.clear();
  for (uint32_t i = 0; i < n; ++i) names.push_back("arg" + std::to_string(i));
  return names;
}

Op& RegisterOp(const std::string& name) {
  return dmlc::Registry<Op>::Get()->__REGISTER_OR_GET__(name);
}

const Op* Op::Find(const std::string& op_name) { return dmlc::Registry<Op>::Find(op_name); }

const Op* Op::Get(const std::string& op_name) {
  const Op* op = Find(op_name);
  if (op == nullptr) {
    const std::vector<std::string> names = ListAllNames();
    throw dmlc::Error("operator '" + op_name + "' is not registered." +
                      dmlc::DidYouMean(op_name, names) + " (" + std::to_string(names.size()) +
                      " operators are registered; `opctl list` shows them)");
  }
  return op;
}

std::vector<std::string> Op::ListAllNames() { return dmlc::Registry<Op>::ListAllNames(); }

}  // namespace ops
