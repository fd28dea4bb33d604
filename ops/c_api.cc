// The C ABI (ops/c_api.h) over the registry, inference and checked invocation. Every entry
// point runs its body through Guarded(), which turns any exception into -1 and the
// thread's last-error message.
#include "ops/c_api.h"

#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "mshadow/dlpack.h"
#include "ops/backward.h"
#include "ops/catalog.h"
#ifdef MSHADOW_OPS_WITH_CUDA
#include "ops/gpu_context.h"
#endif
#include "ops/imperative.h"
#include "ops/infer.h"
#include "ops/invoke.h"
#include "ops/random_source.h"

struct MXOpsAttrs {
  ops::NodeAttrs forward;
  // The backward operator's, parsed once with the forward's (when it has a gradient).
  ops::NodeAttrs backward;
};

namespace {

thread_local std::string last_error;

// Runs body(function) and turns any exception into -1 and MXOpsGetLastError's message.
// `function` is the C entry point's name for messages (inside the lambda, __func__ would
// read "operator()").
template <typename Body>
int Guarded(const char* function, Body body) {
  try {
    body(function);
    return 0;
  } catch (const std::bad_alloc&) {
    last_error = "out of memory";
  } catch (const std::exception& e) {
    last_error = e.what();
  } catch (...) {
    last_error = "unknown exception";
  }
  return -1;
}

// Pointer arguments must be given; `what` names the argument in the message.
template <typename T>
void Require(T* pointer, const char* function, const char* what) {
  if (pointer == nullptr) {
    throw dmlc::Error(std::string(function) + ": argument '" + what + "' is NULL");
  }
}

void RequireCount(int count, const char* function, const char* what) {
  if (count < 0) {
    throw dmlc::Error(std::string(function) + ": " + what + " is " + std::to_string(count) +
                      "; valid: >= 0");
  }
}

// A count the operator fixes (inputs, outputs) must match the one the host gives.
void RequireArity(int given, size_t expected, const std::string& op, const char* what) {
  if (given < 0 || static_cast<size_t>(given) != expected) {
    throw dmlc::Error(op + ": " + what + ": given " + std::to_string(given) + ", expected " +
                      std::to_string(expected));
  }
}

const ops::NodeAttrs& AttrsOf(MXOpsAttrsHandle handle, const char* function) {
  Require(handle, function, "attrs");
  return handle->forward;
}

std::vector<mshadow::TBlob> BlobsOf(int count, const DLTensor* tensors, const char* function,
                                    const char* what) {
  RequireCount(count, function, what);
  if (count > 0) Require(tensors, function, what);
  std::vector<mshadow::TBlob> blobs;
  for (int i = 0; i < count; ++i) {
    try {
      blobs.push_back(mshadow::FromDLPack(tensors[i]));
    } catch (const dmlc::Error& e) {
      throw dmlc::Error(std::string(function) + ": " + what + "[" + std::to_string(i) +
                        "]: " + e.what());
    }
  }
  return blobs;
}

std::vector<ops::OpReqType> RequestsOf(const int* req, size_t count) {
  std::vector<ops::OpReqType> requests(count, ops::kWriteTo);
  for (size_t i = 0; req != nullptr && i < count; ++i) {
    // Stored through its underlying integer, never converted: Invoke rejects values outside
    // the enumerators with its message before any use.
    static_assert(sizeof(ops::OpReqType) == sizeof(int), "OpReqType values are stored as ints");
    std::memcpy(&requests[i], &req[i], sizeof(int));
  }
  return requests;
}

// Temporary space the host lends for one call.
class HostWorkspace : public ops::TempSpace {
 public:
  HostWorkspace(void* memory, size_t bytes) : memory_(memory), bytes_(bytes) {}
  void* Get(size_t bytes) override {
    if (bytes > bytes_) {
      throw dmlc::Error("the operator needs " + std::to_string(bytes) +
                        " bytes of workspace; the host gave " + std::to_string(bytes_));
    }
    return memory_;
  }

 private:
  void* memory_;
  size_t bytes_;
};

// Runs a checked call on the device its tensors are on.
void InvokeOnDevice(const ops::NodeAttrs& attrs, const std::vector<mshadow::TBlob>& inputs,
                    const std::vector<ops::OpReqType>& req,
                    const std::vector<mshadow::TBlob>& outputs, bool is_train, void* stream,
                    void* workspace, size_t workspace_size) {
  if (workspace != nullptr && reinterpret_cast<uintptr_t>(workspace) % 64 != 0) {
    throw dmlc::Error(attrs.op->name + ": the workspace must be 64-byte aligned");
  }
  HostWorkspace host_workspace(workspace, workspace_size);
  const bool on_gpu = !outputs.empty() ? outputs[0].dev_mask_ == mshadow::gpu::kDevMask
                                       : !inputs.empty() && inputs[0].dev_mask_ == mshadow::gpu::kDevMask;
  if (!on_gpu) {
    ops::OpContext ctx = ops::MakeCpuContext(attrs, is_train);
    if (workspace != nullptr) ctx.requested = ops::RequestedResources(attrs, &host_workspace);
    ops::Invoke<mshadow::cpu>(attrs, ctx, inputs, req, outputs);
    return;
  }
#ifdef MSHADOW_OPS_WITH_CUDA
  ops::GpuCall call(attrs, stream, is_train);
  if (workspace != nullptr) {
    call.context().requested = ops::RequestedResources(attrs, &host_workspace);
  }
  ops::Invoke<mshadow::gpu>(attrs, call.context(), inputs, req, outputs);
#else
  (void)stream;
  throw dmlc::Error(attrs.op->name + ": the tensors are CUDA memory (kDLCUDA), but this library "
                    "was built without CUDA; valid here: CPU tensors (kDLCPU), or a library "
                    "built with --config=cuda");
#endif
}

// Thread-local results: valid until the same function runs again on this thread.
struct ShapeResult {
  std::vector<int> in_ndims, out_ndims;
  std::vector<int64_t> in_dims, out_dims;
};

void Flatten(const std::vector<mshadow::TShape>& shapes, std::vector<int>* ndims,
             std::vector<int64_t>* dims) {
  ndims->clear();
  dims->clear();
  for (const mshadow::TShape& shape : shapes) {
    ndims->push_back(shape.ndim());
    dims->insert(dims->end(), shape.begin(), shape.end());
  }
}

}  // namespace

extern "C" {

const char* MXOpsGetLastError(void) { return last_error.c_str(); }

int MXOpsGetVersion(int* abi_version, const char** version) {
  return Guarded(__func__, [&](const char* function) {
    Require(abi_version, function, "abi_version");
    Require(version, function, "version");
    *abi_version = MXOPS_ABI_VERSION;
    *version = "mshadow_ops 0.1";
  });
}

int MXOpsSetRandomSeed(uint64_t seed) {
  return Guarded(__func__, [&](const char*) { ops::SetRandomSeed(seed); });
}

int MXOpsListOperators(int* count, const char* const** names) {
  return Guarded(__func__, [&](const char* function) {
    Require(count, function, "count");
    Require(names, function, "names");
    // Registration ends before hosts call in; the list is built once.
    static const std::vector<std::string>* all = new std::vector<std::string>(ops::Op::ListAllNames());
    static const std::vector<const char*>* pointers = [] {
      auto* p = new std::vector<const char*>();
      for (const std::string& name : *all) p->push_back(name.c_str());
      return p;
    }();
    *count = static_cast<int>(pointers->size());
    *names = pointers->data();
  });
}

int MXOpsGetOperatorInfo(const char* op_name, const char** json) {
  return Guarded(__func__, [&](const char* function) {
    Require(op_name, function, "op_name");
    Require(json, function, "json");
    thread_local std::string entry;
    entry = ops::CatalogEntryJson(*ops::Op::Get(op_name));
    *json = entry.c_str();
  });
}

int MXOpsCreateAttrs(const char* op_name, int num_params, const char* const* keys,
                     const char* const* values, MXOpsAttrsHandle* out) {
  return Guarded(__func__, [&](const char* function) {
    Require(op_name, function, "op_name");
    Require(out, function, "out");
    *out = nullptr;
    RequireCount(num_params, function, "num_params");
    if (num_params > 0) {
      Require(keys, function, "keys");
      Require(values, function, "values");
    }
    const ops::Op* op = ops::Op::Get(op_name);
    std::vector<std::pair<std::string, std::string>> kwargs;
    for (int i = 0; i < num_params; ++i) {
      if (keys[i] == nullptr || values[i] == nullptr) {
        throw dmlc::Error(std::string(function) + ": parameter " + std::to_string(i) +
                          " has a NULL key or value");
      }
      kwargs.emplace_back(keys[i], values[i]);
    }
    auto attrs = std::make_unique<MXOpsAttrs>();
    attrs->forward = ops::ParseAttrs(op, kwargs);
    if (op->HasAttr("FGradient")) attrs->backward = ops::BackwardAttrs(attrs->forward);
    *out = attrs.release();
  });
}

int MXOpsFreeAttrs(MXOpsAttrsHandle attrs) {
  return Guarded(__func__, [&](const char* function) {
    Require(attrs, function, "attrs");
    delete attrs;
  });
}

int MXOpsGetArity(MXOpsAttrsHandle handle, int* num_inputs, int* num_outputs) {
  return Guarded(__func__, [&](const char* function) {
    const ops::NodeAttrs& attrs = AttrsOf(handle, function);
    Require(num_inputs, function, "num_inputs");
    Require(num_outputs, function, "num_outputs");
    *num_inputs = static_cast<int>(attrs.op->num_inputs(attrs));
    *num_outputs = static_cast<int>(attrs.op->num_outputs(attrs));
  });
}

int MXOpsGetNumVisibleOutputs(MXOpsAttrsHandle handle, int* num_visible) {
  return Guarded(__func__, [&](const char* function) {
    const ops::NodeAttrs& attrs = AttrsOf(handle, function);
    Require(num_visible, function, "num_visible");
    *num_visible = static_cast<int>(attrs.op->num_visible_outputs(attrs));
  });
}

int MXOpsGetInputNames(MXOpsAttrsHandle handle, int* num_inputs, const char* const** names) {
  return Guarded(__func__, [&](const char* function) {
    const ops::NodeAttrs& attrs = AttrsOf(handle, function);
    Require(num_inputs, function, "num_inputs");
    Require(names, function, "names");
    thread_local std::vector<std::string> strings;
    thread_local std::vector<const char*> pointers;
    strings = attrs.op->ListInputNames(attrs);
    pointers.clear();
    for (const std::string& s : strings) pointers.push_back(s.c_str());
    *num_inputs = static_cast<int>(pointers.size());
    *names = pointers.data();
  });
}

int MXOpsInferShape(MXOpsAttrsHandle handle, int num_inputs, const int* in_ndims,
                    const int64_t* in_dims, const int** inferred_in_ndims,
                    const int64_t** inferred_in_dims, int* num_outputs, const int** out_ndims,
                    const int64_t** out_dims) {
  return Guarded(__func__, [&](const char* function) {
    const ops::NodeAttrs& attrs = AttrsOf(handle, function);
    RequireCount(num_inputs, function, "num_inputs");
    if (num_inputs > 0) Require(in_ndims, function, "in_ndims");
    Require(inferred_in_ndims, function, "inferred_in_ndims");
    Require(inferred_in_dims, function, "inferred_in_dims");
    Require(num_outputs, function, "num_outputs");
    Require(out_ndims, function, "out_ndims");
    Require(out_dims, function, "out_dims");
    std::vector<mshadow::TShape> in, out;
    size_t at = 0;
    for (int i = 0; i < num_inputs; ++i) {
      if (in_ndims[i] < 0 || in_ndims[i] > 32) {
        throw dmlc::Error(attrs.op->name + ": input " + std::to_string(i) + " has ndim " +
                          std::to_string(in_ndims[i]) + "; valid: 0 (unknown) to 32");
      }
      if (in_ndims[i] > 0) Require(in_dims, function, "in_dims");
      in.emplace_back(in_dims + at, in_dims + at + in_ndims[i]);
      at += static_cast<size_t>(in_ndims[i]);
    }
    ops::InferShapes(attrs, &in, &out);
    thread_local ShapeResult result;
    Flatten(in, &result.in_ndims, &result.in_dims);
    Flatten(out, &result.out_ndims, &result.out_dims);
    *inferred_in_ndims = result.in_ndims.data();
    *inferred_in_dims = result.in_dims.data();
    *num_outputs = static_cast<int>(out.size());
    *out_ndims = result.out_ndims.data();
    *out_dims = result.out_dims.data();
  });
}

int MXOpsInferType(MXOpsAttrsHandle handle, int num_inputs, const int* in_types,
                   const int** inferred_in_types, int* num_outputs, const int** out_types) {
  return Guarded(__func__, [&](const char* function) {
    const ops::NodeAttrs& attrs = AttrsOf(handle, function);
    RequireCount(num_inputs, function, "num_inputs");
    if (num_inputs > 0) Require(in_types, function, "in_types");
    Require(inferred_in_types, function, "inferred_in_types");
    Require(num_outputs, function, "num_outputs");
    Require(out_types, function, "out_types");
    thread_local std::vector<int> in, out;
    in.assign(in_types, in_types + num_inputs);
    out.clear();
    for (size_t i = 0; i < in.size(); ++i) {
      if (in[i] != -1) mshadow::TypeFlagSize(in[i]);  // an unknown flag names the valid ones
    }
    ops::InferTypes(attrs, &in, &out);
    *inferred_in_types = in.data();
    *num_outputs = static_cast<int>(out.size());
    *out_types = out.data();
  });
}

int MXOpsInvoke(MXOpsAttrsHandle handle, int num_inputs, const DLTensor* inputs, int num_outputs,
                const DLTensor* outputs, const int* req, int is_train, void* stream,
                void* workspace, size_t workspace_size) {
  return Guarded(__func__, [&](const char* function) {
    const ops::NodeAttrs& attrs = AttrsOf(handle, function);
    const std::vector<mshadow::TBlob> in = BlobsOf(num_inputs, inputs, function, "inputs");
    const std::vector<mshadow::TBlob> out = BlobsOf(num_outputs, outputs, function, "outputs");
    InvokeOnDevice(attrs, in, RequestsOf(req, out.size()), out, is_train != 0, stream,
                   workspace, workspace_size);
  });
}

int MXOpsInvokeBackward(MXOpsAttrsHandle handle, int num_out_grads, const DLTensor* out_grads,
                        int num_inputs, const DLTensor* inputs, int num_outputs,
                        const DLTensor* outputs, int num_in_grads, const DLTensor* in_grads,
                        const int* req, void* stream, void* workspace, size_t workspace_size) {
  return Guarded(__func__, [&](const char* function) {
    const ops::NodeAttrs& forward = AttrsOf(handle, function);
    const std::string& name = forward.op->name;
    const size_t forward_inputs = forward.op->num_inputs(forward);
    const size_t forward_outputs = forward.op->num_outputs(forward);
    RequireArity(num_out_grads, forward_outputs, name, "out_grads (one per forward output)");
    RequireArity(num_inputs, forward_inputs, name, "inputs (the forward inputs)");
    RequireArity(num_outputs, forward_outputs, name, "outputs (the forward outputs)");
    RequireArity(num_in_grads, forward_inputs, name, "in_grads (one per forward input)");
    ops::GradientOf(*forward.op);  // an operator without a gradient fails here, by name
    const std::vector<mshadow::TBlob> grads_out =
        BlobsOf(num_in_grads, in_grads, function, "in_grads");
    InvokeOnDevice(handle->backward,
                   ops::BackwardInputs(forward, BlobsOf(num_out_grads, out_grads, function, "out_grads"),
                                       BlobsOf(num_inputs, inputs, function, "inputs"),
                                       BlobsOf(num_outputs, outputs, function, "outputs")),
                   RequestsOf(req, grads_out.size()), grads_out, /*is_train=*/true, stream,
                   workspace, workspace_size);
  });
}

}  // extern "C"
