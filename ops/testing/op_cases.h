// ops/testing/op_cases.h: operator calls described as data: an operator, its inputs (shape and
// value range) and its keyword arguments. The case table (ops/testing/op_cases.txt) holds a
// valid call of every registered forward operator; the operator tests, the C ABI test, the
// Python suite and the benchmark harness (//ops/bench:op_bench) read it.
//
//   for (const OpCase& c : LoadOpCases("ops/testing/op_cases.txt")) {
//     std::vector<CpuTensor> inputs = MakeInputs(c, mshadow::kFloat32);
//     ...
//   }
#ifndef OPS_TESTING_OP_CASES_H_
#define OPS_TESTING_OP_CASES_H_

#include <cstdint>
#include <functional>
#include <istream>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "ops/imperative.h"

namespace ops {
namespace testing {

struct InputSpec {
  InputSpec(TShape shape, double lo = -1.0, double hi = 1.0)  // NOLINT(runtime/explicit)
      : shape(std::move(shape)), lo(lo), hi(hi) {}
  // Explicit values instead of random ones.
  static InputSpec WithValues(TShape shape, std::vector<double> values) {
    InputSpec spec(std::move(shape));
    spec.values = std::move(values);
    return spec;
  }

  TShape shape;
  // The range of the uniform random values.
  double lo;
  double hi;
  // Whether to check this input's gradient (false for labels, indices).
  bool differentiable = true;
  // Whole numbers in [lo, hi) (labels, indices) instead of reals in [lo, hi].
  bool integer = false;
  std::vector<double> values;
  // The input's own type; -1: the type the case runs in.
  int type_flag = -1;
};

struct OpCase {
  std::string op;
  std::map<std::string, std::string> kwargs;
  std::vector<InputSpec> inputs;
};

// One tensor's values, row-major, as doubles.
using Values = std::vector<double>;

// The case's inputs as tensors of `type_flag` (or their own type), filled with fixed-seed uniform values in each
// InputSpec's range (or its given values).
std::vector<CpuTensor> MakeInputs(const OpCase& c, int type_flag, uint64_t seed = 42);
// n uniform values in [lo, hi].
Values RandomValues(size_t n, double lo, double hi, std::mt19937_64* rng);
Values ToValues(const TBlob& blob);
// A dmlc::Error if the counts differ.
void SetValues(const TBlob& blob, const Values& values);
// A tensor of `shape` and type holding `values`; without a shape, 1-d of their count.
CpuTensor TensorOf(const TShape& shape, int type_flag, const Values& values);
CpuTensor TensorOf(int type_flag, const Values& values);

// One input as the table writes it: "(4,5)", "(3,4)[0.5,2]" (reals in [0.5, 2]) or
// "(4){0,5}" (whole numbers in [0, 5)), any of them followed by '~' for a state input that is
// not differentiated (BatchNorm's moving statistics); a dmlc::Error for anything else.
InputSpec ParseInputSpec(const std::string& text);

// Calls `parse` on every line of a table that is neither blank nor a comment ('#'), trimmed;
// a dmlc::Error it throws gains the prefix "<table> line <number>: ".
void ForEachTableLine(std::istream& in, const std::string& table,
                      const std::function<void(const std::string& line)>& parse);

// The '|'-separated fields of a table line, trimmed ("a | b |" has two).
std::vector<std::string> SplitTableFields(const std::string& line);

// One line of the table: "operator | inputs | parameters"; a dmlc::Error if malformed.
OpCase ParseOpCase(const std::string& line);
// The same from the line's three fields ("(4,5) (5)", "key=value ...").
OpCase ParseOpCase(const std::string& op, const std::string& inputs, const std::string& params);

// The table: "operator | inputs | parameters" per non-comment line; a malformed line is a
// dmlc::Error naming its number.
std::vector<OpCase> ParseOpCases(std::istream& in);
std::vector<OpCase> LoadOpCases(const std::string& path);

// "FullyConnected (4,6) (5,6) (5) num_hidden=5", for test messages.
std::string CaseName(const OpCase& c);

}  // namespace testing
}  // namespace ops

#endif  // OPS_TESTING_OP_CASES_H_
