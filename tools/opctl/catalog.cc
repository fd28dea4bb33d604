// opctl list and describe: the operator catalogue, from the registry.
#include <iostream>
#include <map>
#include <string>

#include "dmlc/json.h"
#include "ops/op.h"
#include "tools/opctl/commands.h"

namespace opctl {
namespace {

bool IsInput(const dmlc::ParamFieldInfo& argument) {
  return argument.type.rfind("NDArray-or-Symbol", 0) == 0;
}

std::string FirstSentence(const std::string& text) {
  const size_t end = text.find(". ");
  return end == std::string::npos ? text : text.substr(0, end + 1);
}

// The parameters, each as {"name", "type", "type_info_str", "description"}.
std::vector<std::map<std::string, std::string>> ParamsOf(const ops::Op& op) {
  std::vector<std::map<std::string, std::string>> params;
  for (const auto& argument : op.arguments) {
    if (IsInput(argument)) continue;
    params.push_back({{"name", argument.name},
                      {"type", argument.type},
                      {"type_info_str", argument.type_info_str},
                      {"description", argument.description}});
  }
  return params;
}

// One catalogue entry: {"name", "description", "inputs", "num_outputs", "backward",
// "params": [{"name", "type", "type_info_str", "description"}]}.
void WriteEntry(const ops::Op& op, dmlc::JSONWriter* writer) {
  writer->BeginObject();
  writer->WriteObjectKeyValue("name", op.name);
  writer->WriteObjectKeyValue("description", op.description);
  std::vector<std::string> inputs;
  for (const auto& argument : op.arguments) {
    if (IsInput(argument)) inputs.push_back(argument.name);
  }
  writer->WriteObjectKeyValue("inputs", inputs);
  // -1 when the count depends on the parameters (Concat's num_args).
  const int num_outputs =
      op.has_variable_outputs() ? -1 : static_cast<int>(op.num_outputs(ops::NodeAttrs()));
  writer->WriteObjectKeyValue("num_outputs", num_outputs);
  const auto* gradient = op.GetAttr<ops::FGradient>("FGradient");
  writer->WriteObjectKeyValue(
      "backward", gradient ? dmlc::optional<std::string>(gradient->backward_op)
                           : dmlc::optional<std::string>());
  writer->WriteObjectKeyValue("is_backward", op.HasAttr("TIsBackward"));
  writer->WriteObjectKeyValue("params", ParamsOf(op));
  writer->EndObject();
}

}  // namespace

int List(const Args& args) {
  const bool json = !args.empty() && args[0] == "--json";
  if (!args.empty() && !json) throw dmlc::Error("unknown flag '" + args[0] + "'; valid: --json");
  const std::vector<std::string> names = ops::Op::ListAllNames();
  if (!json) {
    for (const std::string& name : names) {
      const ops::Op* op = ops::Op::Get(name);
      if (op->name != name) continue;  // an alias
      std::cout << name << "  " << FirstSentence(op->description) << '\n';
    }
    return 0;
  }
  dmlc::JSONWriter writer(&std::cout);
  writer.BeginArray();
  for (const std::string& name : names) {
    const ops::Op* op = ops::Op::Get(name);
    if (op->name != name) continue;
    writer.WriteArraySeperator();
    WriteEntry(*op, &writer);
  }
  writer.EndArray();
  std::cout << '\n';
  return 0;
}

int Describe(const Args& args) {
  if (args.size() != 1) throw dmlc::Error("usage: opctl describe OP");
  const ops::Op* op = ops::Op::Get(args[0]);
  std::cout << op->name << "\n\n" << op->description << "\n\nInputs:\n";
  for (const auto& argument : op->arguments) {
    if (IsInput(argument)) std::cout << "  " << argument.name << ": " << argument.description << '\n';
  }
  std::cout << "\nParameters:\n";
  bool any = false;
  for (const auto& argument : op->arguments) {
    if (IsInput(argument)) continue;
    any = true;
    std::cout << "  " << argument.name << " : " << argument.type_info_str << '\n';
    if (!argument.description.empty()) std::cout << "      " << argument.description << '\n';
  }
  if (!any) std::cout << "  (none)\n";
  if (const auto* gradient = op->GetAttr<ops::FGradient>("FGradient")) {
    std::cout << "\nGradient: " << gradient->backward_op << '\n';
  }
  return 0;
}

}  // namespace opctl
