#include "mshadow/type_flag.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <typeinfo>

namespace mshadow {
namespace {

using ::testing::HasSubstr;

TEST(TypeFlagTest, NumberingMatchesMshadow) {
  EXPECT_EQ(kFloat32, 0);
  EXPECT_EQ(kFloat64, 1);
  EXPECT_EQ(kFloat16, 2);
  EXPECT_EQ(kUint8, 3);
  EXPECT_EQ(kInt32, 4);
  EXPECT_EQ(kInt8, 5);
  EXPECT_EQ(kInt64, 6);
  EXPECT_EQ(kBool, 7);
  EXPECT_EQ(kBfloat16, 12);
  EXPECT_EQ(DataType<float>::kFlag, kFloat32);
  EXPECT_EQ(DataType<double>::kFlag, kFloat64);
  EXPECT_EQ(DataType<half::half_t>::kFlag, kFloat16);
  EXPECT_EQ(DataType<uint8_t>::kFlag, kUint8);
  EXPECT_EQ(DataType<int32_t>::kFlag, kInt32);
  EXPECT_EQ(DataType<int8_t>::kFlag, kInt8);
  EXPECT_EQ(DataType<int64_t>::kFlag, kInt64);
  EXPECT_EQ(DataType<bool>::kFlag, kBool);
  EXPECT_EQ(DataType<bfloat::bf16_t>::kFlag, kBfloat16);
  const int& by_reference = DataType<float>::kFlag;  // constexpr: no ODR link error
  EXPECT_EQ(by_reference, 0);
}

TEST(TypeFlagTest, NamesAndSizes) {
  EXPECT_EQ(TypeFlagName(kFloat32), "float32");
  EXPECT_EQ(TypeFlagName(kInt64), "int64");
  EXPECT_EQ(TypeFlagName(kBool), "bool");
  EXPECT_EQ(TypeFlagName(kBfloat16), "bfloat16");
  EXPECT_EQ(TypeFlagName(42), "unknown(42)");
  EXPECT_EQ(TypeFlagSize(kBool), 1);
  EXPECT_EQ(TypeFlagSize(kBfloat16), 2);
  EXPECT_EQ(TypeFlagSize(kFloat16), 2);
  EXPECT_EQ(TypeFlagSize(kFloat64), 8);
  EXPECT_THROW(TypeFlagSize(-1), dmlc::Error);
}

// Returns sizeof(DType) and typeid name chosen by MSHADOW_TYPE_SWITCH for the flag.
std::string SwitchedTypeName(int flag) {
  std::string name;
  MSHADOW_TYPE_SWITCH(flag, DType, { name = typeid(DType).name(); });
  return name;
}

TEST(TypeSwitchTest, EveryFlagSelectsItsType) {
  EXPECT_EQ(SwitchedTypeName(kFloat32), typeid(float).name());
  EXPECT_EQ(SwitchedTypeName(kFloat64), typeid(double).name());
  EXPECT_EQ(SwitchedTypeName(kFloat16), typeid(half::half_t).name());
  EXPECT_EQ(SwitchedTypeName(kUint8), typeid(uint8_t).name());
  EXPECT_EQ(SwitchedTypeName(kInt8), typeid(int8_t).name());
  EXPECT_EQ(SwitchedTypeName(kInt32), typeid(int32_t).name());
  EXPECT_EQ(SwitchedTypeName(kInt64), typeid(int64_t).name());
}

TEST(TypeSwitchTest, ExtendedSwitchAddsBoolAndBfloat16) {
  std::string name;
  MSHADOW_TYPE_SWITCH_EXT_WITH_BOOL(kBool, DType, { name = typeid(DType).name(); });
  EXPECT_EQ(name, typeid(bool).name());
  MSHADOW_TYPE_SWITCH_EXT_WITH_BOOL(kBfloat16, DType, { name = typeid(DType).name(); });
  EXPECT_EQ(name, typeid(bfloat::bf16_t).name());
  MSHADOW_TYPE_SWITCH_EXT_WITH_BOOL(kInt8, DType, { name = typeid(DType).name(); });
  EXPECT_EQ(name, typeid(int8_t).name());
  // The operators' switch names the seven types it covers.
  try {
    SwitchedTypeName(kBool);
    FAIL() << "expected dmlc::Error";
  } catch (const dmlc::Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("data type bool is not supported here"));
  }
}

TEST(TypeSwitchTest, UnknownFlagIsAnErrorListingValidTypes) {
  try {
    SwitchedTypeName(17);
    FAIL() << "expected dmlc::Error";
  } catch (const dmlc::Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("data type unknown(17) is not supported"));
    EXPECT_THAT(e.what(), HasSubstr("float32, float64, float16, uint8, int8, int32, int64"));
  }
}

TEST(TypeSwitchTest, RestrictedSwitchesRejectOtherTypes) {
  int bytes = 0;
  MSHADOW_SGL_DBL_TYPE_SWITCH(kFloat64, DType, { bytes = sizeof(DType); });
  EXPECT_EQ(bytes, 8);
  MSHADOW_REAL_TYPE_SWITCH(kFloat16, DType, { bytes = sizeof(DType); });
  EXPECT_EQ(bytes, 2);
  MSHADOW_IDX_TYPE_SWITCH(kInt8, DType, { bytes = sizeof(DType); });
  EXPECT_EQ(bytes, 1);
  try {
    MSHADOW_SGL_DBL_TYPE_SWITCH(kInt32, DType, { bytes = sizeof(DType); });
    FAIL() << "expected dmlc::Error";
  } catch (const dmlc::Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("data type int32 is not supported here; valid: float32, float64"));
  }
  EXPECT_THROW(MSHADOW_REAL_TYPE_SWITCH(kUint8, DType, { bytes = sizeof(DType); }), dmlc::Error);
  EXPECT_THROW(MSHADOW_IDX_TYPE_SWITCH(kFloat32, DType, { bytes = sizeof(DType); }), dmlc::Error);
}

}  // namespace
}  // namespace mshadow
