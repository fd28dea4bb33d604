// ops/testing/op_test_util.h: what every operator test checks, in one place.
//
//   ops::testing::OpCase c{"elemwise_mul", {}, {{TShape{3, 4}}, {TShape{3, 4}}}};
//   CheckForward(c, [](const Inputs& x) { ... return Outputs{...}; });  // float64 and float32
//   CheckWriteModes(c);   // kWriteTo overwrites, kAddTo accumulates, kNullOp leaves alone
//   CheckGradient(c);     // _backward_* against central differences, in float64
//
// Inputs are filled with fixed-seed uniform values in each InputSpec's range (or its given
// values), so every failure reproduces.
#ifndef OPS_TESTING_OP_TEST_UTIL_H_
#define OPS_TESTING_OP_TEST_UTIL_H_

#include <cstdint>
#include <functional>
#include <map>
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
};

struct OpCase {
  std::string op;
  std::map<std::string, std::string> kwargs;
  std::vector<InputSpec> inputs;
};

// One tensor's values, row-major, as doubles.
using Values = std::vector<double>;

std::vector<CpuTensor> MakeInputs(const OpCase& c, int type_flag, uint64_t seed = 42);
Values ToValues(const TBlob& blob);
void SetValues(const TBlob& blob, const Values& values);

// Runs the forward operator on the CPU (outputs allocated, kWriteTo).
std::vector<CpuTensor> Forward(const OpCase& c, const std::vector<CpuTensor>& inputs);

// Compares the forward outputs with `reference` (given the inputs' values) in float64 with
// `rtol64` and in float32 with `rtol32`.
using Reference = std::function<std::vector<Values>(const std::vector<Values>& inputs)>;
// The reference of a unary elementwise operator: f applied to every element.
Reference ElementwiseReference(std::function<double(double)> f);

void CheckForward(const OpCase& c, const Reference& reference, double rtol64 = 1e-12,
                  double rtol32 = 1e-5);

// kWriteTo overwrites whatever the outputs held, kAddTo adds to it, kNullOp leaves it.
void CheckWriteModes(const OpCase& c);

// The backward operator's gradients against central differences of a random projection of
// the outputs, in float64; plus the backward operator's kAddTo and kNullOp.
void CheckGradient(const OpCase& c, double rtol = 1e-5, double atol = 1e-8);

// The message of the dmlc::Error that `f` throws ("" and a test failure if none).
std::string ErrorOf(const std::function<void()>& f);

// Output shapes inferred for the case's input shapes (rank-0 entries stay unknown).
std::vector<TShape> InferOutputShapes(const OpCase& c);

}  // namespace testing
}  // namespace ops

#endif  // OPS_TESTING_OP_TEST_UTIL_H_
