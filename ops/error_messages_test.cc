// The error-message catalogue: one bad input per validation rule (registry, parameters,
// inference, invocation, memory, the C ABI) and the exact message it must produce. Messages
// are part of the interface a host's users read; a change to one must be a decision, made
// here, not a side effect.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

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
      {"unknown operator, with suggestions", [] { Op::Get("FullyConected"); }, ""},
      // ---- parameters
      {"unknown key, with suggestions",
       [] { ParseAttrs(Op::Get("FullyConnected"), {{"num_hiden", "3"}}); }, ""},
      {"value of the wrong type", [] { ParseAttrs(Op::Get("FullyConnected"), {{"num_hidden", "x"}}); },
       ""},
      {"value below the lower bound",
       [] { ParseAttrs(Op::Get("FullyConnected"), {{"num_hidden", "0"}}); }, ""},
      {"value outside an enumeration",
       [] { ParseAttrs(Op::Get("Activation"), {{"act_type", "swish"}}); }, ""},
      {"required parameter missing", [] { ParseAttrs(Op::Get("FullyConnected"), {}); }, ""},
      {"malformed tuple", [] { ParseAttrs(Op::Get("sum"), {{"axis", "(0,x)"}}); }, ""},
      {"key given twice",
       [] {
         ParseAttrs(Op::Get("FullyConnected"),
                    std::vector<std::pair<std::string, std::string>>{{"num_hidden", "4"},
                                                                     {"num_hidden", "8"}});
       },
       ""},
      {"key given to an operator without parameters",
       [] { ParseAttrs(Op::Get("relu"), {{"foo", "1"}}); }, ""},
      {"arity beyond the bound", [] { ParseAttrs(Op::Get("Concat"), {{"num_args", "100000"}}); },
       ""},
      // ---- inference
      {"wrong number of inputs", [] { Infer("elemwise_add", {}, {TShape{2}}); }, ""},
      {"shapes that conflict",
       [] { Infer("elemwise_add", {}, {TShape{2, 3}, TShape{3, 2}}); }, ""},
      {"shapes that cannot be inferred", [] { Infer("relu", {}, {TShape()}); }, ""},
      {"negative extent", [] { Infer("relu", {}, {TShape{2, -3}}); }, ""},
      {"element count beyond index_t",
       [] { Infer("relu", {}, {TShape{int64_t{1} << 40, int64_t{1} << 40}}); }, ""},
      {"axis out of range", [] { Infer("sum", {{"axis", "(9223372036854775807,)"}}, {TShape{2, 3}}); },
       ""},
      {"reshape that does not fit", [] { Infer("Reshape", {{"shape", "(4,2)"}}, {TShape{2, 3}}); },
       ""},
      {"reshape whose product overflows",
       [] { Infer("Reshape", {{"shape", "(-3,4611686018427387904,2)"}}, {TShape{2, 3}}); }, ""},
      {"unsupported type", [] { InferType("relu", {mshadow::kInt32}); }, ""},
      {"types that conflict", [] { InferType("elemwise_add", {mshadow::kFloat32, mshadow::kFloat64}); },
       ""},
      // ---- invocation
      {"attributes without an operator",
       [] { SpoiledRelu([](NodeAttrs* a, auto*, auto*, auto*) { a->op = nullptr; }); }, ""},
      {"wrong number of requests",
       [] { SpoiledRelu([](auto*, auto*, std::vector<OpReqType>* r, auto*) { r->clear(); }); }, ""},
      {"request value out of range",
       [] {
         SpoiledRelu([](auto*, auto*, std::vector<OpReqType>* r, auto*) {
           int bad = 7;
           std::memcpy(&(*r)[0], &bad, sizeof(bad));
         });
       },
       ""},
      {"blob on another device",
       [] {
         SpoiledRelu([](auto*, std::vector<TBlob>* in, auto*, auto*) {
           (*in)[0].dev_mask_ = mshadow::gpu::kDevMask;
         });
       },
       ""},
      {"blob of another shape",
       [] {
         SpoiledRelu([](auto*, std::vector<TBlob>* in, auto*, auto*) {
           (*in)[0].shape_ = TShape{2, 2};
         });
       },
       ""},
      {"blob of another type",
       [] {
         SpoiledRelu([](auto*, auto*, auto*, std::vector<TBlob>* out) {
           (*out)[0].type_flag_ = mshadow::kFloat64;
         });
       },
       ""},
      {"blob with no data",
       [] {
         SpoiledRelu([](auto*, std::vector<TBlob>* in, auto*, auto*) { (*in)[0].dptr_ = nullptr; });
       },
       ""},
      {"blob that is not contiguous",
       [] {
         SpoiledRelu([](auto*, std::vector<TBlob>* in, auto*, auto*) { (*in)[0].stride_ = 4; });
       },
       ""},
      {"no implementation for the device",
       [] {
         SpoiledRelu([](auto*, std::vector<TBlob>* in, auto*, std::vector<TBlob>* out) {
           (*in)[0].dev_mask_ = (*out)[0].dev_mask_ = mshadow::gpu::kDevMask;
         });
         throw dmlc::Error("(unreachable: Invoke<cpu> must reject gpu blobs first)");
       },
       ""},
      {"requested resource missing",
       [] {
         const NodeAttrs attrs = ParseAttrs(Op::Get("softmax_cross_entropy"), {});
         const CpuTensor data(TShape{2, 3}, mshadow::kFloat32), label(TShape{2}, mshadow::kFloat32);
         const CpuTensor loss(TShape{1}, mshadow::kFloat32);
         Invoke<mshadow::cpu>(attrs, OpContext(), {data.blob(), label.blob()}, {kWriteTo},
                              {loss.blob()});
       },
       ""},
      {"label that is not a class index",
       [] {
         const NodeAttrs attrs = ParseAttrs(Op::Get("softmax_cross_entropy"), {});
         const CpuTensor data(TShape{2, 3}, mshadow::kFloat32), label(TShape{2}, mshadow::kFloat32);
         label.data<float>()[1] = -INFINITY;
         RunCpu(attrs, {data.blob(), label.blob()});
       },
       ""},
      // ---- memory
      {"allocation larger than the memory available",
       [] { CpuTensor huge(TShape{int64_t{1} << 40}, mshadow::kFloat32); }, ""},
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
       ""},
      // ---- C ABI
      {"C ABI: NULL argument", [] { CApi(MXOpsListOperators(nullptr, nullptr)); }, ""},
      {"C ABI: negative count",
       [] {
         MXOpsAttrsHandle attrs = nullptr;
         CApi(MXOpsCreateAttrs("relu", -1, nullptr, nullptr, &attrs));
       },
       ""},
      {"C ABI: NULL key",
       [] {
         const char* keys[] = {nullptr};
         const char* values[] = {"1"};
         MXOpsAttrsHandle attrs = nullptr;
         CApi(MXOpsCreateAttrs("relu", 1, keys, values, &attrs));
       },
       ""},
      {"C ABI: tensor count that differs from the operator's",
       [] {
         MXOpsAttrsHandle attrs = nullptr;
         CApi(MXOpsCreateAttrs("relu", 0, nullptr, nullptr, &attrs));
         float x[6] = {};
         int64_t shape[] = {2, 3};
         const DLTensor in[] = {Dl(x, shape, 2), Dl(x, shape, 2)};
         const int status = MXOpsInvoke(attrs, 2, in, 1, in, nullptr, 0, nullptr, nullptr, 0);
         MXOpsFreeAttrs(attrs);
         CApi(status);
       },
       ""},
      {"C ABI: tensor of an unsupported DLPack type",
       [] {
         MXOpsAttrsHandle attrs = nullptr;
         CApi(MXOpsCreateAttrs("relu", 0, nullptr, nullptr, &attrs));
         float x[6] = {};
         int64_t shape[] = {2, 3};
         DLTensor in = Dl(x, shape, 2);
         in.dtype = {kDLComplex, 64, 1};
         const int status = MXOpsInvoke(attrs, 1, &in, 1, &in, nullptr, 0, nullptr, nullptr, 0);
         MXOpsFreeAttrs(attrs);
         CApi(status);
       },
       ""},
      {"C ABI: workspace that is too small",
       [] {
         MXOpsAttrsHandle attrs = nullptr;
         CApi(MXOpsCreateAttrs("softmax_cross_entropy", 0, nullptr, nullptr, &attrs));
         float data[6] = {}, label[2] = {}, loss[1] = {};
         int64_t data_shape[] = {2, 3}, label_shape[] = {2}, loss_shape[] = {1};
         const DLTensor in[] = {Dl(data, data_shape, 2), Dl(label, label_shape, 1)};
         const DLTensor out = Dl(loss, loss_shape, 1);
         alignas(64) static char workspace[64];
         const int status = MXOpsInvoke(attrs, 2, in, 1, &out, nullptr, 0, nullptr, workspace, 4);
         MXOpsFreeAttrs(attrs);
         CApi(status);
       },
       ""},
  };
  return entries;
}

TEST(ErrorMessageCatalogueTest, EveryRuleGivesItsExactMessage) {
  for (const Entry& entry : Catalogue()) {
    EXPECT_EQ(testing::ErrorOf(entry.call), entry.message) << "rule: " << entry.rule;
  }
}

}  // namespace
}  // namespace ops
