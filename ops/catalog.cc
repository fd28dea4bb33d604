#include "ops/catalog.h"

#include <map>
#include <sstream>
#include <vector>

#include "dmlc/json.h"

namespace ops {
namespace {

// The parameters, each as {"name", "type", "type_info_str", "description"}.
std::vector<std::map<std::string, std::string>> ParamsOf(const Op& op) {
  std::vector<std::map<std::string, std::string>> params;
  for (const auto& argument : op.arguments) {
    if (IsInputArgument(argument)) continue;
    params.push_back({{"name", argument.name},
                      {"type", argument.type},
                      {"type_info_str", argument.type_info_str},
                      {"description", argument.description}});
  }
  return params;
}

void WriteEntry(const Op& op, dmlc::JSONWriter* writer) {
  writer->BeginObject();
  writer->WriteObjectKeyValue("name", op.name);
  writer->WriteObjectKeyValue("description", op.description);
  std::vector<std::string> inputs;
  for (const auto& argument : op.arguments) {
    if (IsInputArgument(argument)) inputs.push_back(argument.name);
  }
  writer->WriteObjectKeyValue("inputs", inputs);
  // -1 when the count depends on the parameters (Concat's num_args).
  const int num_outputs =
      op.has_variable_outputs() ? -1 : static_cast<int>(op.num_outputs(NodeAttrs()));
  writer->WriteObjectKeyValue("num_outputs", num_outputs);
  // Outputs a caller sees; the rest (Dropout's mask) are for the backward operator. -1 when
  // the count depends on the parameters (topk's ret_typ).
  const int num_visible = op.has_variable_visible_outputs()
                              ? -1
                              : static_cast<int>(op.num_visible_outputs(NodeAttrs()));
  writer->WriteObjectKeyValue("num_visible_outputs", num_visible);
  const auto* gradient = op.GetAttr<FGradient>("FGradient");
  writer->WriteObjectKeyValue("backward", gradient ? dmlc::optional<std::string>(gradient->backward_op)
                                                   : dmlc::optional<std::string>());
  writer->WriteObjectKeyValue("is_backward", op.HasAttr("TIsBackward"));
  writer->WriteObjectKeyValue("params", ParamsOf(op));
  writer->EndObject();
}

}  // namespace

bool IsInputArgument(const dmlc::ParamFieldInfo& argument) {
  return argument.type.rfind("NDArray-or-Symbol", 0) == 0;
}

std::string CatalogEntryJson(const Op& op) {
  std::ostringstream os;
  dmlc::JSONWriter writer(&os);
  WriteEntry(op, &writer);
  return os.str();
}

std::string CatalogJson() {
  std::ostringstream os;
  dmlc::JSONWriter writer(&os);
  writer.BeginArray();
  for (const std::string& name : Op::ListAllNames()) {
    const Op* op = Op::Get(name);
    if (op->name != name) continue;  // an alias
    writer.WriteArraySeperator();
    WriteEntry(*op, &writer);
  }
  writer.EndArray();
  return os.str();
}

}  // namespace ops
