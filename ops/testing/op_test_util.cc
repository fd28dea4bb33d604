#include "ops/testing/op_test_util.h"

#include "mshadow/parallel.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>
#include <string>

#include "dmlc/testing/error_message.h"
#include "gtest/gtest.h"
#include "mshadow/streaming_stores.h"
#include "ops/backward.h"
#include "ops/infer.h"
#include "ops/random_source.h"

namespace ops {
namespace testing {
namespace {

NodeAttrs AttrsOf(const std::string& op_name, const std::map<std::string, std::string>& kwargs) {
  return ParseAttrs(Op::Get(op_name), kwargs);
}

// Same shape, same type, filled with the given values.
CpuTensor TensorLike(const TBlob& like, const Values& values) {
  return TensorOf(like.shape_, like.type_flag_, values);
}

// How many of the operator's outputs a caller sees (all unless set_num_visible_outputs).
size_t VisibleOutputs(const NodeAttrs& attrs) { return attrs.op->num_visible_outputs(attrs); }

}  // namespace

void ExpectClose(const Values& expected, const Values& actual, double rtol, double atol,
                 const std::string& what) {
  ASSERT_EQ(expected.size(), actual.size()) << what;
  // One failure per call, naming the first few elements that differ and how many do: a broken
  // kernel over millions of elements once wrote gigabytes of test log, one line each. Equal
  // values pass (infinities too).
  constexpr size_t kListed = 8;
  size_t differing = 0;
  std::ostringstream listed;
  listed.precision(17);
  for (size_t i = 0; i < expected.size(); ++i) {
    const double tolerance = atol + rtol * std::max(std::fabs(expected[i]), std::fabs(actual[i]));
    const bool close = std::isnan(expected[i])
                           ? std::isnan(actual[i])
                           : expected[i] == actual[i] ||  // infinities too
                                 std::fabs(expected[i] - actual[i]) <= tolerance;
    if (close) continue;
    if (++differing <= kListed) {
      listed << "\n  element " << i << ": expected " << expected[i] << ", actual " << actual[i]
             << " (tolerance " << tolerance << ")";
    }
  }
  if (differing > 0) {
    ADD_FAILURE() << what << ": " << differing << " of " << expected.size() << " elements differ"
                  << (differing > kListed ? ", the first:" : ":") << listed.str();
  }
}

std::vector<CpuTensor> Forward(const OpCase& c, const std::vector<CpuTensor>& inputs) {
  return RunCpu(AttrsOf(c.op, c.kwargs), Blobs(inputs), /*is_train=*/true);
}

std::vector<CpuTensor> Backward(const OpCase& c, const std::vector<CpuTensor>& inputs,
                                const std::vector<Values>& out_grads) {
  const NodeAttrs attrs = AttrsOf(c.op, c.kwargs);
  const NodeAttrs backward_attrs = BackwardAttrs(attrs);
  const std::vector<CpuTensor> outputs = Forward(c, inputs);
  // Hidden outputs take no gradient from the caller: zeros.
  std::vector<CpuTensor> heads, grads;
  for (size_t k = 0; k < outputs.size(); ++k) {
    heads.push_back(k < out_grads.size()
                        ? TensorLike(outputs[k].blob(), out_grads[k])
                        : CpuTensor(outputs[k].shape(), outputs[k].type_flag()));
  }
  for (const CpuTensor& x : inputs) grads.emplace_back(x.shape(), x.type_flag());
  Invoke<mshadow::cpu>(backward_attrs, MakeCpuContext(backward_attrs, true),
                       BackwardInputs(attrs, Blobs(heads), Blobs(inputs), Blobs(outputs)),
                       std::vector<OpReqType>(grads.size(), kWriteTo), Blobs(grads));
  return grads;
}

Reference ElementwiseReference(std::function<double(double)> f) {
  return [f](const std::vector<Values>& in) {
    Values out(in[0].size());
    for (size_t i = 0; i < out.size(); ++i) out[i] = f(in[0][i]);
    return std::vector<Values>{out};
  };
}

namespace {

// How CheckForward bounds a float32 value's error: by its own magnitude, or by the largest
// magnitude of its output.
enum class Float32Scale { kElement, kOutput };

void CompareForward(const OpCase& c, const Reference& reference, double rtol64, double rtol32,
                    Float32Scale scale32) {
  for (const int type_flag : {mshadow::kFloat64, mshadow::kFloat32}) {
    const std::vector<CpuTensor> inputs = MakeInputs(c, type_flag);
    std::vector<Values> input_values;
    for (const CpuTensor& t : inputs) input_values.push_back(ToValues(t.blob()));
    const std::vector<Values> expected = reference(input_values);
    const std::vector<CpuTensor> outputs = Forward(c, inputs);
    // The reference gives the visible outputs (hidden ones are checked through the gradient).
    ASSERT_EQ(VisibleOutputs(AttrsOf(c.op, c.kwargs)), expected.size()) << c.op;
    const bool is_float64 = type_flag == mshadow::kFloat64;
    const double rtol = is_float64 ? rtol64 : rtol32;
    for (size_t i = 0; i < expected.size(); ++i) {
      EXPECT_EQ(outputs[i].type_flag(), type_flag) << c.op << " output " << i;
      double atol = rtol;
      if (!is_float64 && scale32 == Float32Scale::kOutput) {
        for (const double e : expected[i]) atol = std::max(atol, rtol * std::fabs(e));
      }
      ExpectClose(expected[i], ToValues(outputs[i].blob()), rtol, atol,
                  c.op + " " + mshadow::TypeFlagName(type_flag) + " output " + std::to_string(i));
    }
  }
}

}  // namespace

void CheckForward(const OpCase& c, const Reference& reference, double rtol64, double rtol32) {
  CompareForward(c, reference, rtol64, rtol32, Float32Scale::kElement);
}

void CheckForwardOfSums(const OpCase& c, const Reference& reference, double rtol32) {
  CompareForward(c, reference, kForwardRtol64, rtol32, Float32Scale::kOutput);
}

namespace {
// Streaming stores from `bytes` on, the default restored however the checks end (an ASSERT
// returns, an operator throws).
struct StreamingFrom {
  explicit StreamingFrom(index_t bytes) { mshadow::SetStreamingStoreMinBytes(bytes); }
  ~StreamingFrom() { mshadow::SetStreamingStoreMinBytes(0); }
};
}  // namespace

void CheckStreamedForward(const OpCase& c) {
  for (const int type_flag : {mshadow::kFloat64, mshadow::kFloat32}) {
    const std::vector<CpuTensor> inputs = MakeInputs(c, type_flag);
    std::vector<CpuTensor> ordinary, streamed;
    {
      const StreamingFrom never(mshadow::kNoStreamingStores);
      ordinary = Forward(c, inputs);
    }
    {
      const StreamingFrom always(1);
      streamed = Forward(c, inputs);
    }
    ASSERT_EQ(streamed.size(), ordinary.size()) << c.op;
    for (size_t i = 0; i < ordinary.size(); ++i) {
      EXPECT_EQ(ToValues(streamed[i].blob()), ToValues(ordinary[i].blob()))
          << c.op << " " << mshadow::TypeFlagName(type_flag) << " output " << i;
    }
  }
}

void CheckStreamedOffALine(const OpCase& c) {
  constexpr double kAround = -7.25;  // what the buffer holds around the output
  const NodeAttrs attrs = AttrsOf(c.op, c.kwargs);
  for (const int type_flag : {mshadow::kFloat64, mshadow::kFloat32}) {
    const std::vector<CpuTensor> inputs = MakeInputs(c, type_flag);
    std::vector<CpuTensor> ordinary;
    {
      const StreamingFrom never(mshadow::kNoStreamingStores);
      ordinary = Forward(c, inputs);
    }
    ASSERT_EQ(ordinary.size(), 1u) << c.op << ": one output";
    const TShape shape = ordinary[0].shape();
    const Values expected = ToValues(ordinary[0].blob());
    const index_t n = shape.Size();
    const index_t element = mshadow::TypeFlagSize(type_flag);
    const index_t a_line = static_cast<index_t>(mshadow::kCacheLineBytes) / element;
    const StreamingFrom always(1);
    for (index_t offset = 0; offset < a_line; ++offset) {
      for (const int threads : {1, 2}) {
        SCOPED_TRACE(c.op + " " + mshadow::TypeFlagName(type_flag) + " offset " +
                     std::to_string(offset) + " threads " + std::to_string(threads));
        mshadow::SetNumThreads(threads);
        // Allocated on a line (TensorOf), the output `offset` elements in.
        const CpuTensor buffer = TensorOf(TShape{n + 2 * a_line}, type_flag,
                                          Values(static_cast<size_t>(n + 2 * a_line), kAround));
        const TBlob y(static_cast<char*>(buffer.blob().dptr_) + offset * element, shape,
                      mshadow::cpu::kDevMask, type_flag);
        Invoke<mshadow::cpu>(attrs, MakeCpuContext(attrs), Blobs(inputs), {kWriteTo}, {y});
        EXPECT_EQ(ToValues(y), expected);
        const Values all = ToValues(buffer.blob());
        for (index_t i = 0; i < static_cast<index_t>(all.size()); ++i) {
          if (i < offset || i >= offset + n) ASSERT_EQ(all[i], kAround) << "element " << i;
        }
      }
    }
  }
  mshadow::SetNumThreads(0);
}

void CheckSameOnThreadCounts(const OpCase& c) {
  std::vector<std::vector<Values>> results;
  for (const int threads : {1, 2}) {
    mshadow::SetNumThreads(threads);
    const std::vector<CpuTensor> outputs = Forward(c, MakeInputs(c, mshadow::kFloat32));
    results.emplace_back();
    for (const CpuTensor& out : outputs) results.back().push_back(ToValues(out.blob()));
  }
  mshadow::SetNumThreads(1);
  EXPECT_EQ(results[0], results[1]) << c.op << ": outputs differ between 1 and 2 threads";
}

namespace {

// What an output holds before an operator writes it (kAddTo adds to it): uniform values in
// [lo, hi], whole numbers for integer types (counts, positions, int32 marks' gradients).
Values PriorValues(const TBlob& blob, double lo, double hi, std::mt19937_64* rng) {
  Values v = RandomValues(static_cast<size_t>(blob.Size()), lo, hi, rng);
  if (blob.type_flag_ == mshadow::kInt32 || blob.type_flag_ == mshadow::kInt64) {
    for (double& x : v) x = std::round(x);
  }
  return v;
}

}  // namespace

void CheckWriteModes(const OpCase& c) {
  const std::vector<CpuTensor> inputs = MakeInputs(c, mshadow::kFloat64);
  const std::vector<CpuTensor> reference = Forward(c, inputs);
  const NodeAttrs attrs = AttrsOf(c.op, c.kwargs);
  std::mt19937_64 rng(7);
  // Hidden outputs are written whatever the request; the visible ones are checked.
  const size_t visible = VisibleOutputs(attrs);
  for (const OpReqType req : {kWriteTo, kAddTo, kNullOp}) {
    std::vector<CpuTensor> outputs;
    std::vector<Values> before;
    for (const CpuTensor& r : reference) {
      before.push_back(PriorValues(r.blob(), -5, 5, &rng));
      outputs.push_back(TensorLike(r.blob(), before.back()));
    }
    std::vector<OpReqType> requests(outputs.size(), kWriteTo);
    std::fill(requests.begin(), requests.begin() + visible, req);
    // Fresh copies of the inputs: an operator must not write them.
    const std::vector<CpuTensor> fresh = MakeInputs(c, mshadow::kFloat64);
    Invoke<mshadow::cpu>(attrs, MakeCpuContext(attrs, true), Blobs(fresh), requests,
                         Blobs(outputs));
    for (size_t i = 0; i < visible; ++i) {
      Values expected = ToValues(reference[i].blob());
      if (req == kAddTo) {
        for (size_t j = 0; j < expected.size(); ++j) expected[j] += before[i][j];
      } else if (req == kNullOp) {
        expected = before[i];
      }
      ExpectClose(expected, ToValues(outputs[i].blob()), 1e-12, 1e-12,
                  c.op + " req " + std::to_string(req) + " output " + std::to_string(i));
    }
    for (size_t i = 0; i < fresh.size(); ++i) {
      EXPECT_EQ(ToValues(fresh[i].blob()), ToValues(inputs[i].blob()))
          << c.op << " wrote its input " << i;
    }
  }
}

void CheckGradient(const OpCase& c, double rtol, double atol) {
  const Op* op = Op::Get(c.op);
  const FGradient* gradient = op->GetAttr<FGradient>("FGradient");
  ASSERT_NE(gradient, nullptr) << c.op << " has no FGradient";
  const NodeAttrs attrs = AttrsOf(c.op, c.kwargs);
  const NodeAttrs backward_attrs = BackwardAttrs(attrs);

  std::vector<CpuTensor> inputs = MakeInputs(c, mshadow::kFloat64);
  const std::vector<CpuTensor> outputs = Forward(c, inputs);
  // The loss is sum_k <weights_k, outputs_k>; its output gradients are the weights. Hidden
  // outputs (Dropout's mask, CTCLoss's gradient, topk's positions) are not part of it.
  std::mt19937_64 rng(11);
  const size_t visible = VisibleOutputs(attrs);
  std::vector<CpuTensor> weights;
  for (size_t k = 0; k < outputs.size(); ++k) {
    const size_t n = static_cast<size_t>(outputs[k].shape().Size());
    const bool hidden = k >= visible;
    weights.push_back(TensorLike(outputs[k].blob(),
                                 hidden ? Values(n, 0.0) : RandomValues(n, -1, 1, &rng)));
  }
  auto loss = [&]() {
    const std::vector<CpuTensor> y = Forward(c, inputs);
    double sum = 0;
    for (size_t k = 0; k < y.size(); ++k) {
      const Values yv = ToValues(y[k].blob()), wv = ToValues(weights[k].blob());
      for (size_t j = 0; j < yv.size(); ++j) sum += yv[j] * wv[j];
    }
    return sum;
  };

  const std::vector<TBlob> backward_inputs =
      BackwardInputs(attrs, Blobs(weights), Blobs(inputs), Blobs(outputs));
  auto run_backward = [&](OpReqType req, const std::vector<Values>& initial) {
    std::vector<CpuTensor> grads;
    for (size_t i = 0; i < inputs.size(); ++i) grads.push_back(TensorLike(inputs[i].blob(), initial[i]));
    Invoke<mshadow::cpu>(backward_attrs, MakeCpuContext(backward_attrs, true), backward_inputs,
                         std::vector<OpReqType>(grads.size(), req), Blobs(grads));
    std::vector<Values> values;
    for (const CpuTensor& g : grads) values.push_back(ToValues(g.blob()));
    return values;
  };
  std::vector<Values> garbage;
  for (const CpuTensor& t : inputs) garbage.push_back(PriorValues(t.blob(), -3, 3, &rng));
  const std::vector<Values> analytic = run_backward(kWriteTo, garbage);

  // Central differences on up to 40 elements of each differentiable input.
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!c.inputs[i].differentiable) continue;
    Values x = ToValues(inputs[i].blob());
    std::vector<size_t> picks(x.size());
    for (size_t j = 0; j < picks.size(); ++j) picks[j] = j;
    std::shuffle(picks.begin(), picks.end(), rng);
    picks.resize(std::min<size_t>(picks.size(), 40));
    for (const size_t j : picks) {
      const double original = x[j];
      const double eps = 1e-6 * std::max(1.0, std::fabs(original));
      x[j] = original + eps;
      SetValues(inputs[i].blob(), x);
      const double plus = loss();
      x[j] = original - eps;
      SetValues(inputs[i].blob(), x);
      const double minus = loss();
      x[j] = original;
      SetValues(inputs[i].blob(), x);
      const double numeric = (plus - minus) / (2 * eps);
      const double tolerance =
          atol + rtol * std::max(std::fabs(numeric), std::fabs(analytic[i][j])) + 1e-7;
      EXPECT_NEAR(analytic[i][j], numeric, tolerance)
          << c.op << ": gradient of input " << i << " element " << j;
    }
  }

  // The backward operator honours kAddTo and kNullOp too.
  const std::vector<Values> added = run_backward(kAddTo, garbage);
  const std::vector<Values> untouched = run_backward(kNullOp, garbage);
  for (size_t i = 0; i < inputs.size(); ++i) {
    Values expected = analytic[i];
    for (size_t j = 0; j < expected.size(); ++j) expected[j] += garbage[i][j];
    ExpectClose(expected, added[i], 1e-12, 1e-12, c.op + " backward kAddTo input " + std::to_string(i));
    EXPECT_EQ(untouched[i], garbage[i]) << c.op << " backward kNullOp input " << i;
  }
}

std::string ErrorOf(const std::function<void()>& f) { return dmlc::testing::ErrorMessageOf(f); }

std::vector<TShape> InferOutputShapes(const OpCase& c) {
  const NodeAttrs attrs = AttrsOf(c.op, c.kwargs);
  std::vector<TShape> in, out;
  for (const InputSpec& spec : c.inputs) in.push_back(spec.shape);
  InferShapes(attrs, &in, &out);
  return out;
}

namespace {

// A float64 copy of each tensor (the 16-bit values exactly).
std::vector<CpuTensor> InFloat64(const std::vector<CpuTensor>& tensors) {
  std::vector<CpuTensor> out;
  for (const CpuTensor& t : tensors) {
    out.push_back(TensorOf(t.shape(), mshadow::kFloat64, ToValues(t.blob())));
  }
  return out;
}

// Copies of `tensors` in the types of `like`, one for one (the reference's output types:
// float64, or what a parameter fixes, as Cast's dtype).
std::vector<CpuTensor> InTypesOf(const std::vector<CpuTensor>& tensors,
                                 const std::vector<CpuTensor>& like) {
  std::vector<CpuTensor> out;
  for (size_t i = 0; i < tensors.size(); ++i) {
    out.push_back(TensorOf(tensors[i].shape(), like[i].type_flag(), ToValues(tensors[i].blob())));
  }
  return out;
}

void ExpectSixteenBitClose(const std::vector<CpuTensor>& want, const std::vector<CpuTensor>& got,
                           double tolerance, const std::string& what) {
  ASSERT_EQ(want.size(), got.size()) << what;
  for (size_t i = 0; i < want.size(); ++i) {
    ExpectClose(ToValues(want[i].blob()), ToValues(got[i].blob()), tolerance, tolerance,
                what + " output " + std::to_string(i));
  }
}

}  // namespace

int CheckSixteenBit(const OpCase& c, int type_flag, const SixteenBitRunner& run) {
  const NodeAttrs attrs = ParseAttrs(Op::Get(c.op), c.kwargs);
  std::vector<int> in_types(c.inputs.size(), type_flag), out_types;
  try {
    InferTypes(attrs, &in_types, &out_types);
  } catch (const dmlc::Error&) {
    return 0;  // not a type this operator takes
  }
  const std::string what = CaseName(c) + " " + mshadow::TypeFlagName(type_flag);
  const double tolerance = type_flag == mshadow::kFloat16 ? 4.0 / 2048 : 4.0 / 256;
  const std::vector<CpuTensor> inputs = MakeInputs(c, type_flag);
  const std::vector<CpuTensor> inputs64 = InFloat64(inputs);
  // Both runs from the same seed: an operator that draws random numbers draws the same ones.
  constexpr uint64_t kSeed = 17;
  SetRandomSeed(kSeed);
  const std::vector<CpuTensor> want = RunCpu(attrs, Blobs(inputs64), /*is_train=*/true);
  std::vector<CpuTensor> outputs;
  for (size_t i = 0; i < want.size(); ++i) outputs.emplace_back(want[i].shape(), out_types[i]);
  SetRandomSeed(kSeed);
  const std::vector<CpuTensor> got = run(attrs, Blobs(inputs), outputs);
  ExpectSixteenBitClose(want, got, tolerance, what + " forward");
  if (!attrs.op->HasAttr("FGradient")) return 1;

  // The backward operator reads the 16-bit forward outputs; the CPU's reference, copies in
  // its own forward's output types.
  const NodeAttrs backward = BackwardAttrs(attrs);
  std::vector<CpuTensor> out_grads;
  for (const CpuTensor& g : got) {
    out_grads.push_back(MakeInputs(OpCase{"", {}, {InputSpec(g.shape())}}, g.type_flag(), 7)[0]);
  }
  std::vector<CpuTensor> grads64, grads;
  for (const CpuTensor& x : inputs) {
    grads64.emplace_back(x.shape(), mshadow::kFloat64);
    grads.emplace_back(x.shape(), type_flag);
  }
  Invoke<mshadow::cpu>(backward, MakeCpuContext(backward, /*is_train=*/true),
                       BackwardInputs(attrs, Blobs(InTypesOf(out_grads, want)), Blobs(inputs64),
                                      Blobs(InTypesOf(got, want))),
                       std::vector<OpReqType>(grads64.size(), kWriteTo), Blobs(grads64));
  const std::vector<CpuTensor> got_grads =
      run(backward, BackwardInputs(attrs, Blobs(out_grads), Blobs(inputs), Blobs(got)), grads);
  ExpectSixteenBitClose(grads64, got_grads, tolerance, what + " backward");
  return 2;
}

}  // namespace testing
}  // namespace ops
