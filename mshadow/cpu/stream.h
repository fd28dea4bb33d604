// mshadow/cpu/stream.h: `Stream<cpu>`, the CPU's execution context. `Stream<Device>` is only
// declared (mshadow/device.h); each backend defines its own (the GPU's, with a CUDA stream and
// cuBLAS handle, is mshadow/cuda/stream.h), so a device without one is a compile error, not a
// silent no-op. On the CPU work runs synchronously, so the stream is trivial.
#ifndef MSHADOW_CPU_STREAM_H_
#define MSHADOW_CPU_STREAM_H_

#include "mshadow/device.h"

namespace mshadow {

template <>
struct Stream<cpu> {
  // Blocks until all work issued on the stream has finished.
  inline void Wait() {}
  // Whether all work issued on the stream has finished.
  inline bool CheckIdle() { return true; }
  // Creates the BLAS handle used by dot on this stream (nothing to create on the CPU).
  inline void CreateBlasHandle() {}
};

}  // namespace mshadow

#endif  // MSHADOW_CPU_STREAM_H_
