#include "ops/bench/bench_cases.h"

#include <algorithm>
#include <set>
#include <sstream>

#include "dmlc/testing/error_message.h"
#include "gtest/gtest.h"
#include "ops/backward.h"

namespace ops {
namespace bench {
namespace {

using dmlc::testing::ErrorMessageOf;
using testing::InputSpec;
using testing::OpCase;

constexpr int64_t kMinElements = 1 << 14;  // small, so that every case runs quickly here

std::vector<BenchCase> Configured() { return LoadBenchCases("ops/bench/op_bench.txt"); }
std::vector<OpCase> TestCases() { return testing::LoadOpCases("ops/testing/op_cases.txt"); }

std::vector<BenchCase> Suite(const std::string& suite) {
  return CasesForSuite(Configured(), TestCases(), suite, kMinElements);
}

std::string ParseError(const std::string& text) {
  return ErrorMessageOf([&] {
    std::istringstream in(text);
    ParseBenchCases(in);
  });
}

TEST(BenchCasesTest, EveryForwardOperatorIsInTheFullSuite) {
  std::set<std::string> benchmarked;
  for (const BenchCase& c : Suite("full")) benchmarked.insert(Op::Get(c.call.op)->name);
  int forward_operators = 0;
  for (const std::string& name : Op::ListAllNames()) {
    const Op* op = Op::Get(name);
    if (op->name != name || op->HasAttr("TIsBackward")) continue;
    ++forward_operators;
    EXPECT_TRUE(benchmarked.count(name)) << name;
  }
  EXPECT_GT(forward_operators, 40);
}

TEST(BenchCasesTest, EveryBackwardOperatorIsTimedThroughItsForwardOperator) {
  std::set<std::string> timed_backward;
  for (const BenchCase& c : Suite("full")) {
    if (std::count(c.directions.begin(), c.directions.end(), Direction::kBackward)) {
      timed_backward.insert(GradientOf(*Op::Get(c.call.op)).backward_op);
    }
  }
  for (const std::string& name : Op::ListAllNames()) {
    const Op* op = Op::Get(name);
    if (op->name == name && op->HasAttr("TIsBackward")) {
      EXPECT_TRUE(timed_backward.count(name)) << name;
    }
  }
}

// What the harness times: each case prepares and runs in every direction and type it names.
TEST(BenchCasesTest, EveryCaseOfTheFullSuiteRuns) {
  int calls = 0;
  for (const BenchCase& c : Suite("full")) {
    for (const Direction direction : c.directions) {
      for (const int type_flag : c.type_flags) {
        const std::string name = BenchmarkName(c, direction, type_flag);
        try {
          const PreparedCall call = Prepare(c, direction, type_flag);
          InvokeUnchecked<mshadow::cpu>(call.attrs, MakeCpuContext(call.attrs, true),
                                        call.input_blobs, call.req, call.output_blobs);
          Invoke<mshadow::cpu>(call.attrs, MakeCpuContext(call.attrs, true), call.input_blobs,
                               call.req, call.output_blobs);  // the checks accept it too
          EXPECT_GT(call.bytes, 0) << name;
          EXPECT_EQ(call.output_blobs.size(), call.req.size()) << name;
          // The type is the forward inputs' (a backward call's output gradients follow them),
          // but for inputs whose type the case fixes (":int32" indices).
          const std::vector<TBlob>& forward_inputs =
              direction == Direction::kForward ? call.input_blobs : call.output_blobs;
          ASSERT_EQ(forward_inputs.size(), c.call.inputs.size()) << name;
          for (size_t i = 0; i < forward_inputs.size(); ++i) {
            const int fixed = c.call.inputs[i].type_flag;
            EXPECT_EQ(forward_inputs[i].type_flag_, fixed >= 0 ? fixed : type_flag) << name;
          }
          ++calls;
        } catch (const dmlc::Error& e) {
          ADD_FAILURE() << name << ": " << e.what();
        }
      }
    }
  }
  EXPECT_GT(calls, 80);
}

TEST(BenchCasesTest, SmokeAndMxnetSuitesAreSubsetsOfTheFile) {
  const std::vector<BenchCase> smoke = Suite("smoke"), mxnet = Suite("mxnet");
  EXPECT_GE(smoke.size(), 5U);
  EXPECT_GE(mxnet.size(), 10U);
  for (const BenchCase& c : smoke) EXPECT_EQ(c.origin, "config") << c.name;
  // tools/bench/mxnet_compare.py times MXNet in float32 only.
  for (const BenchCase& c : mxnet) {
    EXPECT_EQ(c.type_flags, std::vector<int>{mshadow::kFloat32}) << c.name;
  }
}

TEST(BenchCasesTest, DefaultCaseScalesEveryAxisWhenInferenceAllows) {
  const OpCase add{"elemwise_add", {}, {InputSpec(TShape{3, 4}), InputSpec(TShape{3, 4})}};
  const BenchCase c = DefaultCase(add, 1 << 20);
  EXPECT_EQ(c.name, "elemwise_add_default");
  EXPECT_EQ(c.origin, "default: every axis scaled by 296");
  EXPECT_EQ(c.call.inputs[0].shape, (TShape{888, 1184}));
  EXPECT_EQ(c.call.inputs[1].shape, (TShape{888, 1184}));
  EXPECT_GE(c.call.inputs[0].shape.Size(), 1U << 20);
  EXPECT_EQ(c.directions, (std::vector<Direction>{Direction::kForward, Direction::kBackward}));
  EXPECT_EQ(c.type_flags, std::vector<int>{mshadow::kFloat32});
}

TEST(BenchCasesTest, DefaultCaseKeepsBroadcastAxesAndValueRanges) {
  OpCase label_case{"softmax_cross_entropy", {}, {InputSpec(TShape{4, 5}), InputSpec(TShape{4})}};
  label_case.inputs[1].integer = true;
  label_case.inputs[1].lo = 0;
  label_case.inputs[1].hi = 5;
  const BenchCase c = DefaultCase(label_case, 1 << 16);
  EXPECT_EQ(c.call.inputs[0].shape, (TShape{232, 290}));
  EXPECT_EQ(c.call.inputs[1].shape, (TShape{232}));
  EXPECT_TRUE(c.call.inputs[1].integer);
  EXPECT_EQ(c.call.inputs[1].hi, 5);

  const OpCase broadcast{"broadcast_add", {}, {InputSpec(TShape{2, 3}), InputSpec(TShape{1, 3})}};
  EXPECT_EQ(DefaultCase(broadcast, 600).call.inputs[1].shape, (TShape{1, 30}));
}

TEST(BenchCasesTest, DefaultCaseFallsBackToTheBatchAxisThenToTheTestCase) {
  // num_hidden=5 pins the weight's rows: only the batch can grow.
  const OpCase fc{"FullyConnected",
                  {{"num_hidden", "5"}},
                  {InputSpec(TShape{4, 6}), InputSpec(TShape{5, 6}), InputSpec(TShape{5})}};
  const BenchCase batched = DefaultCase(fc, 6000);
  EXPECT_EQ(batched.origin, "default: the first input's first axis scaled");
  EXPECT_EQ(batched.call.inputs[0].shape, (TShape{1000, 6}));
  EXPECT_EQ(batched.call.inputs[1].shape, (TShape{5, 6}));

  // Reshape's target (6,4) holds exactly 24 elements: nothing can grow.
  const OpCase reshape{"Reshape", {{"shape", "(6,4)"}}, {InputSpec(TShape{2, 3, 4})}};
  const BenchCase as_given = DefaultCase(reshape, 1 << 16);
  EXPECT_EQ(as_given.origin, "default: the test case as given");
  EXPECT_EQ(as_given.call.inputs[0].shape, (TShape{2, 3, 4}));

  // No backward for an operator without a gradient.
  const OpCase sgd{"sgd_update", {{"lr", "0.1"}}, {InputSpec(TShape{8}), InputSpec(TShape{8})}};
  EXPECT_EQ(DefaultCase(sgd, 64).directions, std::vector<Direction>{Direction::kForward});
}

TEST(BenchCasesTest, ParsesOptions) {
  std::istringstream in(
      "# comment\n"
      "a | relu | (8,8) | | backward float64 float32 smoke\n"
      "b | FullyConnected | (2,3) (4,3) | num_hidden=4 no_bias=True |\n");
  const std::vector<BenchCase> cases = ParseBenchCases(in);
  ASSERT_EQ(cases.size(), 2U);
  EXPECT_EQ(cases[0].directions, std::vector<Direction>{Direction::kBackward});
  EXPECT_EQ(cases[0].type_flags, (std::vector<int>{mshadow::kFloat64, mshadow::kFloat32}));
  EXPECT_EQ(cases[0].suites, std::vector<std::string>{"smoke"});
  EXPECT_EQ(BenchmarkName(cases[0], Direction::kBackward, mshadow::kFloat64), "a/backward/float64");
  EXPECT_EQ(cases[1].call.kwargs.at("no_bias"), "True");
  EXPECT_EQ(cases[1].directions,
            (std::vector<Direction>{Direction::kForward, Direction::kBackward}));
  EXPECT_TRUE(cases[1].suites.empty());
}

TEST(BenchCasesTest, BadLinesAreErrorsNamingTheLine) {
  EXPECT_EQ(
      ParseError("a | relu | (8)\n"),
      "benchmark cases line 1: expected 'case name | operator | inputs | parameters | options'");
  EXPECT_EQ(ParseError("\na | nosuchop | (8) | |\n"),
            "benchmark cases line 2: no operator named 'nosuchop'");
  EXPECT_EQ(ParseError("a | relu | (8) | | fast\n"),
            "benchmark cases line 1: unknown option 'fast'; valid: forward, backward, float32, "
            "float64, inference, full, smoke, mxnet");
  EXPECT_EQ(ParseError("a | sgd_update | (8) (8) | lr=0.1 | backward\n"),
            "benchmark cases line 1: option 'backward': sgd_update has no gradient");
  EXPECT_EQ(ParseError("a | relu | (8) | |\na | relu | (9) | |\n"),
            "benchmark cases line 2: case name 'a' is used twice");
  EXPECT_EQ(ParseError("a/b | relu | (8) | |\n"),
            "benchmark cases line 1: bad case name 'a/b'; valid: letters, digits, '_', '.', '-'");
  EXPECT_EQ(ParseError("a | relu | 8 | |\n"), "benchmark cases line 1: bad input shape '8'");
  EXPECT_NE(ParseError("a | clip | (8) | a_min=x a_max=1 |\n").find("benchmark cases line 1: "),
            std::string::npos);
  EXPECT_EQ(ErrorMessageOf([] { CasesForSuite({}, {}, "nightly", 1); }),
            "unknown suite 'nightly'; valid: full, smoke, mxnet");
  EXPECT_EQ(ErrorMessageOf([] { LoadBenchCases("/nonexistent/cases.txt"); }),
            "cannot open the benchmark case file /nonexistent/cases.txt");
}

TEST(BenchCasesTest, AnOperatorWithNoCaseAnywhereIsAnError) {
  EXPECT_EQ(ErrorMessageOf([] { CasesForSuite({}, {}, "full", 1); }).rfind("operator ", 0), 0U);
}

}  // namespace
}  // namespace bench
}  // namespace ops
