// The C ABI on CUDA memory: operators invoked on kDLCUDA tensors and a host cudaStream_t give
// the CPU's results, forward and backward, with library-allocated and host-given workspace.
// Skips without a GPU ("no CUDA device").
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "mshadow/cuda/check.h"
#include "ops/c_api.h"
#include "tools/cuda/gpu_test.h"

namespace {

// A float32 array with its host copy, shape, and DLTensor views on either device.
struct Array {
  std::vector<int64_t> shape;
  std::vector<float> host;
  float* device = nullptr;

  Array(std::vector<int64_t> dims, unsigned seed) : shape(std::move(dims)) {
    int64_t size = 1;
    for (int64_t d : shape) size *= d;
    host.resize(size);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    for (float& v : host) v = uniform(rng);
    MSHADOW_CUDA_CALL(cudaMalloc(&device, host.size() * sizeof(float)));
    MSHADOW_CUDA_CALL(
        cudaMemcpy(device, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice));
  }
  ~Array() { cudaFree(device); }
  Array(const Array&) = delete;

  DLTensor View(bool on_gpu) {
    DLTensor t{};
    t.data = on_gpu ? static_cast<void*>(device) : host.data();
    t.device = {on_gpu ? kDLCUDA : kDLCPU, 0};
    t.ndim = static_cast<int32_t>(shape.size());
    t.dtype = {kDLFloat, 32, 1};
    t.shape = shape.data();
    return t;
  }
  std::vector<float> DeviceValues() const {
    std::vector<float> values(host.size());
    MSHADOW_CUDA_CALL(
        cudaMemcpy(values.data(), device, values.size() * sizeof(float), cudaMemcpyDeviceToHost));
    return values;
  }
};

void ExpectNear(const std::vector<float>& want, const std::vector<float>& got) {
  ASSERT_EQ(want.size(), got.size());
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_NEAR(want[i], got[i], 1e-4f * (1.0f + std::fabs(want[i]))) << "element " << i;
  }
}

class CApiGpuTest : public gpu_testing::GpuTest {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    if (IsSkipped()) return;
    MSHADOW_CUDA_CALL(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  }
  void TearDown() override {
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
  }
  MXOpsAttrsHandle Attrs(const char* op, std::vector<const char*> keys,
                         std::vector<const char*> values) {
    MXOpsAttrsHandle attrs = nullptr;
    EXPECT_EQ(
        0, MXOpsCreateAttrs(op, static_cast<int>(keys.size()), keys.data(), values.data(), &attrs))
        << MXOpsGetLastError();
    return attrs;
  }
  cudaStream_t stream_ = nullptr;
};

TEST_F(CApiGpuTest, FullyConnectedForwardAndBackwardMatchTheCpu) {
  MXOpsAttrsHandle fc = Attrs("FullyConnected", {"num_hidden"}, {"5"});
  Array x({3, 4}, 1), w({5, 4}, 2), b({5}, 3), y({3, 5}, 4);
  DLTensor cpu_in[] = {x.View(false), w.View(false), b.View(false)};
  DLTensor gpu_in[] = {x.View(true), w.View(true), b.View(true)};
  DLTensor cpu_out = y.View(false), gpu_out = y.View(true);
  ASSERT_EQ(0, MXOpsInvoke(fc, 3, cpu_in, 1, &cpu_out, nullptr, 0, nullptr, nullptr, 0))
      << MXOpsGetLastError();
  ASSERT_EQ(0, MXOpsInvoke(fc, 3, gpu_in, 1, &gpu_out, nullptr, 0, stream_, nullptr, 0))
      << MXOpsGetLastError();
  MSHADOW_CUDA_CALL(cudaStreamSynchronize(stream_));
  ExpectNear(y.host, y.DeviceValues());

  Array dy({3, 5}, 5), dx({3, 4}, 6), dw({5, 4}, 7), db({5}, 8);
  DLTensor cpu_dy = dy.View(false), gpu_dy = dy.View(true);
  DLTensor cpu_grads[] = {dx.View(false), dw.View(false), db.View(false)};
  DLTensor gpu_grads[] = {dx.View(true), dw.View(true), db.View(true)};
  ASSERT_EQ(0, MXOpsInvokeBackward(fc, 1, &cpu_dy, 3, cpu_in, 1, &cpu_out, 3, cpu_grads, nullptr,
                                   nullptr, nullptr, 0))
      << MXOpsGetLastError();
  ASSERT_EQ(0, MXOpsInvokeBackward(fc, 1, &gpu_dy, 3, gpu_in, 1, &gpu_out, 3, gpu_grads, nullptr,
                                   stream_, nullptr, 0))
      << MXOpsGetLastError();
  MSHADOW_CUDA_CALL(cudaStreamSynchronize(stream_));
  ExpectNear(dx.host, dx.DeviceValues());
  ExpectNear(dw.host, dw.DeviceValues());
  ExpectNear(db.host, db.DeviceValues());
  MXOpsFreeAttrs(fc);
}

TEST_F(CApiGpuTest, ReductionWithHostWorkspaceMatchesTheCpu) {
  MXOpsAttrsHandle sum = Attrs("sum", {"axis"}, {"(0,2)"});
  Array x({4, 3, 5}, 9), y({3}, 10);
  void* workspace = nullptr;
  MSHADOW_CUDA_CALL(cudaMalloc(&workspace, 1 << 16));
  DLTensor cpu_in = x.View(false), gpu_in = x.View(true);
  DLTensor cpu_out = y.View(false), gpu_out = y.View(true);
  ASSERT_EQ(0, MXOpsInvoke(sum, 1, &cpu_in, 1, &cpu_out, nullptr, 0, nullptr, nullptr, 0))
      << MXOpsGetLastError();
  ASSERT_EQ(0, MXOpsInvoke(sum, 1, &gpu_in, 1, &gpu_out, nullptr, 0, stream_, workspace, 1 << 16))
      << MXOpsGetLastError();
  MSHADOW_CUDA_CALL(cudaStreamSynchronize(stream_));
  ExpectNear(y.host, y.DeviceValues());
  cudaFree(workspace);
  MXOpsFreeAttrs(sum);
}

TEST_F(CApiGpuTest, MixedDevicesAreRejected) {
  MXOpsAttrsHandle relu = Attrs("relu", {}, {});
  Array x({2, 3}, 11);
  DLTensor in = x.View(true), out = x.View(false);
  EXPECT_EQ(-1, MXOpsInvoke(relu, 1, &in, 1, &out, nullptr, 0, stream_, nullptr, 0));
  EXPECT_NE(std::string(MXOpsGetLastError()).find("is on gpu, the operator runs on cpu"),
            std::string::npos)
      << MXOpsGetLastError();
  MXOpsFreeAttrs(relu);
}

}  // namespace
