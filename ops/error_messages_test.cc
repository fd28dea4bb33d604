// The error-message catalogue: one bad input per validation rule (registry, parameters,
// inference, invocation, memory, the C ABI) and the exact message it must produce. Messages
// are part of the interface a host's users read; a change to one must be a decision, made
// here, not a side effect.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mshadow/host_memory.h"
#include "ops/backward.h"
#include "ops/c_api.h"
#include "ops/imperative.h"
#include "ops/testing/op_test_util.h"

namespace ops {
namespace {

struct Entry {
  const char* rule;
  std::function<void()> call;
  std::string message;
  // For messages with a part that depends on the machine (the memory available).
  bool is_pattern = false;
};

using Shapes = std::vector<TShape>;

void Infer(const char* op, std::map<std::string, std::string> kwargs, Shapes in) {
  Shapes out;
  InferShapes(ParseAttrs(Op::Get(op), kwargs), &in, &out);
}

void InferType(const char* op, std::vector<int> in) {
  std::vector<int> out;
  InferTypes(ParseAttrs(Op::Get(op), {}), &in, &out);
}

// relu on (2,3) float32 with one thing changed by `spoil`.
void SpoiledRelu(const std::function<void(NodeAttrs*, std::vector<TBlob>*, std::vector<OpReqType>*,
                                          std::vector<TBlob>*)>& spoil) {
  static const CpuTensor x(TShape{2, 3}, mshadow::kFloat32), y(TShape{2, 3}, mshadow::kFloat32);
  NodeAttrs attrs = ParseAttrs(Op::Get("relu"), {});
  std::vector<TBlob> in{x.blob()}, out{y.blob()};
  std::vector<OpReqType> req{kWriteTo};
  spoil(&attrs, &in, &req, &out);
  Invoke<mshadow::cpu>(attrs, OpContext(), in, req, out);
}

// A C ABI call's status and MXOpsGetLastError(), as one dmlc::Error (none when it succeeds).
void CApi(int status) {
  if (status != 0) throw dmlc::Error(MXOpsGetLastError());
}

// Calls `invoke` with attributes of `op` (no parameters), then frees them; a failed call
// throws its message.
void WithAttrs(const char* op, const std::function<int(MXOpsAttrsHandle)>& invoke) {
  MXOpsAttrsHandle attrs = nullptr;
  CApi(MXOpsCreateAttrs(op, 0, nullptr, nullptr, &attrs));
  const int status = invoke(attrs);
  MXOpsFreeAttrs(attrs);
  CApi(status);
}

DLTensor Dl(float* data, int64_t* shape, int ndim) {
  DLTensor t{};
  t.data = data;
  t.device = {kDLCPU, 0};
  t.ndim = ndim;
  t.dtype = {kDLFloat, 32, 1};
  t.shape = shape;
  return t;
}

const std::vector<Entry>& Catalogue() {
  static const std::vector<Entry> entries = {
      // ---- registry
      {"unknown operator, with suggestions", [] { Op::Get("FullyConected"); },
       "operator 'FullyConected' is not registered\\. Did you mean 'FullyConnected'\\? \\([0-9]+ "
       "operators are registered; `opctl list` shows them\\)",
       true},
      // ---- parameters
      {"unknown key, with suggestions",
       [] {
         ParseAttrs(Op::Get("FullyConnected"), {{"num_hiden", "3"}});
       },
       "Invalid parameter of operator FullyConnected: Cannot find argument 'num_hiden' of "
       "FullyConnectedParam. Did you mean 'num_hidden'? Possible "
       "Arguments:\n----------------\nnum_hidden : int, required\n    Number of hidden "
       "units.\nno_bias : boolean, optional, default=False\n    Whether to leave out the "
       "bias.\nflatten : boolean, optional, default=True\n    Whether to fold all axes of data but "
       "the first into one; otherwise only the last axis is transformed.\n"},
      {"value of the wrong type",
       [] {
         ParseAttrs(Op::Get("FullyConnected"), {{"num_hidden", "x"}});
       },
       "Invalid parameter of operator FullyConnected: Invalid Parameter format for num_hidden "
       "expect int but value='x'"},
      {"value below the lower bound",
       [] {
         ParseAttrs(Op::Get("FullyConnected"), {{"num_hidden", "0"}});
       },
       "Invalid parameter of operator FullyConnected: value 0 for Parameter num_hidden should be "
       "greater equal to 1\nnum_hidden: Number of hidden units."},
      {"value outside an enumeration",
       [] {
         ParseAttrs(Op::Get("Activation"), {{"act_type", "swish"}});
       },
       "Invalid parameter of operator Activation: Invalid Input: 'swish' for act_type, valid "
       "values are: {'relu', 'sigmoid', 'softrelu', 'softsign', 'tanh'}"},
      {"required parameter missing", [] { ParseAttrs(Op::Get("FullyConnected"), {}); },
       "Invalid parameter of operator FullyConnected: Required parameter num_hidden of int is not "
       "presented"},
      {"malformed tuple",
       [] {
         ParseAttrs(Op::Get("sum"), {{"axis", "(0,x)"}});
       },
       "Invalid parameter of operator sum: Invalid Parameter format for axis expect Shape(tuple) "
       "or None but value='(0,x)'"},
      {"key given twice",
       [] {
         ParseAttrs(Op::Get("FullyConnected"), std::vector<std::pair<std::string, std::string>>{
                                                   {"num_hidden", "4"}, {"num_hidden", "8"}});
       },
       "Invalid parameter of operator FullyConnected: 'num_hidden' is given twice ('4' and '8')"},
      {"key given to an operator without parameters",
       [] {
         ParseAttrs(Op::Get("relu"), {{"foo", "1"}});
       },
       "Invalid parameter of operator relu: relu takes no parameters; got 'foo'"},
      {"arity beyond the bound",
       [] {
         ParseAttrs(Op::Get("Concat"), {{"num_args", "100000"}});
       },
       "Invalid parameter of operator Concat: these parameters give 100000 inputs; at most 65536 "
       "are supported"},
      // ---- inference
      {"wrong number of inputs", [] { Infer("elemwise_add", {}, {TShape{2}}); },
       "elemwise_add takes 2 inputs (lhs, rhs), given 1"},
      {"shapes that conflict",
       [] {
         Infer("elemwise_add", {}, {TShape{2, 3}, TShape{3, 2}});
       },
       "elemwise_add: shape of input 'rhs' is (3,2) but (2,3) is required (inputs: lhs=(2,3), "
       "rhs=(3,2))"},
      {"shapes that cannot be inferred", [] { Infer("relu", {}, {TShape()}); },
       "relu: cannot infer every shape from the inputs given: data=()"},
      {"negative extent",
       [] {
         Infer("relu", {}, {TShape{2, -3}});
       },
       "relu: input 'data' has shape (2,-3) with negative axis 1; extents must be >= 0"},
      {"element count beyond index_t",
       [] {
         Infer("relu", {}, {TShape{int64_t{1} << 40, int64_t{1} << 40}});
       },
       "relu: input 'data' has shape (1099511627776,1099511627776), whose element count overflows "
       "a 64-bit index"},
      {"axis out of range",
       [] {
         Infer("sum", {{"axis", "(9223372036854775807,)"}}, {TShape{2, 3}});
       },
       "sum: axis 9223372036854775807 is out of range for a 2-d input; valid: [-2, 2)"},
      {"reshape that does not fit",
       [] {
         Infer("Reshape", {{"shape", "(4,2)"}}, {TShape{2, 3}});
       },
       "Reshape: cannot reshape (2,3) into (4,2): the input has 6 elements, the target shape (4,2) "
       "has 8"},
      {"reshape whose product overflows",
       [] {
         Infer("Reshape", {{"shape", "(-3,4611686018427387904,2)"}}, {TShape{2, 3}});
       },
       "Reshape: cannot reshape (2,3) into (-3,4611686018427387904,2): 6 x 4611686018427387904 "
       "overflows index_t"},
      {"unsupported type", [] { InferType("relu", {mshadow::kInt32}); },
       "relu: data type int32 is not supported; valid: float32, float64, float16, bfloat16"},
      {"types that conflict",
       [] {
         InferType("elemwise_add", {mshadow::kFloat32, mshadow::kFloat64});
       },
       "elemwise_add: type of input 'rhs' is float64 but float32 is required (inputs: lhs=float32, "
       "rhs=float64)"},
      // ---- invocation
      {"attributes without an operator",
       [] { SpoiledRelu([](NodeAttrs* a, auto*, auto*, auto*) { a->op = nullptr; }); },
       "Invoke: the attributes have no operator (ops::ParseAttrs sets it)"},
      {"wrong number of requests",
       [] { SpoiledRelu([](auto*, auto*, std::vector<OpReqType>* r, auto*) { r->clear(); }); },
       "relu: one OpReqType per output is needed: given 0 for 1 outputs"},
      {"request value out of range",
       [] {
         SpoiledRelu([](auto*, auto*, std::vector<OpReqType>* r, auto*) {
           int bad = 7;
           std::memcpy(&(*r)[0], &bad, sizeof(bad));
         });
       },
       "relu: invalid OpReqType 7 for output 0; valid: 0 (null), 1 (write), 2 (in place), 3 (add)"},
      {"blob on another device",
       [] {
         SpoiledRelu([](auto*, std::vector<TBlob>* in, auto*, auto*) {
           (*in)[0].dev_mask_ = mshadow::gpu::kDevMask;
         });
       },
       "relu: input 'data' is on gpu, the operator runs on cpu"},
      {"blob of another shape",
       [] {
         SpoiledRelu([](auto*, std::vector<TBlob>* in, auto*, auto*) {
           (*in)[0] =
               TBlob((*in)[0].dptr_, TShape{2, 2}, mshadow::cpu::kDevMask, mshadow::kFloat32);
         });
       },
       "relu: shape of output 0 is (2,3) but (2,2) is required (inputs: data=(2,2))"},
      {"blob of another type",
       [] {
         SpoiledRelu([](auto*, auto*, auto*, std::vector<TBlob>* out) {
           (*out)[0].type_flag_ = mshadow::kFloat64;
         });
       },
       "relu: type of output 0 is float64 but float32 is required (inputs: data=float32)"},
      {"blob with no data",
       [] {
         SpoiledRelu([](auto*, std::vector<TBlob>* in, auto*, auto*) { (*in)[0].dptr_ = nullptr; });
       },
       "relu: input 'data' has shape (2,3) but no data (null pointer)"},
      {"blob that is not contiguous",
       [] {
         SpoiledRelu([](auto*, std::vector<TBlob>* in, auto*, auto*) { (*in)[0].stride_ = 4; });
       },
       "relu: input 'data' is not contiguous (rows of 3 elements, 4 apart); operators take "
       "contiguous blobs"},
      {"no implementation for the device",
       [] {
         const CpuTensor x(TShape{2, 3}, mshadow::kFloat32);
         TBlob on_gpu = x.blob();
         on_gpu.dev_mask_ = mshadow::gpu::kDevMask;
         Invoke<mshadow::gpu>(ParseAttrs(Op::Get("relu"), {}), OpContext(), {on_gpu}, {kWriteTo},
                              {on_gpu});
       },
       "relu has no FCompute<gpu> implementation"},
      {"requested resource missing",
       [] {
         const NodeAttrs attrs = ParseAttrs(Op::Get("softmax_cross_entropy"), {});
         const CpuTensor data(TShape{2, 3}, mshadow::kFloat32), label(TShape{2}, mshadow::kFloat32);
         const CpuTensor loss(TShape{1}, mshadow::kFloat32);
         Invoke<mshadow::cpu>(attrs, OpContext(), {data.blob(), label.blob()}, {kWriteTo},
                              {loss.blob()});
       },
       "softmax_cross_entropy requests 1 resources (FResourceRequest) but the host provided 0 in "
       "OpContext::requested"},
      {"label that is not a class index",
       [] {
         const NodeAttrs attrs = ParseAttrs(Op::Get("softmax_cross_entropy"), {});
         const CpuTensor data(TShape{2, 3}, mshadow::kFloat32), label(TShape{2}, mshadow::kFloat32);
         label.data<float>()[1] = -INFINITY;
         RunCpu(attrs, {data.blob(), label.blob()});
       },
       "softmax_cross_entropy: label -inf of row 1 is not a class index in [0, 3)"},
      // ---- memory
      {"allocation larger than the memory available",
       [] { CpuTensor huge(TShape{int64_t{1} << 40}, mshadow::kFloat32); },
       "cannot allocate 4398046511104 bytes \\(4096\\.0 GiB\\) for a float32 tensor of shape "
       "\\(1099511627776,\\): only [0-9]+ bytes \\([0-9.]+ GiB\\) of memory is available",
       true},
      {"allocation above the host's limit",
       [] {
         mshadow::SetHostAllocationLimit(1 << 20);
         try {
           CpuTensor big(TShape{1 << 20}, mshadow::kFloat32);
         } catch (...) {
           mshadow::SetHostAllocationLimit(0);
           throw;
         }
         mshadow::SetHostAllocationLimit(0);
       },
       "cannot allocate 4194304 bytes (4.0 MiB) for a float32 tensor of shape (1048576,): the host "
       "allocation limit is 1048576 bytes (1.0 MiB)"},
      // ---- C ABI
      {"C ABI: NULL argument", [] { CApi(MXOpsListOperators(nullptr, nullptr)); },
       "MXOpsListOperators: argument 'count' is NULL"},
      {"C ABI: negative count",
       [] {
         MXOpsAttrsHandle attrs = nullptr;
         CApi(MXOpsCreateAttrs("relu", -1, nullptr, nullptr, &attrs));
       },
       "MXOpsCreateAttrs: num_params is -1; valid: >= 0"},
      {"C ABI: NULL key",
       [] {
         const char* keys[] = {nullptr};
         const char* values[] = {"1"};
         MXOpsAttrsHandle attrs = nullptr;
         CApi(MXOpsCreateAttrs("relu", 1, keys, values, &attrs));
       },
       "MXOpsCreateAttrs: parameter 0 has a NULL key or value"},
      {"C ABI: tensor count that differs from the operator's",
       [] {
         float x[6] = {};
         int64_t shape[] = {2, 3};
         const DLTensor in[] = {Dl(x, shape, 2), Dl(x, shape, 2)};
         WithAttrs("relu", [&](MXOpsAttrsHandle attrs) {
           return MXOpsInvoke(attrs, 2, in, 1, in, nullptr, 0, nullptr, nullptr, 0);
         });
       },
       "relu takes 1 inputs (data), given 2"},
      {"C ABI: tensor of an unsupported DLPack type",
       [] {
         float x[6] = {};
         int64_t shape[] = {2, 3};
         DLTensor in = Dl(x, shape, 2);
         in.dtype = {kDLComplex, 64, 1};
         WithAttrs("relu", [&](MXOpsAttrsHandle attrs) {
           return MXOpsInvoke(attrs, 1, &in, 1, &in, nullptr, 0, nullptr, nullptr, 0);
         });
       },
       "MXOpsInvoke: inputs[0]: DLPack data type complex64 is not supported; valid: float16, "
       "float32, float64, bfloat16, uint8, int8, int32, int64, bool (one lane)"},
#ifndef MSHADOW_OPS_WITH_CUDA
      {"C ABI: CUDA tensors given to a library built without CUDA",
       [] {
         float x[6] = {};
         int64_t shape[] = {2, 3};
         DLTensor in = Dl(x, shape, 2);
         in.device = {kDLCUDA, 0};
         WithAttrs("relu", [&](MXOpsAttrsHandle attrs) {
           return MXOpsInvoke(attrs, 1, &in, 1, &in, nullptr, 0, nullptr, nullptr, 0);
         });
       },
       "relu: the tensors are CUDA memory (kDLCUDA), but this library was built without CUDA; "
       "valid here: CPU tensors (kDLCPU), or a library built with --config=cuda"},
#endif
      {"C ABI: workspace that is too small",
       [] {
         float data[6] = {}, label[2] = {}, loss[1] = {};
         int64_t data_shape[] = {2, 3}, label_shape[] = {2}, loss_shape[] = {1};
         const DLTensor in[] = {Dl(data, data_shape, 2), Dl(label, label_shape, 1)};
         const DLTensor out = Dl(loss, loss_shape, 1);
         alignas(64) static char workspace[64];
         WithAttrs("softmax_cross_entropy", [&](MXOpsAttrsHandle attrs) {
           return MXOpsInvoke(attrs, 2, in, 1, &out, nullptr, 0, nullptr, workspace, 4);
         });
       },
       "softmax_cross_entropy: the operator needs 8 bytes of workspace; the host gave 4"},
  };
  return entries;
}

TEST(ErrorMessageCatalogueTest, EveryRuleGivesItsExactMessage) {
  for (const Entry& entry : Catalogue()) {
    const std::string message = testing::ErrorOf(entry.call);
    if (entry.is_pattern) {
      EXPECT_THAT(message, ::testing::MatchesRegex(entry.message)) << "rule: " << entry.rule;
    } else {
      EXPECT_EQ(message, entry.message) << "rule: " << entry.rule;
    }
  }
}

}  // namespace
}  // namespace ops
