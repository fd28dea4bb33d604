#include "ops/bench/bench_cases.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <utility>

#include "ops/backward.h"

namespace ops {
namespace bench {
namespace {

using testing::InputSpec;
using testing::OpCase;

// Errors in the case file are plain dmlc::Errors: the message is for the file's author.
[[noreturn]] void Fail(const std::string& message) { throw dmlc::Error(message); }

bool HasGradient(const Op& op) { return op.GetAttr<FGradient>("FGradient") != nullptr; }

// A registered operator that is neither an alias nor a backward operator.
bool IsForwardOperator(const std::string& name) {
  const Op* op = Op::Get(name);
  return op->name == name && !op->HasAttr("TIsBackward");
}

// Whether parsing and shape and type inference accept the call.
bool Accepts(const OpCase& c) {
  try {
    const NodeAttrs attrs = ParseAttrs(Op::Get(c.op), c.kwargs);
    std::vector<TShape> in_shapes, out_shapes;
    for (const InputSpec& input : c.inputs) in_shapes.push_back(input.shape);
    InferShapes(attrs, &in_shapes, &out_shapes);
    std::vector<int> in_types(c.inputs.size(), mshadow::kFloat32), out_types;
    InferTypes(attrs, &in_types, &out_types);
    return true;
  } catch (const dmlc::Error&) {
    return false;
  }
}

int64_t Elements(const TShape& shape) { return static_cast<int64_t>(shape.Size()); }

// Every extent above 1 of every input multiplied by `factor`.
OpCase ScaleAllAxes(OpCase c, int64_t factor) {
  for (InputSpec& input : c.inputs) {
    for (int axis = 0; axis < input.shape.ndim(); ++axis) {
      if (input.shape[axis] > 1) input.shape[axis] *= factor;
    }
  }
  return c;
}

void ApplyOption(const std::string& option, const Op& op, BenchCase* c) {
  if (option == "forward") {
    c->directions.push_back(Direction::kForward);
  } else if (option == "backward") {
    if (!HasGradient(op)) Fail("option 'backward': " + op.name + " has no gradient");
    c->directions.push_back(Direction::kBackward);
  } else if (option == "float32") {
    c->type_flags.push_back(mshadow::kFloat32);
  } else if (option == "float64") {
    c->type_flags.push_back(mshadow::kFloat64);
  } else if (option == "inference") {
    c->is_train = false;
  } else if (std::count(KnownSuites().begin(), KnownSuites().end(), option) != 0) {
    if (option != "full") c->suites.push_back(option);
  } else {
    Fail("unknown option '" + option +
         "'; valid: forward, backward, float32, float64, inference, full, smoke, mxnet");
  }
}

// The directions and types a case gets when its options name none.
void FillDefaults(const Op& op, BenchCase* c) {
  if (c->directions.empty()) {
    c->directions.push_back(Direction::kForward);
    if (HasGradient(op)) c->directions.push_back(Direction::kBackward);
  }
  if (c->type_flags.empty()) c->type_flags.push_back(mshadow::kFloat32);
}

BenchCase ParseLine(const std::string& line) {
  const std::vector<std::string> fields = testing::SplitTableFields(line);
  if (fields.size() != 4 && fields.size() != 5) {
    Fail("expected 'case name | operator | inputs | parameters | options'");
  }
  BenchCase c;
  c.name = fields[0];
  const char* kNameCharacters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-";
  if (c.name.empty() || c.name.find_first_not_of(kNameCharacters) != std::string::npos) {
    Fail("bad case name '" + c.name + "'; valid: letters, digits, '_', '.', '-'");
  }
  const Op* op = Op::Find(fields[1]);
  if (op == nullptr) Fail("no operator named '" + fields[1] + "'");
  c.call = testing::ParseOpCase(fields[1], fields[2], fields[3]);
  ParseAttrs(op, c.call.kwargs);  // a bad parameter is reported here, with the line
  if (fields.size() == 5) {
    std::istringstream options(fields[4]);
    for (std::string option; options >> option;) ApplyOption(option, *op, &c);
  }
  FillDefaults(*op, &c);
  return c;
}

}  // namespace

const std::vector<std::string>& KnownSuites() {
  static const std::vector<std::string> suites = {"full", "smoke", "mxnet"};
  return suites;
}

std::vector<BenchCase> ParseBenchCases(std::istream& in) {
  std::vector<BenchCase> cases;
  std::set<std::string> names;
  testing::ForEachTableLine(in, "benchmark cases", [&](const std::string& line) {
    cases.push_back(ParseLine(line));
    if (!names.insert(cases.back().name).second) {
      Fail("case name '" + cases.back().name + "' is used twice");
    }
  });
  return cases;
}

std::vector<BenchCase> LoadBenchCases(const std::string& path) {
  std::ifstream in(path);
  if (!in) Fail("cannot open the benchmark case file " + path);
  return ParseBenchCases(in);
}

BenchCase DefaultCase(const OpCase& test_case, int64_t min_elements) {
  BenchCase c;
  c.name = test_case.op + "_default";
  c.call = test_case;
  c.origin = "default: the test case as given";
  int64_t largest = 0;
  int scalable_axes = 0;
  for (const InputSpec& input : test_case.inputs) {
    if (Elements(input.shape) <= largest) continue;
    largest = Elements(input.shape);
    scalable_axes = 0;
    for (int axis = 0; axis < input.shape.ndim(); ++axis) scalable_axes += input.shape[axis] > 1;
  }
  if (largest > 0 && largest < min_elements && scalable_axes > 0) {
    const double growth = static_cast<double>(min_elements) / static_cast<double>(largest);
    const auto factor = static_cast<int64_t>(std::ceil(std::pow(growth, 1.0 / scalable_axes)));
    OpCase all_axes = ScaleAllAxes(test_case, factor);
    OpCase first_axis = test_case;
    TShape& batched = first_axis.inputs[0].shape;
    if (batched.ndim() > 0 && batched[0] > 0) {
      batched[0] *= (min_elements + Elements(batched) - 1) / Elements(batched);
    }
    if (Accepts(all_axes)) {
      c.call = all_axes;
      c.origin = "default: every axis scaled by " + std::to_string(factor);
    } else if (first_axis.inputs[0].shape != test_case.inputs[0].shape && Accepts(first_axis)) {
      c.call = first_axis;
      c.origin = "default: the first input's first axis scaled";
    }
  }
  FillDefaults(*Op::Get(test_case.op), &c);
  return c;
}

std::vector<BenchCase> CasesForSuite(const std::vector<BenchCase>& configured,
                                     const std::vector<OpCase>& test_cases,
                                     const std::string& suite, int64_t min_elements) {
  if (std::count(KnownSuites().begin(), KnownSuites().end(), suite) == 0) {
    Fail("unknown suite '" + suite + "'; valid: full, smoke, mxnet");
  }
  std::vector<BenchCase> cases;
  std::set<std::string> named;
  for (const BenchCase& c : configured) {
    named.insert(Op::Get(c.call.op)->name);
    if (suite == "full" || std::count(c.suites.begin(), c.suites.end(), suite) != 0) {
      cases.push_back(c);
    }
  }
  if (suite != "full") return cases;
  for (const std::string& name : Op::ListAllNames()) {
    if (!IsForwardOperator(name) || named.count(name) != 0) continue;
    const auto test_case = std::find_if(test_cases.begin(), test_cases.end(),
                                        [&](const OpCase& c) { return c.op == name; });
    if (test_case == test_cases.end()) {
      Fail("operator " + name + " has no benchmark case and no test case to make one from");
    }
    cases.push_back(DefaultCase(*test_case, min_elements));
  }
  return cases;
}

std::string BenchmarkName(const BenchCase& c, Direction direction, int type_flag) {
  return c.name + (direction == Direction::kForward ? "/forward/" : "/backward/") +
         mshadow::TypeFlagName(type_flag);
}

PreparedCall Prepare(const BenchCase& c, Direction direction, int type_flag) {
  PreparedCall call;
  const NodeAttrs forward = ParseAttrs(Op::Get(c.call.op), c.call.kwargs);
  std::vector<CpuTensor> inputs = testing::MakeInputs(c.call, type_flag);
  std::vector<CpuTensor> outputs = RunCpu(forward, Blobs(inputs), c.is_train);
  call.is_train = c.is_train;
  if (direction == Direction::kForward) {
    call.attrs = forward;
    call.inputs = std::move(inputs);
    call.outputs = std::move(outputs);
    call.input_blobs = Blobs(call.inputs);
  } else {
    call.attrs = BackwardAttrs(forward);
    std::vector<CpuTensor> out_grads;
    for (const CpuTensor& out : outputs) {
      const OpCase grad_case{c.call.op, {}, {InputSpec(out.shape())}};
      out_grads.push_back(testing::MakeInputs(grad_case, out.type_flag(), /*seed=*/7)[0]);
    }
    call.input_blobs = BackwardInputs(forward, Blobs(out_grads), Blobs(inputs), Blobs(outputs));
    // The input gradients: the forward inputs' shapes and types (ops/backward.h).
    for (const CpuTensor& in : inputs) call.outputs.emplace_back(in.shape(), in.type_flag());
    // Own every tensor the blobs point into.
    call.inputs = std::move(out_grads);
    call.inputs.insert(call.inputs.end(), inputs.begin(), inputs.end());
    call.inputs.insert(call.inputs.end(), outputs.begin(), outputs.end());
  }
  call.output_blobs = Blobs(call.outputs);
  call.req.assign(call.output_blobs.size(), kWriteTo);
  for (const std::vector<TBlob>* blobs : {&call.input_blobs, &call.output_blobs}) {
    for (const TBlob& blob : *blobs) {
      call.bytes += static_cast<double>(blob.Size()) * mshadow::TypeFlagSize(blob.type_flag_);
    }
  }
  return call;
}

}  // namespace bench
}  // namespace ops
