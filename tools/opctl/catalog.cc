// opctl list and describe: the operator catalogue, from the registry.
#include <iostream>
#include <map>
#include <string>

#include "ops/catalog.h"
#include "ops/op.h"
#include "tools/opctl/commands.h"

namespace opctl {
namespace {

std::string FirstSentence(const std::string& text) {
  const size_t end = text.find(". ");
  return end == std::string::npos ? text : text.substr(0, end + 1);
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
  std::cout << ops::CatalogJson();
  std::cout << '\n';
  return 0;
}

int Describe(const Args& args) {
  if (args.size() != 1) throw dmlc::Error("usage: opctl describe OP");
  const ops::Op* op = ops::Op::Get(args[0]);
  std::cout << op->name << "\n\n" << op->description << "\n\nInputs:\n";
  for (const auto& argument : op->arguments) {
    if (ops::IsInputArgument(argument)) std::cout << "  " << argument.name << ": " << argument.description << '\n';
  }
  std::cout << "\nParameters:\n";
  bool any = false;
  for (const auto& argument : op->arguments) {
    if (ops::IsInputArgument(argument)) continue;
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
