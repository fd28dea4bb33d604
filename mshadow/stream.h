// mshadow/stream.h: `Stream<Device>`, the execution context computations are issued on.
// On the CPU work runs synchronously, so the stream is trivial; the GPU backend specializes
// it with a CUDA stream and BLAS handle.
#ifndef MSHADOW_STREAM_H_
#define MSHADOW_STREAM_H_

#include "mshadow/device.h"

namespace mshadow {

template <typename Device>
struct Stream {
  // Blocks until all work issued on the stream has finished.
  inline void Wait() {}
  // Whether all work issued on the stream has finished.
  inline bool CheckIdle() { return true; }
  // Creates the BLAS handle used by dot on this stream (nothing to create on the CPU).
  inline void CreateBlasHandle() {}
};

}  // namespace mshadow

#endif  // MSHADOW_STREAM_H_
