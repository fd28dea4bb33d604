#include "tools/opctl/gpu.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "mshadow/cuda/check.h"
#include "ops/gpu_context.h"
#include "ops/invoke.h"

namespace opctl {
namespace {

size_t Bytes(const ops::TBlob& blob) {
  return blob.shape_.Size() * mshadow::TypeFlagSize(blob.type_flag_);
}

// opctl's stream, made on first use, kept for the process.
cudaStream_t OpctlStream() {
  static cudaStream_t stream = [] {
    cudaStream_t created = nullptr;
    MSHADOW_CUDA_CALL(cudaStreamCreateWithFlags(&created, cudaStreamNonBlocking));
    return created;
  }();
  return stream;
}

// A CUDA event, destroyed with the object.
class Event {
 public:
  Event() { MSHADOW_CUDA_CALL(cudaEventCreate(&event_)); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  ~Event() { cudaEventDestroy(event_); }
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

}  // namespace

GpuTensors::GpuTensors(const std::vector<ops::TBlob>& host) {
  try {
    for (const ops::TBlob& tensor : host) {
      void* device = nullptr;
      const size_t bytes = Bytes(tensor);
      MSHADOW_CUDA_CALL(cudaMalloc(&device, std::max<size_t>(bytes, 1)));
      blobs_.emplace_back(device, tensor.shape_, mshadow::gpu::kDevMask, tensor.type_flag_);
      MSHADOW_CUDA_CALL(
          cudaMemcpyAsync(device, tensor.dptr_, bytes, cudaMemcpyHostToDevice, OpctlStream()));
    }
    MSHADOW_CUDA_CALL(cudaStreamSynchronize(OpctlStream()));
  } catch (...) {
    Free();
    throw;
  }
}

GpuTensors::~GpuTensors() { Free(); }

void GpuTensors::Free() {
  cudaStreamSynchronize(OpctlStream());  // nothing may still use the memory
  for (const ops::TBlob& blob : blobs_) cudaFree(blob.dptr_);
  blobs_.clear();
}

std::vector<ops::CpuTensor> GpuTensors::Download() const {
  std::vector<ops::CpuTensor> host;
  for (const ops::TBlob& blob : blobs_) {
    host.emplace_back(blob.shape_, blob.type_flag_);
    MSHADOW_CUDA_CALL(cudaMemcpyAsync(host.back().blob().dptr_, blob.dptr_, Bytes(blob),
                                      cudaMemcpyDeviceToHost, OpctlStream()));
  }
  MSHADOW_CUDA_CALL(cudaStreamSynchronize(OpctlStream()));
  return host;
}

void InvokeOnGpu(const ops::NodeAttrs& attrs, bool is_train, const std::vector<ops::TBlob>& inputs,
                 const std::vector<ops::TBlob>& outputs) {
  ops::GpuCall call(attrs, OpctlStream(), is_train);
  const std::vector<ops::OpReqType> write(outputs.size(), ops::kWriteTo);
  ops::Invoke<mshadow::gpu>(attrs, call.context(), inputs, write, outputs);
}

double GpuMedianMicros(const ops::NodeAttrs& attrs, bool is_train,
                       const std::vector<ops::TBlob>& inputs,
                       const std::vector<ops::TBlob>& outputs, int iterations) {
  ops::GpuCall call(attrs, OpctlStream(), is_train);
  const std::vector<ops::OpReqType> write(outputs.size(), ops::kWriteTo);
  const auto invoke = [&] {
    ops::Invoke<mshadow::gpu>(attrs, call.context(), inputs, write, outputs);
  };
  for (int i = 0; i < 3; ++i) invoke();  // module load, cuBLAS handle, temporary space
  Event start, stop;
  std::vector<double> rounds;
  for (int round = 0; round < 5; ++round) {
    MSHADOW_CUDA_CALL(cudaEventRecord(start.get(), OpctlStream()));
    for (int i = 0; i < iterations; ++i) invoke();
    MSHADOW_CUDA_CALL(cudaEventRecord(stop.get(), OpctlStream()));
    MSHADOW_CUDA_CALL(cudaEventSynchronize(stop.get()));
    float milliseconds = 0;
    MSHADOW_CUDA_CALL(cudaEventElapsedTime(&milliseconds, start.get(), stop.get()));
    rounds.push_back(1e3 * milliseconds / iterations);
  }
  std::sort(rounds.begin(), rounds.end());
  return rounds[2];
}

namespace {

class Gpu : public DemoDevice {
 public:
  std::string Name() const override { return "GPU 0 (" + GpuName() + ")"; }
  ops::TBlob Upload(const ops::TBlob& host) override {
    tensors_.push_back(std::make_unique<GpuTensors>(std::vector<ops::TBlob>{host}));
    return tensors_.back()->blobs()[0];
  }
  std::vector<float> Download(const ops::TBlob& blob) const override {
    std::vector<float> host(blob.shape_.Size());
    MSHADOW_CUDA_CALL(cudaMemcpyAsync(host.data(), blob.dptr_, Bytes(blob), cudaMemcpyDeviceToHost,
                                      OpctlStream()));
    MSHADOW_CUDA_CALL(cudaStreamSynchronize(OpctlStream()));
    return host;
  }
  Call Bind(const ops::NodeAttrs& attrs, bool is_train) const override {
    auto call = std::make_shared<ops::GpuCall>(attrs, OpctlStream(), is_train);
    return [attrs, call](const std::vector<ops::TBlob>& in, const std::vector<ops::OpReqType>& req,
                         const std::vector<ops::TBlob>& out) {
      ops::Invoke<mshadow::gpu>(attrs, call->context(), in, req, out);
    };
  }

 private:
  std::vector<std::unique_ptr<GpuTensors>> tensors_;
};

}  // namespace

bool GpuPresent() {
  int count = 0;
  const bool ok = cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
  cudaGetLastError();  // no device is not an error for later calls
  return ok;
}

DemoDevice& GpuDevice() {
  if (!GpuPresent()) throw dmlc::Error("--device gpu: no CUDA device is present");
  static Gpu* gpu = new Gpu();
  return *gpu;
}

std::string GpuName() {
  cudaDeviceProp properties{};
  MSHADOW_CUDA_CALL(cudaGetDeviceProperties(&properties, 0));
  return properties.name;
}

}  // namespace opctl
