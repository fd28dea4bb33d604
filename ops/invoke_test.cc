// Checked invocation: every registered operator, forward and backward, called from its valid
// case (ops/testing/op_cases.txt) with one blob made wrong at a time. Each must be a
// dmlc::Error before a kernel runs. Every blob is allocated to exactly its (wrong) shape, so
// under ASan (CI's asan stage) a mutation that reached a kernel would also be reported.
#include "ops/invoke.h"

#include <cstdio>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/backward.h"
#include "ops/imperative.h"
#include "ops/testing/op_cases.h"
#include "ops/testing/op_test_util.h"

namespace ops {
namespace {

using ::testing::HasSubstr;

// A valid call: attributes and owned blobs of exactly the inferred shapes.
struct Call {
  std::string name;
  NodeAttrs attrs;
  std::vector<CpuTensor> inputs, outputs;
  NodeAttrs forward_attrs;  // the forward call's (the same for a forward call)
  bool is_backward = false;
};

std::vector<CpuTensor> Like(const std::vector<CpuTensor>& tensors) {
  std::vector<CpuTensor> like;
  for (const CpuTensor& t : tensors) like.emplace_back(t.shape(), t.type_flag());
  return like;
}

// The case's forward call and, when it has a gradient, its backward call.
std::vector<Call> CallsOf(const testing::OpCase& c) {
  Call forward;
  forward.name = testing::CaseName(c);
  forward.attrs = forward.forward_attrs = ParseAttrs(Op::Get(c.op), c.kwargs);
  forward.inputs = testing::MakeInputs(c, mshadow::kFloat32);
  forward.outputs = RunCpu(forward.attrs, Blobs(forward.inputs), true);
  std::vector<Call> calls = {forward};
  if (!forward.attrs.op->HasAttr("FGradient")) return calls;
  Call backward;
  backward.name = "backward of " + forward.name;
  backward.attrs = BackwardAttrs(forward.attrs);
  backward.forward_attrs = forward.attrs;
  backward.is_backward = true;
  const std::vector<CpuTensor> out_grads = Like(forward.outputs);
  // BackwardInputs lays out blobs; the owned tensors are kept in the same order.
  const FGradient& gradient = GradientOf(*forward.attrs.op);
  backward.inputs = out_grads;
  if (gradient.uses_inputs) {
    backward.inputs.insert(backward.inputs.end(), forward.inputs.begin(), forward.inputs.end());
  }
  if (gradient.uses_outputs) {
    backward.inputs.insert(backward.inputs.end(), forward.outputs.begin(), forward.outputs.end());
  }
  EXPECT_EQ(Blobs(backward.inputs).size(),
            BackwardInputs(forward.attrs, Blobs(out_grads), Blobs(forward.inputs),
                           Blobs(forward.outputs)).size());
  backward.outputs = Like(forward.inputs);
  calls.push_back(backward);
  return calls;
}

// Operators whose first input must hold probability distributions: a reshaped copy of it (zeros)
// is refused for its values even where its shape alone would be valid.
bool RefusesZeroFilledInputs(const std::string& op) { return op == "_sample_multinomial"; }

void RunCall(const Call& call, const std::vector<TBlob>& inputs, const std::vector<TBlob>& outputs) {
  Invoke<mshadow::cpu>(call.attrs, MakeCpuContext(call.attrs, true), inputs,
                       std::vector<OpReqType>(outputs.size(), kWriteTo), outputs);
}

// One way to make a blob wrong: returns false when it does not apply to this blob. `keep`
// holds any memory the wrong blob needs.
using Mutation = std::function<bool(TBlob* blob, std::vector<CpuTensor>* keep)>;

bool Reshaped(TBlob* blob, std::vector<CpuTensor>* keep, const TShape& shape) {
  keep->emplace_back(shape, blob->type_flag_);
  *blob = keep->back().blob();
  return true;
}

TShape WithLast(const TShape& shape, index_t last) {
  TShape changed = shape;
  changed[changed.ndim() - 1] = last;
  return changed;
}

// The values of `from` in `to`'s type (float32 or float64): a re-typed blob keeps its values,
// so that an operator that checks its inputs' values (a distribution's parameters) sees only
// the type change.
void CopyConverted(const TBlob& from, const TBlob& to) {
  MSHADOW_TYPE_SWITCH_EXT_WITH_BOOL(from.type_flag_, From, {
    const From* source = from.dptr<From>();
    for (index_t i = 0; i < from.shape_.Size(); ++i) {
      const double value = static_cast<double>(source[i]);
      if (to.type_flag_ == mshadow::kFloat64) {
        to.dptr<double>()[i] = value;
      } else {
        to.dptr<float>()[i] = static_cast<float>(value);
      }
    }
  });
}

const std::vector<std::pair<std::string, Mutation>>& Mutations() {
  static const auto* mutations = new std::vector<std::pair<std::string, Mutation>>{
      {"shrunk",
       [](TBlob* b, std::vector<CpuTensor>* keep) {
         const index_t last = b->shape_[b->shape_.ndim() - 1];
         return last > 1 && Reshaped(b, keep, WithLast(b->shape_, last - 1));
       }},
      {"grown",
       [](TBlob* b, std::vector<CpuTensor>* keep) {
         return Reshaped(b, keep, WithLast(b->shape_, b->shape_[b->shape_.ndim() - 1] + 1));
       }},
      {"re-ranked",
       [](TBlob* b, std::vector<CpuTensor>* keep) {
         std::vector<index_t> dims(b->shape_.begin(), b->shape_.end());
         dims.push_back(2);
         return Reshaped(b, keep, TShape(dims.begin(), dims.end()));
       }},
      {"re-typed",
       [](TBlob* b, std::vector<CpuTensor>* keep) {
         keep->emplace_back(b->shape_, b->type_flag_ == mshadow::kFloat32 ? mshadow::kFloat64
                                                                          : mshadow::kFloat32);
         CopyConverted(*b, keep->back().blob());
         *b = keep->back().blob();
         return true;
       }},
      {"null",
       [](TBlob* b, std::vector<CpuTensor>*) {
         b->dptr_ = nullptr;
         return true;
       }},
      {"strided",
       [](TBlob* b, std::vector<CpuTensor>* keep) {
         const index_t last = b->shape_[b->shape_.ndim() - 1];
         if (b->shape_.Size() / last < 2) return false;
         // Rows one element apart more than they are long, in a buffer that holds them all.
         keep->emplace_back(TShape{b->shape_.Size() / last, last + 1}, b->type_flag_);
         b->dptr_ = keep->back().blob().dptr_;
         b->stride_ = last + 1;
         return true;
       }},
      {"on the gpu",
       [](TBlob* b, std::vector<CpuTensor>*) {
         b->dev_mask_ = mshadow::gpu::kDevMask;
         return true;
       }},
  };
  return *mutations;
}

// Whether a call with these shapes and types is valid, found without the checker: forward
// inference from what determines the call (the forward inputs; for a backward call, the
// gradients it writes, which have the forward inputs' shapes and types) must give every
// other blob's shape and type.
bool IsValidCall(const Call& call, const std::vector<TBlob>& in, const std::vector<TBlob>& out) {
  const std::vector<TBlob>& determining = call.is_backward ? out : in;
  std::vector<TShape> forward_in, forward_out;
  std::vector<int> forward_in_types, forward_out_types;
  for (const TBlob& b : determining) {
    forward_in.push_back(b.shape_);
    forward_in_types.push_back(b.type_flag_);
  }
  try {
    InferShapes(call.forward_attrs, &forward_in, &forward_out);
    InferTypes(call.forward_attrs, &forward_in_types, &forward_out_types);
  } catch (const dmlc::Error&) {
    return false;
  }
  auto blobs = [](const std::vector<TShape>& shapes, const std::vector<int>& types) {
    std::vector<TBlob> result;
    for (size_t i = 0; i < shapes.size(); ++i) {
      result.emplace_back(nullptr, shapes[i], mshadow::cpu::kDevMask, types[i]);
    }
    return result;
  };
  const std::vector<TBlob> fin = blobs(forward_in, forward_in_types);
  const std::vector<TBlob> fout = blobs(forward_out, forward_out_types);
  const std::vector<TBlob> expected_determining = fin;
  const std::vector<TBlob> expected_rest =
      call.is_backward ? BackwardInputs(call.forward_attrs, fout, fin, fout) : fout;
  const std::vector<TBlob>& rest = call.is_backward ? in : out;
  auto same = [](const std::vector<TBlob>& a, const std::vector<TBlob>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (a[i].shape_ != b[i].shape_ || a[i].type_flag_ != b[i].type_flag_) return false;
    }
    return true;
  };
  return same(determining, expected_determining) && same(rest, expected_rest);
}

class BadBlobTest : public ::testing::Test {
 protected:
  static std::vector<testing::OpCase> Cases() {
    return testing::LoadOpCases("ops/testing/op_cases.txt");
  }
};

TEST_F(BadBlobTest, EveryRegisteredOperatorHasACase) {
  std::set<std::string> covered;
  for (const testing::OpCase& c : Cases()) {
    const Op* op = Op::Get(c.op);
    covered.insert(op->name);
    if (const auto* gradient = op->GetAttr<FGradient>("FGradient")) covered.insert(gradient->backward_op);
  }
  for (const std::string& name : Op::ListAllNames()) {
    if (Op::Get(name)->name != name) continue;  // an alias
    EXPECT_TRUE(covered.count(name)) << name << " has no case in ops/testing/op_cases.txt";
  }
}

TEST_F(BadBlobTest, EveryWrongBlobIsAnErrorBeforeTheKernel) {
  int rejected = 0, still_valid = 0;
  for (const testing::OpCase& c : Cases()) {
    for (const Call& call : CallsOf(c)) {
      const std::vector<TBlob> inputs = Blobs(call.inputs), outputs = Blobs(call.outputs);
      ASSERT_NO_THROW(RunCall(call, inputs, outputs)) << call.name;
      for (const auto& [mutation_name, mutate] : Mutations()) {
        for (size_t i = 0; i < inputs.size() + outputs.size(); ++i) {
          std::vector<TBlob> in = inputs, out = outputs;
          TBlob* blob = i < in.size() ? &in[i] : &out[i - in.size()];
          std::vector<CpuTensor> keep;
          if (!mutate(blob, &keep)) continue;
          const std::string blob_name = i < in.size() ? "input " + std::to_string(i)
                                                      : "output " + std::to_string(i - in.size());
          const std::string where = call.name + ": " + mutation_name + " " + blob_name;
          // A shape or type change can leave a valid call (a reduced axis grows): it must
          // then run, and under ASan it must stay inside its blobs.
          const bool structural = blob->dptr_ == nullptr || blob->dev_mask_ != mshadow::cpu::kDevMask ||
                                  blob->stride_ != blob->shape_[blob->shape_.ndim() - 1];
          if (!structural && IsValidCall(call, in, out)) {
            const bool zero_filled = mutation_name == "shrunk" || mutation_name == "grown";
            if (RefusesZeroFilledInputs(call.attrs.op->name) && zero_filled && i == 0) {
              EXPECT_THAT(testing::ErrorOf([&] { RunCall(call, in, out); }),
                          HasSubstr("distribution 0 sums to 0"))
                  << where;
              ++rejected;
              continue;
            }
            EXPECT_NO_THROW(RunCall(call, in, out)) << where;
            ++still_valid;
            continue;
          }
          const std::string message = testing::ErrorOf([&] { RunCall(call, in, out); });
          EXPECT_THAT(message, HasSubstr(call.attrs.op->name)) << where;
          if (!message.empty()) ++rejected;
        }
      }
    }
  }
  EXPECT_GT(rejected, 1000);  // the table is not empty and the mutations applied
  std::printf("%d wrong calls rejected, %d changed calls still valid and run\n", rejected,
              still_valid);
}

// One test per rule that is not about a blob.
class InvocationRuleTest : public ::testing::Test {
 protected:
  NodeAttrs attrs = ParseAttrs(Op::Get("elemwise_add"), {});
  CpuTensor a{TShape{2, 3}, mshadow::kFloat32}, b{TShape{2, 3}, mshadow::kFloat32};
  CpuTensor y{TShape{2, 3}, mshadow::kFloat32};

  std::string ErrorWith(const NodeAttrs& with_attrs, const std::vector<TBlob>& inputs,
                        const std::vector<OpReqType>& req, const std::vector<TBlob>& outputs) {
    return testing::ErrorOf(
        [&] { Invoke<mshadow::cpu>(with_attrs, OpContext(), inputs, req, outputs); });
  }
};

TEST_F(InvocationRuleTest, AttributesWithoutAnOperator) {
  EXPECT_THAT(ErrorWith(NodeAttrs(), {a.blob(), b.blob()}, {kWriteTo}, {y.blob()}),
              HasSubstr("the attributes have no operator"));
}

TEST_F(InvocationRuleTest, NumberOfInputsOutputsAndRequests) {
  EXPECT_THAT(ErrorWith(attrs, {a.blob()}, {kWriteTo}, {y.blob()}),
              HasSubstr("elemwise_add takes 2 inputs (lhs, rhs), given 1"));
  EXPECT_THAT(ErrorWith(attrs, {a.blob(), b.blob()}, {kWriteTo}, {}),
              HasSubstr("elemwise_add: has 1 outputs, given 0"));
  EXPECT_THAT(ErrorWith(attrs, {a.blob(), b.blob()}, {kWriteTo, kWriteTo}, {y.blob()}),
              HasSubstr("one OpReqType per output is needed: given 2 for 1 outputs"));
}

TEST_F(InvocationRuleTest, RequestValueOutOfRange) {
  EXPECT_THAT(ErrorWith(attrs, {a.blob(), b.blob()}, {static_cast<OpReqType>(7)}, {y.blob()}),
              HasSubstr("elemwise_add: invalid OpReqType 7 for output 0; valid: 0 (null), 1 "
                        "(write), 2 (in place), 3 (add)"));
}

TEST_F(InvocationRuleTest, MessagesNameTheArgumentAndBothShapes) {
  CpuTensor wide(TShape{2, 4}, mshadow::kFloat32);
  EXPECT_THAT(ErrorWith(attrs, {a.blob(), wide.blob()}, {kWriteTo}, {y.blob()}),
              HasSubstr("elemwise_add: shape of input 'rhs' is (2,4) but (2,3) is required"));
  EXPECT_THAT(ErrorWith(attrs, {a.blob(), b.blob()}, {kWriteTo}, {wide.blob()}),
              HasSubstr("elemwise_add: shape of output 0 is (2,4) but (2,3) is required"));
  TBlob negative = a.blob();
  negative.shape_ = TShape{-2, 3};
  EXPECT_THAT(ErrorWith(attrs, {negative, b.blob()}, {kWriteTo}, {y.blob()}),
              HasSubstr("input 'lhs' has shape (-2,3) with negative axis 0"));
}

TEST_F(InvocationRuleTest, BackwardCallsAreCheckedThroughTheForwardOperator) {
  const NodeAttrs fc = ParseAttrs(Op::Get("FullyConnected"), {{"num_hidden", "4"}});
  const NodeAttrs backward = BackwardAttrs(fc);
  CpuTensor x(TShape{2, 3}, mshadow::kFloat32), w(TShape{4, 3}, mshadow::kFloat32),
      bias(TShape{4}, mshadow::kFloat32), dy(TShape{2, 5}, mshadow::kFloat32);
  CpuTensor dx(TShape{2, 3}, mshadow::kFloat32), dw(TShape{4, 3}, mshadow::kFloat32),
      dbias(TShape{4}, mshadow::kFloat32);
  const std::vector<TBlob> inputs =
      BackwardInputs(fc, {dy.blob()}, {x.blob(), w.blob(), bias.blob()}, {});
  EXPECT_THAT(testing::ErrorOf([&] {
                Invoke<mshadow::cpu>(backward, MakeCpuContext(backward, true), inputs,
                                     {kWriteTo, kWriteTo, kWriteTo},
                                     {dx.blob(), dw.blob(), dbias.blob()});
              }),
              HasSubstr("_backward_FullyConnected: shape of input 'out_grad0' is (2,5) but (2,4) "
                        "is required"));
}

TEST_F(InvocationRuleTest, MissingResources) {
  const NodeAttrs xent = ParseAttrs(Op::Get("softmax_cross_entropy"), {});
  CpuTensor data(TShape{2, 3}, mshadow::kFloat32), label(TShape{2}, mshadow::kFloat32),
      out(TShape{1}, mshadow::kFloat32);
  EXPECT_THAT(ErrorWith(xent, {data.blob(), label.blob()}, {kWriteTo}, {out.blob()}),
              HasSubstr("requests 1 resources (FResourceRequest) but the host provided 0"));
}

}  // namespace
}  // namespace ops
