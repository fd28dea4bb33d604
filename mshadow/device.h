// mshadow/device.h: the device tags `cpu` and `gpu` that tensors and expressions carry.
//
// The traits are compile-time constants so that expression templates can check, before any
// evaluation, that every operand lives on the device the result is computed on.
#ifndef MSHADOW_DEVICE_H_
#define MSHADOW_DEVICE_H_

namespace mshadow {

// The host CPU.
struct cpu {
  // Whether this device is the CPU.
  static constexpr bool kDevCPU = true;
  // Bit identifying the device; expressions combine operands' masks with `&`.
  static constexpr int kDevMask = 1 << 0;
};

// A CUDA GPU.
struct gpu {
  static constexpr bool kDevCPU = false;
  static constexpr int kDevMask = 1 << 1;
};

// Device-specific execution context, defined by each backend only (mshadow/cpu/stream.h,
// mshadow/cuda/stream.h): using it on a device without a backend does not compile.
template <typename Device>
struct Stream;

}  // namespace mshadow

#endif  // MSHADOW_DEVICE_H_
