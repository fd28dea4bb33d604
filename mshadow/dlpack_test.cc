#include "mshadow/dlpack.h"

#include <memory>
#include <string>
#include <vector>

#include "dmlc/testing/error_message.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mshadow {
namespace {

using ::testing::HasSubstr;

using ::dmlc::testing::ErrorMessageOf;

// A managed tensor that calls its deleter when it goes out of scope.
using ManagedPtr = std::unique_ptr<DLManagedTensor, void (*)(DLManagedTensor*)>;
ManagedPtr Manage(DLManagedTensor* managed) {
  return ManagedPtr(managed, [](DLManagedTensor* m) { m->deleter(m); });
}

TEST(DLPackTest, DataTypesMapBothWays) {
  for (int flag :
       {kFloat32, kFloat64, kFloat16, kBfloat16, kUint8, kInt32, kInt8, kInt64, kBool}) {
    const DLDataType dtype = ToDLDataType(flag);
    EXPECT_EQ(dtype.lanes, 1);
    EXPECT_EQ(dtype.bits, TypeFlagSize(flag) * 8);
    EXPECT_EQ(FromDLDataType(dtype), flag) << TypeFlagName(flag);
  }
  EXPECT_EQ(ToDLDataType(kUint8).code, kDLUInt);
  EXPECT_EQ(ToDLDataType(kInt8).code, kDLInt);
  EXPECT_EQ(ToDLDataType(kFloat16).code, kDLFloat);
  EXPECT_EQ(ToDLDataType(kBfloat16).code, kDLBfloat);
  EXPECT_EQ(ToDLDataType(kBool).code, 6);  // DLPack 0.8's kDLBool
  EXPECT_THAT(ErrorMessageOf([] { FromDLDataType(DLDataType{kDLBfloat, 32, 1}); }),
              HasSubstr("DLPack data type bfloat32 is not supported; valid: float16, float32, "
                        "float64, bfloat16, uint8, int8, int32, int64, bool (one lane)"));
  EXPECT_THAT(ErrorMessageOf([] { FromDLDataType(DLDataType{kDLFloat, 32, 4}); }),
              HasSubstr("DLPack data type float32x4 is not supported"));
  EXPECT_THAT(ErrorMessageOf([] { FromDLDataType(DLDataType{kDLUInt, 16, 1}); }),
              HasSubstr("uint16 is not supported"));
  EXPECT_THAT(ErrorMessageOf([] { ToDLDataType(99); }), HasSubstr("unknown type flag 99"));
}

TEST(DLPackTest, ContiguousBlobRoundTrip) {
  std::vector<int32_t> data(24);
  TBlob blob(data.data(), TShape{2, 3, 4}, cpu::kDevMask);
  ManagedPtr managed = Manage(ToDLPack(blob));
  const DLTensor& t = managed->dl_tensor;
  EXPECT_EQ(t.data, data.data());
  EXPECT_EQ(t.device.device_type, kDLCPU);
  EXPECT_EQ(t.ndim, 3);
  EXPECT_EQ(std::vector<int64_t>(t.shape, t.shape + 3), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(std::vector<int64_t>(t.strides, t.strides + 3), (std::vector<int64_t>{12, 4, 1}));
  EXPECT_EQ(t.byte_offset, 0u);
  const TBlob back = FromDLPack(t);
  EXPECT_EQ(back.dptr_, blob.dptr_);
  EXPECT_EQ(back.shape_, blob.shape_);
  EXPECT_EQ(back.stride_, 4);
  EXPECT_EQ(back.type_flag_, kInt32);
  EXPECT_EQ(back.dev_mask_, cpu::kDevMask);
}

TEST(DLPackTest, PaddedRowsBecomeStridesAndComeBack) {
  std::vector<float> data(2 * 3 * 8);
  TBlob padded(Tensor<cpu, 3, float>(data.data(), Shape3(2, 3, 5), 8, nullptr));
  ManagedPtr managed = Manage(ToDLPack(padded));
  const DLTensor& t = managed->dl_tensor;
  EXPECT_EQ(std::vector<int64_t>(t.strides, t.strides + 3), (std::vector<int64_t>{24, 8, 1}));
  const TBlob back = FromDLPack(t);
  EXPECT_EQ(back.stride_, 8);
  EXPECT_EQ(back.shape_, (TShape{2, 3, 5}));
  EXPECT_FALSE(back.CheckContiguous());
}

TEST(DLPackTest, GpuBlobsCarryTheDeviceId) {
  TBlob on_gpu(Tensor<gpu, 2, float>(reinterpret_cast<float*>(0x1000), Shape2(2, 2)));
  ManagedPtr managed = Manage(ToDLPack(on_gpu, /*device_id=*/3));
  EXPECT_EQ(managed->dl_tensor.device.device_type, kDLCUDA);
  EXPECT_EQ(managed->dl_tensor.device.device_id, 3);
  EXPECT_EQ(FromDLPack(managed->dl_tensor).dev_mask_, gpu::kDevMask);
}

TEST(DLPackTest, DeleterReleasesTheOwner) {
  auto owner = std::make_shared<std::vector<double>>(6);
  TBlob blob(owner->data(), TShape{2, 3}, cpu::kDevMask);
  DLManagedTensor* managed = ToDLPack(blob, 0, owner);
  EXPECT_EQ(owner.use_count(), 2);
  managed->deleter(managed);
  EXPECT_EQ(owner.use_count(), 1);
}

TEST(DLPackTest, ForeignTensorsInAllAcceptedForms) {
  std::vector<double> data(12);
  int64_t shape[2] = {3, 4};
  DLTensor t{};
  t.data = data.data();
  t.device = {kDLCPU, 0};
  t.ndim = 2;
  t.dtype = {kDLFloat, 64, 1};
  t.shape = shape;
  t.strides = nullptr;  // compact row-major
  t.byte_offset = 2 * sizeof(double);
  TBlob blob = FromDLPack(t);
  EXPECT_EQ(blob.dptr_, data.data() + 2) << "byte_offset applied";
  EXPECT_TRUE(blob.CheckContiguous());

  int64_t unit_strides[2] = {99, 1};  // the stride of an extent-1 dimension is never used
  int64_t one_row[2] = {1, 4};
  t.shape = one_row;
  t.strides = unit_strides;
  EXPECT_EQ(FromDLPack(t).stride_, 4);

  t.device = {kDLCUDAHost, 0};
  EXPECT_EQ(FromDLPack(t).dev_mask_, cpu::kDevMask) << "pinned host memory is CPU memory";
}

TEST(DLPackTest, UnrepresentableInputsAreNamedErrors) {
  std::vector<float> data(12);
  int64_t shape[2] = {3, 4};
  int64_t transposed[2] = {1, 3};
  DLTensor t{};
  t.data = data.data();
  t.device = {kDLCPU, 0};
  t.ndim = 2;
  t.dtype = {kDLFloat, 32, 1};
  t.shape = shape;
  t.strides = transposed;
  EXPECT_THAT(ErrorMessageOf([&] { FromDLPack(t); }),
              HasSubstr("DLPack strides (1,3) for shape (3,4) cannot be represented by a "
                        "TBlob"));
  int64_t broadcast[2] = {0, 1};
  t.strides = broadcast;
  EXPECT_THAT(ErrorMessageOf([&] { FromDLPack(t); }), HasSubstr("strides (0,1)"));
  int64_t gappy3[3] = {2, 3, 4};
  int64_t gappy_strides[3] = {100, 4, 1};
  t.ndim = 3;
  t.shape = gappy3;
  t.strides = gappy_strides;
  EXPECT_THAT(ErrorMessageOf([&] { FromDLPack(t); }), HasSubstr("strides (100,4,1)"));
  t.ndim = 2;
  t.shape = shape;
  t.strides = nullptr;
  t.device = {kDLOpenCL, 0};
  EXPECT_THAT(ErrorMessageOf([&] { FromDLPack(t); }),
              HasSubstr("DLPack device type 4 is not supported; valid: kDLCPU (1), kDLCUDA (2), "
                        "kDLCUDAHost (3)"));
  t.device = {kDLCPU, 0};
  int64_t negative[2] = {3, -4};
  t.shape = negative;
  EXPECT_THAT(ErrorMessageOf([&] { FromDLPack(t); }), HasSubstr("has a negative extent"));
}

}  // namespace
}  // namespace mshadow
