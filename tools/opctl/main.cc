// opctl: the command-line host of this project: it looks operators up, documents them,
// runs and times them, and (with no arguments) trains a small network through them, as a
// host framework would.
//
//   opctl                      # the demo: trains a 64-128-10 MLP (on the GPU if there is one)
//   opctl demo cnn             # trains a small convolutional network
//   opctl list [--json]        # the catalogue
//   opctl describe FullyConnected
//   opctl run FullyConnected --shape data=(4,8) --param num_hidden=16
//   opctl bench softmax --shape data=(256,1000)
//   opctl bench softmax --shape data=(256,1000) --device gpu   # built with --config=cuda
#include <cstdio>
#include <cstring>
#include <map>
#include <string>

#include "dmlc/logging.h"
#include "tools/opctl/commands.h"

namespace {

constexpr char kUsage[] =
    "usage: opctl [command] [arguments]\n"
    "  demo [mlp|cnn] [--device cpu|gpu]\n"
    "                   (default) train a small MLP or CNN through registered operators; the\n"
    "                   MLP runs on the GPU where opctl has CUDA and a GPU is present\n"
    "  list [--json]    list every registered operator\n"
    "  describe OP      show an operator's documentation and parameters\n"
    "  run OP --shape NAME=SHAPE ... [--param KEY=VALUE ...] [--dtype float32|float64]\n"
    "         [--device cpu|gpu]\n"
    "                   run the operator once on fixed-seed uniform inputs (gpu: on GPU 0,\n"
    "                   beside the CPU; needs a build with --config=cuda)\n"
    "  bench OP ...     the same flags as run, plus [--iterations N]: time forward and "
    "backward\n";

}  // namespace

int main(int argc, char** argv) {
  const std::map<std::string, int (*)(const opctl::Args&)> commands = {
      {"demo", opctl::Demo},         {"list", opctl::List}, {"describe", opctl::Describe},
      {"run", opctl::Run},           {"bench", opctl::Bench}};
  const std::string name = argc > 1 ? argv[1] : "demo";
  if (name == "-h" || name == "--help" || name == "help") {
    std::fputs(kUsage, stdout);
    return 0;
  }
  const auto command = commands.find(name);
  if (command == commands.end()) {
    std::fprintf(stderr, "opctl: unknown command '%s'\n%s", name.c_str(), kUsage);
    return 2;
  }
  try {
    return command->second(opctl::Args(argv + std::min(argc, 2), argv + argc));
  } catch (const dmlc::Error& e) {
    std::fprintf(stderr, "opctl %s: %s\n", name.c_str(), e.what());
    return 1;
  }
}
