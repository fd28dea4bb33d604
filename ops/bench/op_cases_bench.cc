// Times registered operators on the cases of a case file (ops/bench/mxnet_cases.txt by
// default; --cases=PATH for another): the operator call alone, on inputs and outputs
// allocated and filled beforehand, with attributes parsed once. A backward case times the
// operator FGradient names. tools/bench/mxnet_compare.py runs this binary and MXNet on the
// same cases and prints MXNet time / project time.
//
// Threads: the engine's (OMP_NUM_THREADS, or all cores) and OpenBLAS's
// (OPENBLAS_NUM_THREADS) are set by the caller's environment.
#include <benchmark/benchmark.h>

#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_split.h"
#include "ops/imperative.h"

namespace {

using mshadow::TShape;
using ops::CpuTensor;

struct Case {
  std::string name, op, direction;
  std::vector<TShape> shapes;
  std::map<std::string, std::string> params;
};

// name | operator | direction | shapes | key=value ...
std::vector<Case> ReadCases(const std::string& path) {
  std::ifstream file(path);
  if (!file) throw std::runtime_error("cannot read case file " + path);
  std::vector<Case> cases;
  int line_number = 0;
  for (std::string text; std::getline(file, text);) {
    ++line_number;
    const absl::string_view line = absl::StripAsciiWhitespace(text);
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> fields = absl::StrSplit(line, '|');
    for (std::string& field : fields) field = std::string(absl::StripAsciiWhitespace(field));
    if (fields.size() < 4 || fields.size() > 5 ||
        (fields[2] != "forward" && fields[2] != "backward")) {
      throw std::runtime_error(path + ":" + std::to_string(line_number) +
                               ": expected 'name | operator | forward|backward | shapes | params'");
    }
    Case c{fields[0], fields[1], fields[2], {}, {}};
    for (const absl::string_view word : absl::StrSplit(fields[3], ' ', absl::SkipEmpty())) {
      std::istringstream in{std::string(word)};
      TShape shape;
      if (!(in >> shape)) throw std::runtime_error(path + ": bad shape " + std::string(word));
      c.shapes.push_back(shape);
    }
    if (fields.size() == 5) {
      for (const absl::string_view kv : absl::StrSplit(fields[4], ' ', absl::SkipEmpty())) {
        if (kv.find('=') == absl::string_view::npos) continue;
        const std::pair<std::string, std::string> key_value = absl::StrSplit(kv, '=');
        c.params.insert(key_value);
      }
    }
    cases.push_back(c);
  }
  return cases;
}

CpuTensor RandomTensor(const TShape& shape, std::mt19937* rng) {
  CpuTensor t(shape, mshadow::kFloat32);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  float* data = t.data<float>();
  for (mshadow::index_t i = 0; i < shape.Size(); ++i) data[i] = uniform(*rng);
  return t;
}

// The operator call of one case, with everything it reads and writes allocated.
struct PreparedCall {
  ops::NodeAttrs attrs;
  std::vector<CpuTensor> inputs, outputs;
};

PreparedCall Prepare(const Case& c) {
  std::mt19937 rng(1234);
  const ops::NodeAttrs attrs = ops::ParseAttrs(ops::Op::Get(c.op), c.params);
  std::vector<CpuTensor> inputs;
  for (const TShape& shape : c.shapes) inputs.push_back(RandomTensor(shape, &rng));
  const std::vector<CpuTensor> outputs = ops::RunCpu(attrs, ops::Blobs(inputs), true);
  if (c.direction == "forward") return {attrs, inputs, outputs};
  const ops::FGradient* gradient = attrs.op->GetAttr<ops::FGradient>("FGradient");
  if (gradient == nullptr) throw std::runtime_error(c.op + " has no FGradient");
  PreparedCall call{ops::ParseAttrs(ops::Op::Get(gradient->backward_op), c.params), {}, {}};
  for (const CpuTensor& out : outputs) call.inputs.push_back(RandomTensor(out.shape(), &rng));
  if (gradient->uses_inputs) call.inputs.insert(call.inputs.end(), inputs.begin(), inputs.end());
  if (gradient->uses_outputs) {
    call.inputs.insert(call.inputs.end(), outputs.begin(), outputs.end());
  }
  for (const CpuTensor& in : inputs) call.outputs.emplace_back(in.shape(), mshadow::kFloat32);
  return call;
}

void RunCase(benchmark::State& state, const Case& c) {
  const PreparedCall call = Prepare(c);
  const std::vector<ops::TBlob> inputs = ops::Blobs(call.inputs), outputs = ops::Blobs(call.outputs);
  const std::vector<ops::OpReqType> req(outputs.size(), ops::kWriteTo);
  const ops::OpContext ctx = ops::MakeCpuContext(call.attrs, true);
  for (auto _ : state) {
    ops::Invoke<mshadow::cpu>(call.attrs, ctx, inputs, req, outputs);
    benchmark::ClobberMemory();
  }
  double bytes = 0;
  for (const auto& t : call.inputs) bytes += t.shape().Size() * sizeof(float);
  for (const auto& t : call.outputs) bytes += t.shape().Size() * sizeof(float);
  state.SetBytesProcessed(static_cast<int64_t>(bytes * state.iterations()));
}

}  // namespace

int main(int argc, char** argv) {
  std::string path = "ops/bench/mxnet_cases.txt";
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (std::strncmp(argv[i], "--cases=", 8) == 0) {
      path = argv[i] + 8;
    } else {
      args.push_back(argv[i]);
    }
  }
  std::vector<Case> cases;
  try {
    cases = ReadCases(path);
  } catch (const std::exception& e) {
    std::cerr << "op_cases_bench: " << e.what() << "\n";
    return 2;
  }
  for (const Case& c : cases) {
    benchmark::RegisterBenchmark((c.name + "/" + c.direction).c_str(),
                                 [c](benchmark::State& state) { RunCase(state, c); })
        ->UseRealTime()
        ->Unit(benchmark::kMicrosecond);
  }
  int count = static_cast<int>(args.size());
  benchmark::Initialize(&count, args.data());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
