// mshadow/dlpack.h: exchanging TBlobs with other frameworks (PyTorch, JAX, NumPy, TVM)
// through DLPack (https://dmlc.github.io/dlpack), zero-copy.
//
//   // Out: the consumer calls managed->deleter(managed) when it is done with the tensor.
//   DLManagedTensor* managed = mshadow::ToDLPack(blob, /*device_id=*/0, keep_alive);
//
//   // In: a view of the producer's memory; keep its DLManagedTensor alive while in use.
//   mshadow::TBlob view = mshadow::FromDLPack(managed->dl_tensor);
//
// Types: float16/32/64, uint8, int8/32/64, one lane. Devices: CPU and CUDA (CUDA host memory
// comes in as cpu). Strides: TBlob describes row-major tensors whose lowest-dimension rows
// may be padded; strides outside that (a transposed view, a broadcast stride of 0) are a
// dmlc::Error that says so, as are other types and devices.
#ifndef MSHADOW_DLPACK_H_
#define MSHADOW_DLPACK_H_

#include <dlpack/dlpack.h>

#include <memory>

#include "mshadow/tensor_blob.h"

namespace mshadow {

// The DLPack type of a TypeFlag; an unknown flag is a dmlc::Error.
DLDataType ToDLDataType(int type_flag);
// The TypeFlag of a DLPack type; one this library has no TypeFlag for is a dmlc::Error.
int FromDLDataType(DLDataType dtype);

// A DLManagedTensor viewing `blob`'s memory, with explicit strides. Its deleter frees what
// this function allocated and releases `owner`, which may hold the memory alive.
DLManagedTensor* ToDLPack(const TBlob& blob, int device_id = 0,
                          std::shared_ptr<void> owner = nullptr);

// A TBlob viewing `tensor`'s memory (byte_offset applied). The device id is not kept.
TBlob FromDLPack(const DLTensor& tensor);

}  // namespace mshadow

#endif  // MSHADOW_DLPACK_H_
