// Fuzzes operator invocation as a hostile host would drive it. The input picks an operator,
// values for its declared parameters (mostly plausible, sometimes invalid or raw bytes), input
// shapes (some left for inference, some wrong), a dtype, write requests and input values; the
// call is parsed, inferred and, where inference succeeds, run forward and backward on buffers
// of the inferred shapes, through the C++ API and through the C ABI. Properties:
// - nothing but a dmlc::Error escapes the C++ API, and the C ABI returns 0 or -1 with a message;
// - no sanitizer report (the fuzz build is ASan + UBSan);
// - blobs allocated to the shapes the input gave, not the inferred ones, are rejected by the
//   checked Invoke before any kernel reads them (ASan would see a read past them);
// - the C ABI computes exactly what the C++ API computes.
//
// FUZZ_VERBOSE=1 prints each decoded call (to read a reproducer).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

#include "mshadow/dlpack.h"
#include "ops/backward.h"
#include "ops/c_api.h"
#include "ops/catalog.h"
#include "ops/imperative.h"
#include "ops/random_source.h"

namespace {

using mshadow::TShape;
using ops::CpuTensor;
using ops::NodeAttrs;
using ops::OpReqType;
using ops::TBlob;

// Reads the input front to back; past its end every read is 0 (the plausible choice).
class Bytes {
 public:
  Bytes(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t Next() { return pos_ < size_ ? data_[pos_++] : 0; }
  // One of n choices.
  size_t Pick(size_t n) { return n == 0 ? 0 : Next() % n; }
  std::string Text() {
    const size_t n = Pick(12);
    std::string text;
    for (size_t i = 0; i < n; ++i) text += static_cast<char>(Next());
    return text;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

const std::vector<const ops::Op*>& ForwardOps() {
  static const std::vector<const ops::Op*> ops = [] {
    std::vector<const ops::Op*> list;
    for (const std::string& name : ops::Op::ListAllNames()) {
      const ops::Op* op = ops::Op::Get(name);
      if (!op->HasAttr("TIsBackward") && op->name == name) list.push_back(op);
    }
    return list;
  }();
  return ops;
}

// Values hosts type, valid for some parameter or other, and values no parameter takes.
const char* const kInvalid[] = {"",
                                "-1",
                                "1e400",
                                "nan",
                                "-inf",
                                "(",
                                "(1,,2)",
                                "None",
                                "9223372036854775807",
                                "(9223372036854775807,)",
                                "(-9223372036854775808,)",
                                "2147483648",
                                "0x10",
                                "true1",
                                "(0,0,0,0,0,0,0,0,0,0,0)",
                                "-4",
                                "(-4,-1,-1)",
                                "1e-50"};
const char* const kTuples[] = {"()",      "(0,)",         "(1,)",   "(-1,)",  "(0,1)",
                               "(1,0)",   "(2,-1)",       "(-1,2)", "(0,-1)", "(-2,)",
                               "(-3,-2)", "(-4,2,-1,-2)", "(2,2)",  "(1,2,0)"};

// A value for a parameter of the declared type `type` ("int, required", "{'relu', 'tanh'}",
// "Shape(tuple) or None, optional, default=None", ...).
std::string ValueFor(const std::string& type, Bytes* in) {
  const size_t mode = in->Pick(16);
  if (mode == 14) return kInvalid[in->Pick(sizeof(kInvalid) / sizeof(kInvalid[0]))];
  if (mode == 15) return in->Text();
  if (type.find(" or None") != std::string::npos && mode == 13) return "None";
  if (type[0] == '{') {
    std::vector<std::string> choices;
    for (size_t open = type.find('\''); open != std::string::npos;
         open = type.find('\'', type.find('\'', open + 1) + 1)) {
      const size_t close = type.find('\'', open + 1);
      if (close == std::string::npos) break;
      choices.push_back(type.substr(open + 1, close - open - 1));
    }
    return choices.empty() ? "" : choices[in->Pick(choices.size())];
  }
  if (type.rfind("Shape", 0) == 0) return kTuples[in->Pick(sizeof(kTuples) / sizeof(kTuples[0]))];
  if (type.rfind("boolean", 0) == 0) return in->Pick(2) ? "true" : "false";
  if (type.rfind("float", 0) == 0 || type.rfind("double", 0) == 0) {
    const char* const reals[] = {"0.5", "1", "0", "-0.5", "2", "0.01", "-3", "100"};
    return reals[in->Pick(8)];
  }
  // Integers: small, positive mostly.
  return std::to_string(static_cast<int>(in->Pick(6)) - 1 + (mode < 8 ? 2 : 0));
}

std::map<std::string, std::string> Parameters(const ops::Op& op, Bytes* in) {
  std::map<std::string, std::string> kwargs;
  for (const dmlc::ParamFieldInfo& field : op.arguments) {
    if (ops::IsInputArgument(field)) continue;
    const bool required = field.type_info_str.find("required") != std::string::npos;
    // Optional ones are given half the time; required ones nearly always.
    if (in->Pick(required ? 32 : 2) == 1) continue;
    kwargs[field.name] = ValueFor(field.type_info_str, in);
  }
  if (in->Pick(32) == 1) kwargs[in->Text()] = in->Text();  // a key nobody declared
  return kwargs;
}

// Shapes for the inputs: the first random; each later one a copy of the first, unknown (for
// inference), or random. Extents are small: the properties do not need big tensors.
std::vector<TShape> InputShapes(size_t count, Bytes* in) {
  auto random_shape = [in] {
    const int ndim = static_cast<int>(in->Pick(4)) + 1;
    TShape shape(ndim);
    for (int d = 0; d < ndim; ++d) {
      const size_t roll = in->Pick(32);
      shape[d] = roll == 31 ? -1 : roll == 30 ? 0 : static_cast<int64_t>(roll % 5) + 1;
    }
    return shape;
  };
  std::vector<TShape> shapes;
  for (size_t i = 0; i < count; ++i) {
    const size_t how = i == 0 ? 2 : in->Pick(3);
    shapes.push_back(how == 0 ? shapes[0] : how == 1 ? TShape() : random_shape());
  }
  return shapes;
}

bool Verbose() {
  static const bool verbose = std::getenv("FUZZ_VERBOSE") != nullptr;
  return verbose;
}

// Values: mostly in [-2, 2]; sometimes whole numbers (labels, indices) or special values.
void Fill(const TBlob& blob, Bytes* in) {
  MSHADOW_TYPE_SWITCH(blob.type_flag_, DType, {
    DType* data = blob.dptr<DType>();
    const uint8_t style = in->Next();
    for (mshadow::index_t i = 0; i < blob.Size(); ++i) {
      double v = static_cast<double>((i * 2654435761u + style) % 9) / 2.0 - 2.0;
      // Whole numbers in [0, 3) for labels and indices, and for every integer type (a negative
      // value converted to an unsigned one is UB).
      if (style % 4 == 1 || std::is_integral<DType>::value) v = static_cast<double>((i + style) % 3);
      // Special values only where the type has them (converting NaN to an integer is UB).
      if (std::is_floating_point<DType>::value && i == 0) {
        if (style % 16 == 3) v = NAN;
        if (style % 16 == 7) v = -INFINITY;
        if (style % 16 == 11) v = 1e30;
      }
      data[i] = static_cast<DType>(v);
    }
  });
}

bool SameBytes(const std::vector<CpuTensor>& a, const std::vector<CpuTensor>& b) {
  for (size_t i = 0; i < a.size(); ++i) {
    const size_t n =
        static_cast<size_t>(a[i].shape().Size()) * mshadow::TypeFlagSize(a[i].type_flag());
    if (std::memcmp(a[i].blob().dptr_, b[i].blob().dptr_, n) != 0) return false;
  }
  return true;
}

std::vector<CpuTensor> Allocate(const std::vector<TShape>& shapes, const std::vector<int>& types) {
  std::vector<CpuTensor> tensors;
  for (size_t i = 0; i < shapes.size(); ++i) tensors.emplace_back(shapes[i], types[i]);
  return tensors;
}

// Fresh tensors holding the same values (operators such as sgd_mom_update update an input).
std::vector<CpuTensor> Copies(const std::vector<CpuTensor>& tensors) {
  std::vector<CpuTensor> copies;
  for (const CpuTensor& t : tensors) {
    copies.emplace_back(t.shape(), t.type_flag());
    std::memcpy(copies.back().blob().dptr_, t.blob().dptr_,
                static_cast<size_t>(t.shape().Size()) * mshadow::TypeFlagSize(t.type_flag()));
  }
  return copies;
}

std::vector<DLTensor> DlTensors(const std::vector<CpuTensor>& tensors) {
  std::vector<DLTensor> dl;
  for (const CpuTensor& t : tensors) {
    DLTensor d{};
    d.data = t.blob().dptr_;
    d.device = {kDLCPU, 0};
    d.ndim = t.shape().ndim();
    d.dtype = mshadow::ToDLDataType(t.type_flag());
    d.shape = const_cast<int64_t*>(t.shape().data());
    dl.push_back(d);
  }
  return dl;
}

// The same forward and backward call through the C ABI; its outputs must equal the C++ ones.
void CheckCApiAgrees(const ops::Op& op, const std::map<std::string, std::string>& kwargs,
                     const std::vector<CpuTensor>& inputs, const std::vector<OpReqType>& req,
                     const std::vector<CpuTensor>& outputs) {
  std::vector<const char*> keys, values;
  for (const auto& [key, value] : kwargs) {
    keys.push_back(key.c_str());
    values.push_back(value.c_str());
  }
  MXOpsAttrsHandle attrs = nullptr;
  if (MXOpsCreateAttrs(op.name.c_str(), static_cast<int>(keys.size()), keys.data(), values.data(),
                       &attrs) != 0) {
    std::fprintf(stderr, "C ABI refused attributes the C++ API took: %s\n", MXOpsGetLastError());
    std::abort();
  }
  // Zero-filled like the C++ call's outputs were, so kAddTo and kNullOp compare too.
  std::vector<CpuTensor> c_outputs;
  for (const CpuTensor& out : outputs) c_outputs.emplace_back(out.shape(), out.type_flag());
  const std::vector<int> c_req(req.begin(), req.end());
  const std::vector<DLTensor> in_dl = DlTensors(inputs), out_dl = DlTensors(c_outputs);
  MXOpsSetRandomSeed(1);  // the seed the C++ call drew with
  const int status = MXOpsInvoke(attrs, static_cast<int>(in_dl.size()), in_dl.data(),
                                 static_cast<int>(out_dl.size()), out_dl.data(), c_req.data(), 1,
                                 nullptr, nullptr, 0);
  MXOpsFreeAttrs(attrs);
  if (status != 0) {
    std::fprintf(stderr, "C ABI failed a call the C++ API ran: %s\n", MXOpsGetLastError());
    std::abort();
  }
  if (!SameBytes(c_outputs, outputs)) {
    std::fprintf(stderr, "C ABI output differs from the C++ API's for %s\n", op.name.c_str());
    std::abort();
  }
}

void FuzzOne(Bytes* in) {
  const std::vector<const ops::Op*>& all = ForwardOps();
  const ops::Op& op = *all[in->Pick(all.size())];
  const uint8_t flags = in->Next();
  const int dtype = flags & 1 ? mshadow::kFloat64 : flags & 2 ? mshadow::kInt32 : mshadow::kFloat32;
  const bool trust_given_shapes = (flags & 12) == 12;  // skip inference: Invoke must catch it
  const bool through_c_api = flags & 16;

  const std::map<std::string, std::string> kwargs = Parameters(op, in);
  if (Verbose()) {
    std::fprintf(stderr, "%s", op.name.c_str());
    for (const auto& [k, v] : kwargs) std::fprintf(stderr, " %s=%s", k.c_str(), v.c_str());
    std::fprintf(stderr, " flags=%d\n", flags);
  }
  const NodeAttrs attrs = ops::ParseAttrs(&op, kwargs);
  const uint32_t num_inputs = op.num_inputs(attrs);
  if (num_inputs > 8) return;
  std::vector<TShape> in_shapes = InputShapes(num_inputs, in), out_shapes;
  std::vector<int> in_types(num_inputs, dtype), out_types;
  if (trust_given_shapes) {
    // Unknown (rank 0) shapes stay scalars of one element; the output mirrors input 0.
    for (TShape& s : in_shapes) {
      if (s.ndim() == 0) s = TShape{1};
      for (int d = 0; d < s.ndim(); ++d) s[d] = std::max<int64_t>(s[d], 0);
    }
    out_shapes.assign(op.num_outputs(attrs), in_shapes.empty() ? TShape{1} : in_shapes[0]);
    out_types.assign(out_shapes.size(), dtype);
  } else {
    ops::InferShapes(attrs, &in_shapes, &out_shapes);
    ops::InferTypes(attrs, &in_types, &out_types);
  }
  for (const auto* shapes : {&in_shapes, &out_shapes}) {
    for (const TShape& s : *shapes) {
      if (s.Size() > (1 << 14)) return;  // keep each run fast
    }
  }
  std::vector<CpuTensor> inputs = Allocate(in_shapes, in_types);
  for (const CpuTensor& t : inputs) Fill(t.blob(), in);
  std::vector<CpuTensor> outputs = Allocate(out_shapes, out_types);
  std::vector<OpReqType> req;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const size_t r = in->Pick(8);
    req.push_back(r == 6 ? ops::kAddTo : r == 7 ? ops::kNullOp : ops::kWriteTo);
  }
  const std::vector<CpuTensor> inputs_before = through_c_api ? Copies(inputs) : inputs;
  // Operators that draw random numbers (Dropout) draw the same ones in both calls.
  constexpr uint64_t kSeed = 1;
  ops::SetRandomSeed(kSeed);
  ops::Invoke<mshadow::cpu>(attrs, ops::MakeCpuContext(attrs, true), ops::Blobs(inputs), req,
                            ops::Blobs(outputs));
  if (trust_given_shapes) return;  // valid only by chance; the checks are what was fuzzed
  if (through_c_api) CheckCApiAgrees(op, kwargs, inputs_before, req, outputs);

  if (!op.HasAttr("FGradient")) return;
  const NodeAttrs backward = ops::BackwardAttrs(attrs);
  std::vector<CpuTensor> out_grads = Allocate(out_shapes, out_types);
  for (const CpuTensor& t : out_grads) Fill(t.blob(), in);
  std::vector<CpuTensor> in_grads = Allocate(in_shapes, in_types);
  ops::Invoke<mshadow::cpu>(
      backward, ops::MakeCpuContext(backward, true),
      ops::BackwardInputs(attrs, ops::Blobs(out_grads), ops::Blobs(inputs), ops::Blobs(outputs)),
      std::vector<OpReqType>(in_grads.size(), in->Pick(4) == 3 ? ops::kAddTo : ops::kWriteTo),
      ops::Blobs(in_grads));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Bytes in(data, size);
  try {
    FuzzOne(&in);
  } catch (const dmlc::Error& e) {
    if (Verbose()) std::fprintf(stderr, "  -> %s\n", e.what());
  }
  // Anything else escaping is a finding: libFuzzer reports the uncaught exception.
  return 0;
}
