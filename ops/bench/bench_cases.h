// ops/bench/bench_cases.h: what the operator benchmark harness (//ops/bench:op_bench) times,
// from one declarative file (ops/bench/op_bench.txt), one case a line:
//
//   case name | operator | inputs | parameters | options
//   softmax_256x1000 | softmax | (256,1000) | axis=-1 | forward backward smoke mxnet
//
// Inputs and parameters are written as in the operator case table (ops/testing/op_cases.h):
// "(64,10){0,10}" is an input of whole numbers in [0, 10). Options, any order:
//   forward, backward  the directions to time (default: forward, and backward when the
//                      operator has a gradient); backward times the operator FGradient names
//   float32, float64   the input type (default float32)
//   smoke, mxnet       suites the case belongs to besides `full` (smoke: CI's short run;
//                      mxnet: the cases tools/bench/mxnet_compare.py times against MXNet)
//   inference          run with is_train false (default: training, as MXNet under autograd)
//
// Every registered forward operator is in the `full` suite: one the file does not name gets a
// default case from its first entry in the operator case table, scaled up (DefaultCase), so
// a new operator is benchmarked without code.
#ifndef OPS_BENCH_BENCH_CASES_H_
#define OPS_BENCH_BENCH_CASES_H_

#include <cstdint>
#include <istream>
#include <string>
#include <vector>

#include "ops/imperative.h"
#include "ops/testing/op_cases.h"

namespace ops {
namespace bench {

enum class Direction { kForward, kBackward };

struct BenchCase {
  std::string name;
  testing::OpCase call;
  std::vector<Direction> directions;
  std::vector<int> type_flags;
  std::vector<std::string> suites;  // besides "full"
  bool is_train = true;             // false: the `inference` option
  // Where the case comes from: "config", or the default rule that made it.
  std::string origin = "config";
};

// The suites a case can name.
const std::vector<std::string>& KnownSuites();

// The file's cases; a malformed line, an unknown operator or option, or a repeated case
// name is a dmlc::Error naming the line.
std::vector<BenchCase> ParseBenchCases(std::istream& in);
std::vector<BenchCase> LoadBenchCases(const std::string& path);

// The benchmark case for an operator the file does not name, from `test_case` (a valid call,
// usually small): every extent above 1 of every input scaled by one factor until the largest
// input holds at least `min_elements`; if inference rejects that, only the first input's
// first axis; if that fails too, the call as it is. `origin` says which rule applied.
BenchCase DefaultCase(const testing::OpCase& test_case, int64_t min_elements);

// The cases of `suite` ("full", "smoke" or "mxnet"): the file's cases in it and, for "full",
// a default case for every registered forward operator the file does not name (from
// `test_cases`; an operator in neither is a dmlc::Error).
std::vector<BenchCase> CasesForSuite(const std::vector<BenchCase>& configured,
                                     const std::vector<testing::OpCase>& test_cases,
                                     const std::string& suite, int64_t min_elements);

// "softmax_256x1000/forward/float32": the benchmark's name.
std::string BenchmarkName(const BenchCase& c, Direction direction, int type_flag);

// One timed call with everything it reads and writes allocated and filled: the forward
// operator, or for kBackward the backward operator on random output gradients and the
// forward inputs and outputs it reads.
struct PreparedCall {
  NodeAttrs attrs;
  std::vector<CpuTensor> inputs, outputs;
  std::vector<TBlob> input_blobs, output_blobs;
  std::vector<OpReqType> req;
  bool is_train = true;
  double bytes = 0;  // read and written by one call
};
PreparedCall Prepare(const BenchCase& c, Direction direction, int type_flag);

}  // namespace bench
}  // namespace ops

#endif  // OPS_BENCH_BENCH_CASES_H_
