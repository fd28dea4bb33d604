// ops/host_values_on_device.h: values an operator computed on the host (a permutation, draws,
// lookup tables), where its kernels on device xpu read them.
#ifndef OPS_HOST_VALUES_ON_DEVICE_H_
#define OPS_HOST_VALUES_ON_DEVICE_H_

#include <type_traits>

#include "mshadow/tensor.h"
#include "ops/op_types.h"

namespace ops {

// The `count` values at `host` themselves on the CPU; on a GPU a copy in the temporary space
// `space` (queued on the stream from pageable memory, which the host may reuse once this
// returns).
// The same into `count` values of device memory at `room` (the temporary space shared with
// other work).
template <typename xpu, typename T>
const T* HostValuesOnDevice(const T* host, index_t count, T* room, mshadow::Stream<xpu>* s) {
  if constexpr (std::is_same_v<xpu, mshadow::cpu>) {
    return host;
  } else {
    mshadow::Copy(mshadow::Tensor<xpu, 1, T>(room, mshadow::Shape1(count), s),
                  mshadow::Tensor<mshadow::cpu, 1, T>(const_cast<T*>(host), mshadow::Shape1(count)),
                  s);
    return room;
  }
}

template <typename xpu, typename T>
const T* HostValuesOnDevice(const T* host, index_t count, const Resource& space,
                            mshadow::Stream<xpu>* s) {
  if constexpr (std::is_same_v<xpu, mshadow::cpu>) {
    return host;
  } else {
    return HostValuesOnDevice<xpu>(
        host, count, space.get_space_typed<xpu, 1, T>(mshadow::Shape1(count), s).dptr_, s);
  }
}

}  // namespace ops

#endif  // OPS_HOST_VALUES_ON_DEVICE_H_
