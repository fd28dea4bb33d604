// tools/opctl/gpu.h: `opctl run|bench|demo --device gpu`: operators on GPU 0, their inputs
// copied from the host tensors opctl prepared, on one stream of its own (built with
// --config=cuda).
#ifndef TOOLS_OPCTL_GPU_H_
#define TOOLS_OPCTL_GPU_H_

#include <string>
#include <vector>

#include "ops/imperative.h"
#include "tools/opctl/demo_util.h"

namespace opctl {

// Device copies of host tensors, freed with the object.
class GpuTensors {
 public:
  explicit GpuTensors(const std::vector<ops::TBlob>& host);
  GpuTensors(const GpuTensors&) = delete;
  GpuTensors& operator=(const GpuTensors&) = delete;
  ~GpuTensors();

  const std::vector<ops::TBlob>& blobs() const { return blobs_; }
  // Host copies, after the work queued on the device finished.
  std::vector<ops::CpuTensor> Download() const;

 private:
  void Free();

  std::vector<ops::TBlob> blobs_;
};

// One call of `attrs` on the GPU; the outputs must have their inferred shapes and types.
void InvokeOnGpu(const ops::NodeAttrs& attrs, bool is_train, const std::vector<ops::TBlob>& inputs,
                 const std::vector<ops::TBlob>& outputs);

// Microseconds per call of `attrs` on the GPU: the median of 5 rounds of `iterations` calls,
// each round timed by CUDA events around it (the device's time, launches included).
double GpuMedianMicros(const ops::NodeAttrs& attrs, bool is_train,
                       const std::vector<ops::TBlob>& inputs,
                       const std::vector<ops::TBlob>& outputs, int iterations);

// "NVIDIA H100 80GB HBM3" for GPU 0; a dmlc::Error naming the CUDA error if there is none.
std::string GpuName();

// Whether a CUDA device is present (and the driver works).
bool GpuPresent();

// GPU 0 as the demos' device (one instance for the process; a dmlc::Error without a GPU).
DemoDevice& GpuDevice();

}  // namespace opctl

#endif  // TOOLS_OPCTL_GPU_H_
