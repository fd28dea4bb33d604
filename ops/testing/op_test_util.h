// ops/testing/op_test_util.h: what every operator test checks, in one place.
//
//   ops::testing::OpCase c{"elemwise_mul", {}, {{TShape{3, 4}}, {TShape{3, 4}}}};
//   CheckForward(c, [](const Inputs& x) { ... return Outputs{...}; });  // float64 and float32
//   CheckWriteModes(c);   // kWriteTo overwrites, kAddTo accumulates, kNullOp leaves alone
//   CheckStreamedForward(c);  // streaming stores (large outputs) change no value
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
#include "ops/testing/op_cases.h"

namespace ops {
namespace testing {

// Runs the forward operator on the CPU (outputs allocated, kWriteTo).
std::vector<CpuTensor> Forward(const OpCase& c, const std::vector<CpuTensor>& inputs);

// Runs the backward operator on the CPU (kWriteTo) with output gradients of the given values
// (zeros for outputs past them: the hidden ones); returns the input gradients.
std::vector<CpuTensor> Backward(const OpCase& c, const std::vector<CpuTensor>& inputs,
                                const std::vector<Values>& out_grads);

// Compares the forward's visible outputs with `reference` (given the inputs' values) in
// float64 with `rtol64` and in float32 with `rtol32`.
using Reference = std::function<std::vector<Values>(const std::vector<Values>& inputs)>;
// The reference of a unary elementwise operator: f applied to every element.
Reference ElementwiseReference(std::function<double(double)> f);

// The forward checks' default relative tolerances in float64 and float32.
constexpr double kForwardRtol64 = 1e-12, kForwardRtol32 = 1e-5;
void CheckForward(const OpCase& c, const Reference& reference, double rtol64 = kForwardRtol64,
                  double rtol32 = kForwardRtol32);

// CheckForward for operators whose outputs are sums of many signed terms (convolutions): a
// float32 sum that cancels to near zero keeps only the absolute accuracy of its terms, so each
// float32 value is compared within rtol32 of the output's largest magnitude (float64 as
// CheckForward). A wrong or missing term still shows: it is as large as the terms.
void CheckForwardOfSums(const OpCase& c, const Reference& reference,
                        double rtol32 = kForwardRtol32);

// The forward with streaming stores forced on (for every output size; large outputs take
// them) equals the forward with none, element for element, in float64 and float32.
void CheckStreamedForward(const OpCase& c);

// An operator of one output writing it, streaming stores forced on, to a buffer at every
// element offset within a cache line (NumPy's arrays start 16 bytes into one; a host's may start
// anywhere), on 1 and 2 threads, in float64 and float32: the values the forward writes without
// streaming stores to an output of its own, and nothing written around the output.
void CheckStreamedOffALine(const OpCase& c);

// kWriteTo overwrites whatever the visible outputs held, kAddTo adds to it, kNullOp leaves it.
void CheckWriteModes(const OpCase& c);

// The float32 forward on 1 and on 2 of the library's threads: the same outputs, bit for bit
// (the thread count is left at 1).
void CheckSameOnThreadCounts(const OpCase& c);

// The backward operator's gradients against central differences of a random projection of
// the visible outputs, in float64; plus the backward operator's kAddTo and kNullOp.
void CheckGradient(const OpCase& c, double rtol = 1e-5, double atol = 1e-8);

// Each actual value within atol + rtol * max(|expected|, |actual|) of the expected one (NaN
// where NaN is expected); failures name `what` and the element.
void ExpectClose(const Values& expected, const Values& actual, double rtol, double atol,
                 const std::string& what);

// The float16 or bfloat16 forward (and backward, where the operator has one on that device)
// against float64 on the CPU from the same rounded inputs, within 4 units of the 16-bit
// type's last place: `run(attrs, inputs, outputs)` computes with outputs of the given shapes
// and types (kWriteTo) on the device under test and returns them on the host. Returns the
// number of calls compared: 0 where the operator's type inference rejects `type_flag`.
using SixteenBitRunner =
    std::function<std::vector<CpuTensor>(const NodeAttrs& attrs, const std::vector<TBlob>& inputs,
                                         const std::vector<CpuTensor>& outputs)>;
int CheckSixteenBit(const OpCase& c, int type_flag, const SixteenBitRunner& run);

// The message of the dmlc::Error that `f` throws ("" and a test failure if none).
std::string ErrorOf(const std::function<void()>& f);

// Output shapes inferred for the case's input shapes (rank-0 entries stay unknown).
std::vector<TShape> InferOutputShapes(const OpCase& c);

// One field of every spatial axis as a parameter tuple: "(3,3)", or "(3,)" for one axis
// (the convolution and deconvolution tests' kernel, stride, pad... per axis).
template <typename Axis>
std::string TupleOf(const std::vector<Axis>& axes, int Axis::*field) {
  std::string text = "(";
  for (size_t a = 0; a < axes.size(); ++a) {
    text += (a ? "," : "") + std::to_string(axes[a].*field);
  }
  return text + (axes.size() == 1 ? ",)" : ")");
}

}  // namespace testing
}  // namespace ops

#endif  // OPS_TESTING_OP_TEST_UTIL_H_
