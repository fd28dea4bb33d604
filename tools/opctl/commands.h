// tools/opctl/commands.h: the subcommands of opctl. Each takes the arguments after its name,
// prints to stdout, and returns the process exit status; errors are dmlc::Errors, which
// main() prints.
#ifndef TOOLS_OPCTL_COMMANDS_H_
#define TOOLS_OPCTL_COMMANDS_H_

#include <string>
#include <vector>

namespace opctl {

using Args = std::vector<std::string>;

// list [--json]: the operator catalogue.
int List(const Args& args);
// describe OP: an operator's documentation and parameters.
int Describe(const Args& args);
// run OP --shape NAME=SHAPE... --param KEY=VALUE... [--dtype T]: one forward call.
int Run(const Args& args);
// bench OP (same flags as run) [--iterations N]: times forward and backward.
int Bench(const Args& args);
// demo [mlp|cnn] [--device cpu|gpu]: trains a small MLP (default) or CNN through registered
// operators only, on the GPU when one is present (opctl built with CUDA).
int Demo(const Args& args);
class DemoDevice;
int DemoCnn(DemoDevice& device);

}  // namespace opctl

#endif  // TOOLS_OPCTL_COMMANDS_H_
