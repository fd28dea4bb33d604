// ops/op.h: `Op`, a named operator with its documentation, arity, parameter parser and typed
// attributes, and the macro that registers one.
//
//   OPS_REGISTER_OP(scale)
//       .describe("Multiplies the input by `factor`.")
//       .set_num_inputs(1)
//       .set_num_outputs(1)
//       .add_argument("data", "NDArray-or-Symbol", "Input.")
//       .add_arguments(ScaleParam::__FIELDS__())
//       .set_attr_parser(ops::ParamParser<ScaleParam>)
//       .set_attr<ops::FInferShape>("FInferShape", ops::ElemwiseShape<1, 1>)
//       .set_attr<ops::FInferType>("FInferType", ops::ElemwiseType<1, 1>)
//       .set_attr<ops::FCompute>("FCompute<cpu>", ScaleCompute<mshadow::cpu>);
//
//   const ops::Op* op = ops::Op::Get("scale");   // unknown: dmlc::Error with suggestions
//   auto compute = op->GetAttr<ops::FCompute>("FCompute<cpu>");
//
// Registration runs during static initialization (a library of operators must be linked
// whole: `alwayslink`). Lookup by name is thread-safe at any time; an Op and its attributes
// are set only while registering and never change or move afterwards.
#ifndef OPS_OP_H_
#define OPS_OP_H_

#include <any>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <vector>

#include "dmlc/logging.h"
#include "dmlc/parameter.h"
#include "dmlc/registry.h"
#include "ops/op_types.h"

namespace ops {

class Op {
 public:
  std::string name;
  std::string description;
  // Inputs (type "NDArray-or-Symbol") and parameters, for documentation and catalogues.
  std::vector<dmlc::ParamFieldInfo> arguments;

  Op& describe(const std::string& text);
  Op& set_num_inputs(uint32_t n);
  Op& set_num_inputs(std::function<uint32_t(const NodeAttrs&)> fn);
  Op& set_num_outputs(uint32_t n);
  Op& set_num_outputs(std::function<uint32_t(const NodeAttrs&)> fn);
  // How many of the outputs (the first ones) a caller sees; the rest are for the backward
  // operator (Dropout's mask, topk's positions). Hosts allocate and pass every output.
  Op& set_num_visible_outputs(uint32_t n);
  Op& set_num_visible_outputs(std::function<uint32_t(const NodeAttrs&)> fn);
  Op& add_argument(const std::string& arg_name, const std::string& type,
                   const std::string& arg_description);
  Op& add_arguments(const std::vector<dmlc::ParamFieldInfo>& args);
  // Parses attrs->dict into attrs->parsed; throws dmlc::ParamError on bad values.
  Op& set_attr_parser(std::function<void(NodeAttrs* attrs)> parser);
  // Another name this operator is found under.
  Op& add_alias(const std::string& alias);

  // Sets a typed attribute; setting one name twice is a dmlc::Error.
  template <typename ValueType>
  Op& set_attr(const std::string& attr_name, const ValueType& value) {
    CHECK(attrs_.count(attr_name) == 0)
        << "attribute " << attr_name << " of operator " << name << " is set twice";
    RememberCallAttr(attr_name, attrs_.emplace(attr_name, value).first->second);
    return *this;
  }

  // The attribute, or nullptr if not set; a type other than the one set is a dmlc::Error.
  template <typename ValueType>
  const ValueType* GetAttr(const std::string& attr_name) const {
    const auto it = attrs_.find(attr_name);
    if (it == attrs_.end()) return nullptr;
    const ValueType* value = std::any_cast<ValueType>(&it->second);
    CHECK(value != nullptr) << "attribute " << attr_name << " of operator " << name
                            << " is not a " << typeid(ValueType).name();
    return value;
  }
  bool HasAttr(const std::string& attr_name) const { return attrs_.count(attr_name) != 0; }

  uint32_t num_inputs(const NodeAttrs& attrs) const {
    return get_num_inputs_ ? get_num_inputs_(attrs) : num_inputs_;
  }
  uint32_t num_outputs(const NodeAttrs& attrs) const {
    return get_num_outputs_ ? get_num_outputs_(attrs) : num_outputs_;
  }
  // All of the outputs unless set_num_visible_outputs said fewer (a constant count needs no
  // parsed attributes: catalogues read it from NodeAttrs()).
  uint32_t num_visible_outputs(const NodeAttrs& attrs) const;
  // Whether the arity depends on the attributes (then it reads as -1 in catalogues).
  bool has_variable_inputs() const { return static_cast<bool>(get_num_inputs_); }
  bool has_variable_outputs() const { return static_cast<bool>(get_num_outputs_); }
  bool has_variable_visible_outputs() const {
    if (get_num_visible_outputs_) return true;
    return num_visible_outputs_ ? false : has_variable_outputs();
  }

  // The attributes every call uses, without a lookup by name (nullptr when not set).
  const FInferShape* infer_shape() const { return infer_shape_; }
  const FInferType* infer_type() const { return infer_type_; }
  const FResourceRequest* resource_request() const { return resource_request_; }
  // FCompute<Device> (Device: mshadow::cpu or mshadow::gpu), or nullptr.
  template <typename Device>
  const FCompute* compute() const {
    static_assert(std::is_same_v<Device, mshadow::cpu> || std::is_same_v<Device, mshadow::gpu>,
                  "operators compute on mshadow::cpu or mshadow::gpu");
    return std::is_same_v<Device, mshadow::cpu> ? compute_cpu_ : compute_gpu_;
  }

  // The most inputs or outputs one call may have (a bound on what a host's parameters, e.g.
  // Concat's num_args, can make the library allocate for names and checks).
  static constexpr uint32_t kMaxArity = 1 << 16;

  // Runs the attribute parser on attrs->dict; an operator without one accepts no keys but
  // `__hidden__` ones. Bad values are a dmlc::ParamError naming the operator.
  void ParseAttrs(NodeAttrs* attrs) const;
  // The names of the inputs for these attributes.
  std::vector<std::string> ListInputNames(const NodeAttrs& attrs) const;

  // The operator registered under `name` (or an alias); an unknown name is a dmlc::Error
  // that suggests the closest registered names.
  static const Op* Get(const std::string& op_name);
  // nullptr for an unknown name.
  static const Op* Find(const std::string& op_name);
  // Every registered name and alias, sorted.
  static std::vector<std::string> ListAllNames();

 private:
  uint32_t num_inputs_ = 1;
  uint32_t num_outputs_ = 1;
  std::function<uint32_t(const NodeAttrs&)> get_num_inputs_;
  std::function<uint32_t(const NodeAttrs&)> get_num_outputs_;
  std::optional<uint32_t> num_visible_outputs_;
  std::function<uint32_t(const NodeAttrs&)> get_num_visible_outputs_;
  // A variable arity above kMaxArity is a dmlc::ParamError.
  void CheckArity(const NodeAttrs& attrs) const;
  // Keeps a typed pointer to the attributes every call uses (map nodes never move).
  void RememberCallAttr(const std::string& attr_name, const std::any& value);

  std::function<void(NodeAttrs*)> attr_parser_;
  std::map<std::string, std::any> attrs_;
  const FInferShape* infer_shape_ = nullptr;
  const FInferType* infer_type_ = nullptr;
  const FResourceRequest* resource_request_ = nullptr;
  const FCompute* compute_cpu_ = nullptr;
  const FCompute* compute_gpu_ = nullptr;
};

// The operator `name`, created if it is not registered yet; for code that registers families
// of operators in a loop (OPS_REGISTER_OP is the usual way).
Op& RegisterOp(const std::string& name);

// The attribute parser of an operator whose parameters are the dmlc::Parameter `Param`.
template <typename Param>
void ParamParser(NodeAttrs* attrs) {
  Param param;
  param.Init(attrs->dict);
  attrs->parsed = std::move(param);
}

}  // namespace ops

// Registers (or, from a second file, extends) the operator `OpName`.
#define OPS_REGISTER_OP(OpName)                                                          \
  static DMLC_ATTRIBUTE_UNUSED ::ops::Op& DMLC_STR_CONCAT(__ops_make_op_##OpName, __COUNTER__) = \
      ::dmlc::Registry<::ops::Op>::Get()->__REGISTER_OR_GET__(#OpName)

#endif  // OPS_OP_H_
