// mshadow/stream.h: `Stream<Device>`, the execution context computations are issued on.
// On the CPU work runs synchronously, so the stream is trivial; the GPU backend
// (mshadow/cuda/stream.h) defines Stream<gpu> with a CUDA stream and cuBLAS handle. There is
// no generic definition: a device without its own is a compile error, not a silent no-op.
#ifndef MSHADOW_STREAM_H_
#define MSHADOW_STREAM_H_

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

#endif  // MSHADOW_STREAM_H_
