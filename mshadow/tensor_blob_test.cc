#include "mshadow/tensor_blob.h"

#include <map>
#include <string>
#include <vector>

#include "dmlc/testing/error_message.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mshadow {
namespace {

using ::testing::HasSubstr;

using ::dmlc::testing::ErrorMessageOf;

TEST(TBlobTest, DefaultIsAnEmptyFloatCpuBlob) {
  TBlob blob;
  EXPECT_EQ(blob.dptr_, nullptr);
  EXPECT_EQ(blob.ndim(), 0);
  EXPECT_EQ(blob.dev_mask_, cpu::kDevMask);
  EXPECT_EQ(blob.type_flag_, kFloat32);
  EXPECT_TRUE(blob.CheckContiguous());
}

TEST(TBlobTest, TypedAndFlaggedConstructors) {
  double data[24];
  TBlob typed(data, TShape{2, 3, 4}, cpu::kDevMask);
  EXPECT_EQ(typed.type_flag_, kFloat64);
  EXPECT_EQ(typed.stride_, 4);
  EXPECT_EQ(typed.Size(), 24);
  EXPECT_EQ(typed.size(1), 3);
  EXPECT_THROW(typed.size(3), dmlc::Error);
  TBlob flagged(static_cast<void*>(data), TShape{6, 4}, cpu::kDevMask, kFloat64);
  EXPECT_EQ((flagged.get<cpu, 2, double>().dptr_), data);
  TBlob scalar(data, TShape(), cpu::kDevMask);
  EXPECT_EQ(scalar.stride_, 1) << "rank 0 has no lowest dimension to read";
  EXPECT_THAT(ErrorMessageOf([&] { TBlob(static_cast<void*>(data), TShape{2}, cpu::kDevMask, 42); }),
              HasSubstr("unknown type flag 42; valid: float32, float64"));
  EXPECT_THAT(ErrorMessageOf([&] { TBlob(static_cast<void*>(data), TShape{2}, 4, kFloat32); }),
              HasSubstr("TBlob: unknown device (mask 4); valid: cpu (1), gpu (2)"));
}

TEST(TBlobTest, FromTensorKeepsPointerShapeStrideDeviceAndType) {
  float data[12];
  Tensor<cpu, 2, float> padded(data, Shape2(3, 3), 4, nullptr);
  TBlob blob(padded);
  EXPECT_EQ(blob.dptr_, data);
  EXPECT_EQ(blob.shape_, Shape2(3, 3));
  EXPECT_EQ(blob.stride_, 4);
  EXPECT_FALSE(blob.CheckContiguous());
  EXPECT_EQ(blob.dev_mask_, cpu::kDevMask);
  EXPECT_EQ(blob.type_flag_, kFloat32);
  int32_t ints[6];
  blob = Tensor<cpu, 1, int32_t>(ints, Shape1(6));
  EXPECT_EQ(blob.type_flag_, kInt32);
  EXPECT_TRUE(blob.CheckContiguous());
  Tensor<gpu, 2, float> device_tensor(nullptr, Shape2(2, 2));
  blob = device_tensor;
  EXPECT_EQ(blob.dev_mask_, gpu::kDevMask);
}

TEST(TBlobTest, GetAndFlattenViewTheSameMemory) {
  std::vector<float> data(24);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<float>(i);
  TBlob blob(data.data(), TShape{2, 3, 4}, cpu::kDevMask);
  Tensor<cpu, 3, float> t = blob.get<cpu, 3, float>();
  EXPECT_EQ(t[1][2][3], 23.0f);
  Tensor<cpu, 2, float> m = blob.FlatTo2D<cpu, float>();
  EXPECT_EQ(m.shape_, Shape2(6, 4));
  EXPECT_EQ(m[5][3], 23.0f);
  Tensor<cpu, 2, float> r = blob.get_with_shape<cpu, 2, float>(Shape2(4, 6));
  EXPECT_EQ(r.stride_, 6);
  EXPECT_EQ(r[3][5], 23.0f);
  Tensor<cpu, 3, float> f = blob.FlatTo3D<cpu, float>(1);
  EXPECT_EQ(f.shape_, Shape3(2, 3, 4));
  Tensor<cpu, 3, float> g = blob.FlatTo3D<cpu, float>(0, 1);
  EXPECT_EQ(g.shape_, Shape3(1, 6, 4));
  EXPECT_EQ(blob.dptr<float>(), data.data());
}

TEST(TBlobTest, EveryMismatchIsANamedError) {
  std::vector<double> data(24);
  TBlob blob(data.data(), TShape{2, 3, 4}, cpu::kDevMask);
  EXPECT_THAT(ErrorMessageOf([&] { blob.get<cpu, 3, float>(); }),
              HasSubstr("TBlob.get: data type mismatch: the blob holds float64, asked for "
                        "float32"));
  EXPECT_THAT(ErrorMessageOf([&] { blob.get<gpu, 3, double>(); }),
              HasSubstr("TBlob.get: device mismatch: the blob is on cpu, asked for gpu"));
  EXPECT_THAT(ErrorMessageOf([&] { blob.get<cpu, 2, double>(); }),
              HasSubstr("TBlob.get: rank mismatch: the blob has shape (2,3,4), asked for a "
                        "2-d tensor"));
  EXPECT_THAT(ErrorMessageOf([&] { blob.FlatTo2D<cpu, int32_t>(); }),
              HasSubstr("TBlob.FlatTo2D: data type mismatch: the blob holds float64, asked "
                        "for int32"));
  EXPECT_THAT(ErrorMessageOf([&] { blob.get_with_shape<cpu, 2, double>(Shape2(5, 5)); }),
              HasSubstr("new and old shape do not match total elements: (2,3,4) vs. (5,5)"));
  EXPECT_THAT(ErrorMessageOf([&] { blob.dptr<float>(); }),
              HasSubstr("TBlob.dptr: data type mismatch: the blob holds float64, asked for "
                        "float32"));
  EXPECT_THAT(ErrorMessageOf([&] { blob.FlatTo3D<cpu, double>(3); }), HasSubstr("FlatTo3D(3, 3)"));

  TBlob padded(Tensor<cpu, 2, double>(data.data(), Shape2(4, 5), 6, nullptr));
  EXPECT_THAT(ErrorMessageOf([&] { padded.get_with_shape<cpu, 1, double>(Shape1(20)); }),
              HasSubstr("the blob of shape (4,5) has padded rows (stride 6); only contiguous "
                        "blobs can be reshaped to (20,)"));
  EXPECT_EQ((padded.get<cpu, 2, double>().stride_), 6) << "get keeps the padding";
  TBlob on_gpu(Tensor<gpu, 1, float>(nullptr, Shape1(3)));
  EXPECT_THAT(ErrorMessageOf([&] { on_gpu.FlatTo2D<cpu, float>(); }),
              HasSubstr("device mismatch: the blob is on gpu, asked for cpu"));
}

TEST(TBlobTest, TypeSwitchOverABlob) {
  std::vector<int64_t> data = {1, 2, 3};
  TBlob blob(data.data(), TShape{3}, cpu::kDevMask);
  int64_t sum = 0;
  MSHADOW_TYPE_SWITCH(blob.type_flag_, DType, {
    Tensor<cpu, 1, DType> t = blob.get<cpu, 1, DType>();
    for (index_t i = 0; i < t.size(0); ++i) sum += static_cast<int64_t>(t[i]);
  });
  EXPECT_EQ(sum, 6);
}

struct ConvParam : public dmlc::Parameter<ConvParam> {
  TShape kernel;
  TShape stride;
  TShape pad;
  DMLC_DECLARE_PARAMETER(ConvParam) {
    DMLC_DECLARE_FIELD(kernel).set_expect_ndim(2).enforce_nonzero().describe("Kernel size.");
    DMLC_DECLARE_FIELD(stride).set_default(TShape{1, 1});
    DMLC_DECLARE_FIELD(pad).set_default(TShape());
  }
};
DMLC_REGISTER_PARAMETER(ConvParam);

TEST(TShapeFieldTest, ParsesAndPrintsTuples) {
  ConvParam param;
  param.Init({{"kernel", "(3, 3)"}, {"stride", "[2,2]"}});
  EXPECT_EQ(param.kernel, (TShape{3, 3}));
  EXPECT_EQ(param.stride, (TShape{2, 2}));
  EXPECT_EQ(param.pad.ndim(), 0);
  const std::map<std::string, std::string> expected = {
      {"kernel", "(3,3)"}, {"stride", "(2,2)"}, {"pad", "()"}};
  EXPECT_EQ(param.__DICT__(), expected);
  ConvParam again;
  again.Init(param.__DICT__());
  EXPECT_EQ(again.__DICT__(), expected);
  const auto fields = ConvParam::__FIELDS__();
  EXPECT_EQ(fields[0].type_info_str, "Shape(tuple), required");
  EXPECT_EQ(fields[1].type_info_str, "Shape(tuple), optional, default='(1,1)'");
}

TEST(TShapeFieldTest, ErrorsNameFieldValueAndExpectation) {
  ConvParam param;
  auto message = [&](const std::string& kernel) {
    return ErrorMessageOf([&] { param.Init({{"kernel", kernel}}); });
  };
  EXPECT_EQ(message("(3,a)"),
            "Invalid Parameter format for kernel expect Shape(tuple) but value='(3,a)'");
  EXPECT_EQ(message("(3,3,3)"),
            "Invalid Parameter value for kernel: (3,3,3) has 3 dimensions, expected 2");
  EXPECT_EQ(message("(3,0)"),
            "Invalid Parameter value for kernel: (3,0) has a zero dimension at position 1; "
            "every dimension must be nonzero");
}

}  // namespace
}  // namespace mshadow
