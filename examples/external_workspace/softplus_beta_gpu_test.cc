// softplus_beta on the GPU against the CPU: forward and backward, float32 and float64, both
// branches of the threshold. Skips with "no CUDA device" where there is none.
#include <cuda_runtime.h>

#include <cmath>
#include <tuple>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "ops/backward.h"
#include "ops/gpu_context.h"
#include "ops/imperative.h"
#include "ops/testing/op_test_util.h"
#include "tools/cuda/gpu_test.h"

namespace {

using ops::CpuTensor;
using ops::TBlob;

// A device copy of a host tensor, freed with the object.
class DeviceCopy {
 public:
  explicit DeviceCopy(const CpuTensor& host) : bytes_(host.shape().Size() * Size(host)) {
    void* data = nullptr;
    EXPECT_EQ(cudaMalloc(&data, bytes_), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(data, host.blob().dptr_, bytes_, cudaMemcpyHostToDevice), cudaSuccess);
    blob_ = TBlob(data, host.shape(), mshadow::gpu::kDevMask, host.type_flag());
  }
  ~DeviceCopy() { cudaFree(blob_.dptr_); }
  const TBlob& blob() const { return blob_; }
  std::vector<double> Values() const {
    CpuTensor host(blob_.shape_, blob_.type_flag_);
    EXPECT_EQ(cudaMemcpy(host.blob().dptr_, blob_.dptr_, bytes_, cudaMemcpyDeviceToHost),
              cudaSuccess);
    return ops::testing::ToValues(host.blob());
  }

 private:
  static size_t Size(const CpuTensor& t) { return mshadow::TypeFlagSize(t.type_flag()); }
  size_t bytes_;
  TBlob blob_;
};

class SoftplusBetaGpuTest : public gpu_testing::GpuTest {};

TEST_F(SoftplusBetaGpuTest, ForwardAndBackwardMatchTheCpu) {
  for (const int type_flag : {mshadow::kFloat32, mshadow::kFloat64}) {
    const double tolerance = type_flag == mshadow::kFloat32 ? 1e-6 : 1e-14;
    // beta 2, threshold 4: inputs in [-4, 4] take both branches.
    const ops::NodeAttrs attrs =
        ops::ParseAttrs(ops::Op::Get("softplus_beta"), {{"beta", "2"}, {"threshold", "4"}});
    CpuTensor x(ops::TShape{37, 129}, type_flag), head(x.shape(), type_flag);
    std::vector<double> values(x.shape().Size()), heads(x.shape().Size());
    for (size_t i = 0; i < values.size(); ++i) {
      values[i] = -4.0 + 8.0 * static_cast<double>((i * 7919) % 1000) / 999.0;
      heads[i] = std::sin(static_cast<double>(i));
    }
    ops::testing::SetValues(x.blob(), values);
    ops::testing::SetValues(head.blob(), heads);
    const ops::NodeAttrs backward = ops::BackwardAttrs(attrs);
    const std::vector<CpuTensor> y = ops::RunCpu(attrs, {x.blob()});
    const std::vector<CpuTensor> dx = ops::RunCpu(backward, {head.blob(), x.blob()});

    const DeviceCopy x_gpu(x), head_gpu(head), y_gpu(y[0]), dx_gpu(dx[0]);
    for (const auto& [op, inputs, output] :
         {std::tuple{&attrs, std::vector<TBlob>{x_gpu.blob()}, &y_gpu},
          std::tuple{&backward, std::vector<TBlob>{head_gpu.blob(), x_gpu.blob()}, &dx_gpu}}) {
      ops::GpuCall call(*op, nullptr);
      ops::Invoke<mshadow::gpu>(*op, call.context(), inputs, {ops::kWriteTo}, {output->blob()});
    }
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    for (const auto& [expected, actual] : {std::pair{&y[0], &y_gpu}, std::pair{&dx[0], &dx_gpu}}) {
      const std::vector<double> want = ops::testing::ToValues(expected->blob());
      const std::vector<double> got = actual->Values();
      for (size_t i = 0; i < want.size(); ++i) {
        ASSERT_NEAR(want[i], got[i], tolerance * (1 + std::fabs(want[i]))) << "element " << i;
      }
    }
  }
}

}  // namespace
