#include "dmlc/optional.h"

#include <sstream>
#include <string>

#include "gtest/gtest.h"

namespace dmlc {
namespace {

TEST(OptionalTest, EmptyByDefaultAndAssignable) {
  optional<int> axis;
  EXPECT_FALSE(axis.has_value());
  axis = 3;
  ASSERT_TRUE(axis.has_value());
  EXPECT_EQ(axis.value(), 3);
  EXPECT_EQ(*axis, 3);
  EXPECT_TRUE(axis == 3);
  axis = nullopt;
  EXPECT_FALSE(axis.has_value());
  optional<std::string> name = std::string("relu");
  EXPECT_EQ(*name, "relu");
}

TEST(OptionalTest, PrintsNoneOrValue) {
  std::ostringstream os;
  os << optional<int>() << ' ' << optional<int>(-2) << ' ' << optional<double>(0.5);
  EXPECT_EQ(os.str(), "None -2 0.5");
}

TEST(OptionalTest, ReadsNoneOrValueAndFailsOnOtherWords) {
  optional<int> value = 5;
  std::istringstream none("None");
  none >> value;
  EXPECT_FALSE(none.fail());
  EXPECT_FALSE(value.has_value());

  std::istringstream number(" 12");
  number >> value;
  ASSERT_TRUE(value.has_value());
  EXPECT_EQ(*value, 12);

  std::istringstream word("Nothing");
  word >> value;
  EXPECT_TRUE(word.fail());
  EXPECT_EQ(*value, 12) << "a failed read keeps the old value";
}

TEST(OptionalTest, TypeNames) {
  EXPECT_STREQ(type_name<optional<int>>(), "int or None");
  EXPECT_STREQ(type_name<optional<float>>(), "float or None");
}

}  // namespace
}  // namespace dmlc
