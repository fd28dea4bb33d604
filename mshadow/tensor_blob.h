// mshadow/tensor_blob.h: `TBlob`, a tensor of any rank, device and element type, the
// type-erased currency between a host framework and operators.
//
//   float data[24];
//   TBlob blob(data, TShape{2, 3, 4}, cpu::kDevMask);     // or TBlob(ptr, shape, mask, flag)
//   Tensor<cpu, 3, float> t = blob.get<cpu, 3, float>();   // the typed view
//   Tensor<cpu, 2, float> m = blob.FlatTo2D<cpu, float>(); // (6,4)
//   MSHADOW_TYPE_SWITCH(blob.type_flag_, DType, { Use(blob.FlatTo2D<cpu, DType>()); });
//
// A TBlob points at memory it does not own, like Tensor. Every mismatch between what is
// asked for and what the blob holds (device, element type, rank, element count, a reshape
// of padded rows) is a dmlc::Error that names both sides, types by name:
//   TBlob.get: data type mismatch: the blob holds float64, asked for float32
//
// Also here: TShape (mshadow/tshape.h) and its parameter field (mshadow/tshape_field.h).
// DLPack exchange is in mshadow/dlpack.h.
#ifndef MSHADOW_TENSOR_BLOB_H_
#define MSHADOW_TENSOR_BLOB_H_

#include <string>

#include "dmlc/logging.h"
#include "mshadow/base.h"
#include "mshadow/tensor_core.h"
#include "mshadow/tshape.h"
#include "mshadow/tshape_field.h"

namespace mshadow {

// "cpu", "gpu", or "unknown device (mask <m>)".
inline std::string DevMaskName(int dev_mask) {
  if (dev_mask == cpu::kDevMask) return "cpu";
  if (dev_mask == gpu::kDevMask) return "gpu";
  return "unknown device (mask " + std::to_string(dev_mask) + ")";
}

class TBlob {
 public:
  // Start of the data.
  void* dptr_ = nullptr;
  TShape shape_;
  // Elements between the starts of consecutive rows of the lowest dimension.
  index_t stride_ = 1;
  // cpu::kDevMask or gpu::kDevMask.
  int dev_mask_ = cpu::kDevMask;
  // A TypeFlag (kFloat32, ...).
  int type_flag_ = DataType<default_real_t>::kFlag;

  TBlob() = default;

  // Contiguous memory of a known element type.
  template <typename DType>
  TBlob(DType* dptr, const TShape& shape, int dev_mask)
      : TBlob(static_cast<void*>(dptr), shape, dev_mask, DataType<DType>::kFlag) {}

  // Contiguous memory of the element type `type_flag`; an unknown flag or device mask is a
  // dmlc::Error.
  TBlob(void* dptr, const TShape& shape, int dev_mask, int type_flag)
      : dptr_(dptr),
        shape_(shape),
        stride_(LowestDim(shape)),
        dev_mask_(dev_mask),
        type_flag_(type_flag) {
    CHECK(dev_mask == cpu::kDevMask || dev_mask == gpu::kDevMask)
        << "TBlob: " << DevMaskName(dev_mask) << "; valid: cpu (" << cpu::kDevMask
        << "), gpu (" << gpu::kDevMask << ")";
    TypeFlagSize(type_flag);  // throws, naming the valid types, for an unknown flag
  }

  template <typename Device, int dim, typename DType>
  TBlob(const Tensor<Device, dim, DType>& src) {  // NOLINT(runtime/explicit)
    *this = src;
  }

  template <typename Device, int dim, typename DType>
  TBlob& operator=(const Tensor<Device, dim, DType>& src) {
    dptr_ = src.dptr_;
    shape_ = src.shape_;
    stride_ = src.stride_;
    dev_mask_ = Device::kDevMask;
    type_flag_ = DataType<DType>::kFlag;
    return *this;
  }

  // Whether rows follow each other without padding (always true for rank 0).
  bool CheckContiguous() const { return stride_ == LowestDim(shape_); }

  int ndim() const { return static_cast<int>(shape_.ndim()); }
  // Extent of dimension `idx`.
  index_t size(index_t idx) const {
    CHECK(idx >= 0 && idx < shape_.ndim())
        << "TBlob.size(" << idx << ") of a blob of shape " << shape_;
    return shape_[idx];
  }
  // Number of elements.
  index_t Size() const { return shape_.Size(); }

  // The data as DType*, after checking the element type.
  template <typename DType>
  DType* dptr() const {
    CheckType<DType>("TBlob.dptr");
    return static_cast<DType*>(dptr_);
  }

  // All dimensions but the lowest folded into rows: (a, ..., y, z) -> (a*...*y, z).
  template <typename Device, typename DType>
  Tensor<Device, 2, DType> FlatTo2D(Stream<Device>* stream = nullptr) const {
    CheckDeviceAndType<Device, DType>("TBlob.FlatTo2D");
    return Tensor<Device, 2, DType>(static_cast<DType*>(dptr_), shape_.FlatTo2D(), stride_,
                                    stream);
  }

  // The typed view of rank `dim`; a different rank is a dmlc::Error.
  template <typename Device, int dim, typename DType>
  Tensor<Device, dim, DType> get(Stream<Device>* stream = nullptr) const {
    CheckDeviceAndType<Device, DType>("TBlob.get");
    CHECK_EQ(dim, shape_.ndim()) << "TBlob.get: rank mismatch: the blob has shape " << shape_
                                 << ", asked for a " << dim << "-d tensor";
    return Tensor<Device, dim, DType>(static_cast<DType*>(dptr_), shape_.get<dim>(), stride_,
                                      stream);
  }

  // A view of the same elements in another shape; needs contiguous rows and the same
  // number of elements.
  template <typename Device, int dim, typename DType>
  Tensor<Device, dim, DType> get_with_shape(const Shape<dim>& shape,
                                            Stream<Device>* stream = nullptr) const {
    CheckDeviceAndType<Device, DType>("TBlob.get_with_shape");
    CHECK(CheckContiguous()) << "TBlob.get_with_shape: the blob of shape " << shape_
                             << " has padded rows (stride " << stride_
                             << "); only contiguous blobs can be reshaped to " << shape;
    CHECK_EQ(shape_.Size(), shape.Size())
        << "TBlob.get_with_shape: new and old shape do not match total elements: " << shape_
        << " vs. " << shape;
    return Tensor<Device, dim, DType>(static_cast<DType*>(dptr_), shape,
                                      dim > 0 ? shape[dim - 1] : 1, stream);
  }

  // (before axis, axis, after axis) as a 3-d view.
  template <typename Device, typename DType>
  Tensor<Device, 3, DType> FlatTo3D(int axis, Stream<Device>* stream = nullptr) const {
    return get_with_shape<Device, 3, DType>(shape_.FlatTo3D(axis), stream);
  }
  // (before axis_begin, axis_begin..axis_end, after axis_end) as a 3-d view.
  template <typename Device, typename DType>
  Tensor<Device, 3, DType> FlatTo3D(int axis_begin, int axis_end,
                                    Stream<Device>* stream = nullptr) const {
    return get_with_shape<Device, 3, DType>(shape_.FlatTo3D(axis_begin, axis_end), stream);
  }

 private:
  static index_t LowestDim(const TShape& shape) {
    return shape.ndim() > 0 ? shape[shape.ndim() - 1] : 1;
  }

  template <typename DType>
  void CheckType(const char* where) const {
    CHECK(type_flag_ == DataType<DType>::kFlag)
        << where << ": data type mismatch: the blob holds " << TypeFlagName(type_flag_)
        << ", asked for " << TypeFlagName(DataType<DType>::kFlag);
  }

  template <typename Device, typename DType>
  void CheckDeviceAndType(const char* where) const {
    CHECK(dev_mask_ == Device::kDevMask)
        << where << ": device mismatch: the blob is on " << DevMaskName(dev_mask_)
        << ", asked for " << DevMaskName(Device::kDevMask);
    CheckType<DType>(where);
  }
};

}  // namespace mshadow

#endif  // MSHADOW_TENSOR_BLOB_H_
