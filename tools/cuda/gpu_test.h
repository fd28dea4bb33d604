// tools/cuda/gpu_test.h: the fixture of GPU tests. Each test skips, with the message
// "no CUDA device", on a machine without a usable GPU (no device, no driver), so the GPU
// suite runs anywhere the CUDA build does and passes only what actually ran.
#ifndef TOOLS_CUDA_GPU_TEST_H_
#define TOOLS_CUDA_GPU_TEST_H_

#include <gtest/gtest.h>

namespace gpu_testing {

// Whether a CUDA device can be used (any error of the runtime's query counts as none).
bool HasCudaDevice();

class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!HasCudaDevice()) GTEST_SKIP() << "no CUDA device";
  }
};

}  // namespace gpu_testing

#endif  // TOOLS_CUDA_GPU_TEST_H_
