// tools/opctl/demo_util.h: what opctl's training demos share: where tensors live and
// operators run (DemoDevice: the CPU, or GPU 0 in a CUDA build), an operator with parsed
// attributes bound to a device (Layer), random initialization, and batches as views of a
// dataset.
#ifndef TOOLS_OPCTL_DEMO_UTIL_H_
#define TOOLS_OPCTL_DEMO_UTIL_H_

#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "ops/imperative.h"

namespace opctl {

// Where a demo's tensors live and its operators run.
class DemoDevice {
 public:
  // One operator's call with its context made once: (inputs, requests, outputs).
  using Call =
      std::function<void(const std::vector<ops::TBlob>&, const std::vector<ops::OpReqType>&,
                         const std::vector<ops::TBlob>&)>;

  virtual ~DemoDevice() = default;
  // "CPU", "GPU 0 (NVIDIA H100 80GB HBM3)".
  virtual std::string Name() const = 0;
  // A tensor on the device holding a copy of the host tensor `host` (any type), owned by the
  // device object.
  virtual ops::TBlob Upload(const ops::TBlob& host) = 0;
  // A float32 tensor on the device holding the host's `values` (shape.Size() of them).
  ops::TBlob Upload(const mshadow::TShape& shape, const float* values) {
    return Upload(
        ops::TBlob(const_cast<float*>(values), shape, mshadow::cpu::kDevMask, mshadow::kFloat32));
  }
  // The tensor's values on the host, once the work issued before has finished.
  virtual std::vector<float> Download(const ops::TBlob& blob) const = 0;
  virtual Call Bind(const ops::NodeAttrs& attrs, bool is_train) const = 0;
};

// The CPU (one instance for the process).
DemoDevice& CpuDevice();

// The device for `--device cpu|gpu`; with "" (no flag), GPU 0 where opctl was built with CUDA
// and a GPU is present, the CPU otherwise. gpu without one is a dmlc::Error saying why.
DemoDevice& ChooseDemoDevice(const std::string& requested);

// One operator with parsed attributes, run on a device into given outputs.
class Layer {
 public:
  Layer(const std::string& op, const std::map<std::string, std::string>& kwargs,
        bool is_train = true, const DemoDevice& device = CpuDevice());

  // Runs the operator; `req` defaults to kWriteTo for every output.
  void Forward(const std::vector<ops::TBlob>& in, const std::vector<ops::TBlob>& out,
               std::vector<ops::OpReqType> req = {}) const;

  // The backward operator this layer's FGradient names, with the same attributes.
  Layer Backward() const;

  const ops::NodeAttrs& attrs() const { return attrs_; }

 private:
  ops::NodeAttrs attrs_;
  bool is_train_;
  const DemoDevice* device_;
  DemoDevice::Call call_;
};

// Uniform values in [-bound, bound].
void FillUniform(const ops::CpuTensor& t, float bound, std::mt19937* rng);

// Rows [begin, begin + rows) of a float32 tensor (along its first axis), on whatever device,
// as a blob of the same memory.
ops::TBlob Rows(const ops::TBlob& t, mshadow::index_t begin, mshadow::index_t rows);
inline ops::TBlob Rows(const ops::CpuTensor& t, mshadow::index_t begin, mshadow::index_t rows) {
  return Rows(t.blob(), begin, rows);
}

}  // namespace opctl

#endif  // TOOLS_OPCTL_DEMO_UTIL_H_
