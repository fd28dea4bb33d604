#include "tools/cuda/gpu_test.h"

#include <cuda_runtime.h>

namespace gpu_testing {

bool HasCudaDevice() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky error of the failed query
    return false;
  }
  return count > 0;
}

}  // namespace gpu_testing
