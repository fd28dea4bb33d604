#include "mshadow/dlpack.h"

#include <sstream>
#include <string>
#include <vector>

namespace mshadow {
namespace {

constexpr char kValidTypes[] =
    "float16, float32, float64, bfloat16, uint8, int8, int32, int64, bool";

// DLPack 0.8's type code for bool, one byte per value (Debian's header is DLPack 0.6, which
// has no code for it; NumPy 1.25 and PyTorch export bool arrays with it).
constexpr uint8_t kDLBoolCode = 6;

// Errors a host sees when it hands over a tensor: plain messages, without the file:line
// prefix CHECK adds.
template <typename... Parts>
[[noreturn]] void Fail(const Parts&... parts) {
  std::ostringstream os;
  (os << ... << parts);
  throw dmlc::Error(os.str());
}

std::string DLDataTypeName(DLDataType dtype) {
  std::ostringstream os;
  switch (dtype.code) {
    case kDLInt: os << "int"; break;
    case kDLUInt: os << "uint"; break;
    case kDLFloat: os << "float"; break;
    case kDLBfloat: os << "bfloat"; break;
    case kDLBoolCode: os << "bool"; break;
    case kDLComplex: os << "complex"; break;
    case kDLOpaqueHandle: os << "handle"; break;
    default: os << "code" << static_cast<int>(dtype.code) << "_"; break;
  }
  os << static_cast<int>(dtype.bits);
  if (dtype.lanes != 1) os << "x" << dtype.lanes;
  return os.str();
}

// What ToDLPack allocates, freed by the deleter.
struct ManagedContext {
  DLManagedTensor managed;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  std::shared_ptr<void> owner;
};

void DeleteManagedContext(DLManagedTensor* self) {
  delete static_cast<ManagedContext*>(self->manager_ctx);
}

}  // namespace

DLDataType ToDLDataType(int type_flag) {
  DLDataType dtype;
  dtype.lanes = 1;
  dtype.bits = static_cast<uint8_t>(TypeFlagSize(type_flag) * 8);  // throws for unknown
  switch (type_flag) {
    case kFloat32:
    case kFloat64:
    case kFloat16: dtype.code = kDLFloat; break;
    case kBfloat16: dtype.code = kDLBfloat; break;
    case kUint8: dtype.code = kDLUInt; break;
    case kBool: dtype.code = kDLBoolCode; break;
    default: dtype.code = kDLInt; break;  // kInt8, kInt32, kInt64
  }
  return dtype;
}

int FromDLDataType(DLDataType dtype) {
  if (dtype.lanes == 1) {
    switch (dtype.code) {
      case kDLFloat:
        if (dtype.bits == 16) return kFloat16;
        if (dtype.bits == 32) return kFloat32;
        if (dtype.bits == 64) return kFloat64;
        break;
      case kDLBfloat:
        if (dtype.bits == 16) return kBfloat16;
        break;
      case kDLUInt:
        if (dtype.bits == 8) return kUint8;
        break;
      case kDLBoolCode:
        if (dtype.bits == 8) return kBool;
        break;
      case kDLInt:
        if (dtype.bits == 8) return kInt8;
        if (dtype.bits == 32) return kInt32;
        if (dtype.bits == 64) return kInt64;
        break;
      default:
        break;
    }
  }
  Fail("DLPack data type ", DLDataTypeName(dtype), " is not supported; valid: ", kValidTypes,
       " (one lane)");
}

DLManagedTensor* ToDLPack(const TBlob& blob, int device_id, std::shared_ptr<void> owner) {
  CHECK(blob.dev_mask_ == cpu::kDevMask || blob.dev_mask_ == gpu::kDevMask)
      << "ToDLPack: " << DevMaskName(blob.dev_mask_) << "; valid: cpu, gpu";
  const DLDataType dtype = ToDLDataType(blob.type_flag_);
  auto context = std::make_unique<ManagedContext>();
  const int ndim = blob.ndim();
  context->shape.assign(blob.shape_.begin(), blob.shape_.end());
  // Row-major with rows of the lowest dimension `stride_` elements apart.
  context->strides.resize(ndim);
  for (int i = ndim - 1; i >= 0; --i) {
    if (i == ndim - 1) {
      context->strides[i] = 1;
    } else if (i == ndim - 2) {
      context->strides[i] = blob.stride_;
    } else {
      context->strides[i] = context->strides[i + 1] * context->shape[i + 1];
    }
  }
  context->owner = std::move(owner);
  DLTensor& tensor = context->managed.dl_tensor;
  tensor.data = blob.dptr_;
  tensor.device.device_type = blob.dev_mask_ == cpu::kDevMask ? kDLCPU : kDLCUDA;
  tensor.device.device_id = blob.dev_mask_ == cpu::kDevMask ? 0 : device_id;
  tensor.ndim = ndim;
  tensor.dtype = dtype;
  tensor.shape = context->shape.data();
  tensor.strides = context->strides.data();
  tensor.byte_offset = 0;
  context->managed.manager_ctx = context.get();
  context->managed.deleter = &DeleteManagedContext;
  return &context.release()->managed;
}

TBlob FromDLPack(const DLTensor& tensor) {
  const DLDeviceType device = tensor.device.device_type;
  if (device != kDLCPU && device != kDLCUDAHost && device != kDLCUDA) {
    Fail("DLPack device type ", static_cast<int>(device),
         " is not supported; valid: kDLCPU (1), kDLCUDA (2), kDLCUDAHost (3)");
  }
  const int dev_mask = device == kDLCUDA ? gpu::kDevMask : cpu::kDevMask;
  const int type_flag = FromDLDataType(tensor.dtype);
  if (tensor.ndim < 0) Fail("DLPack tensor with a negative rank ", tensor.ndim);
  if (tensor.ndim > 0 && tensor.shape == nullptr) Fail("DLPack tensor without a shape");
  const int ndim = tensor.ndim;
  TShape shape(tensor.shape, tensor.shape + ndim);
  for (int i = 0; i < ndim; ++i) {
    if (shape[i] < 0) Fail("DLPack tensor of shape ", shape, " has a negative extent");
  }
  char* data = static_cast<char*>(tensor.data) + tensor.byte_offset;
  TBlob blob(data, shape, dev_mask, type_flag);
  if (tensor.strides == nullptr || ndim == 0 || shape.Size() == 0) return blob;

  // Check that the strides are those of TBlob's model, and read the row pitch from them.
  // Dimensions of extent 1 may carry any stride: no step is ever taken along them.
  const int64_t* strides = tensor.strides;
  bool representable = shape[ndim - 1] == 1 || strides[ndim - 1] == 1;
  index_t pitch = shape[ndim - 1];
  if (ndim >= 2 && shape[ndim - 2] > 1) {
    pitch = strides[ndim - 2];
    representable = representable && pitch >= shape[ndim - 1];
  }
  index_t expected = pitch;
  for (int i = ndim - 3; i >= 0 && representable; --i) {
    // A product that overflows cannot be a stride of memory that exists.
    if (__builtin_mul_overflow(expected, shape[i + 1], &expected)) representable = false;
    if (shape[i] > 1 && strides[i] != expected) representable = false;
  }
  if (!representable) {
    std::ostringstream os;
    os << '(';
    for (int i = 0; i < ndim; ++i) os << (i ? "," : "") << strides[i];
    os << (ndim == 1 ? ",)" : ")");
    Fail("DLPack strides ", os.str(), " for shape ", shape,
         " cannot be represented by a TBlob, which holds row-major tensors whose "
         "lowest-dimension rows may be padded; make the tensor contiguous first");
  }
  blob.stride_ = pitch;
  return blob;
}

}  // namespace mshadow
