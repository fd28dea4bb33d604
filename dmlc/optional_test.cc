#include "dmlc/optional.h"

#include <sstream>
#include <string>
#include <utility>
#include <vector>

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

TEST(OptionalTest, BoolReadsWordsInAnyCaseAndStopsAtPunctuation) {
  optional<bool> flag;
  for (const auto& [text, expected] : std::vector<std::pair<std::string, bool>>{
           {"true", true}, {"True", true}, {" TRUE", true}, {"1", true},
           {"false", false}, {"False", false}, {"0", false}}) {
    std::istringstream is(text);
    flag.reset();
    is >> flag;
    EXPECT_FALSE(is.fail()) << text;
    ASSERT_TRUE(flag.has_value()) << text;
    EXPECT_EQ(*flag, expected) << text;
  }
  std::istringstream none("none)");
  none >> flag;
  EXPECT_FALSE(none.fail());
  EXPECT_FALSE(flag.has_value());
  EXPECT_EQ(none.peek(), ')') << "reading stops at the first non-alphanumeric character";

  flag = true;
  std::istringstream bad("yes");
  bad >> flag;
  EXPECT_TRUE(bad.fail());
  EXPECT_TRUE(*flag) << "a failed read keeps the old value";
}

TEST(OptionalTest, IntegersTakeOneLongSuffix) {
  optional<int64_t> value;
  std::istringstream is("7L,");
  is >> value;
  EXPECT_FALSE(is.fail());
  EXPECT_EQ(*value, 7);
  EXPECT_EQ(is.peek(), ',');
}

TEST(OptionalTest, InPlaceConstruction) {
  const optional<std::string> name(in_place, 3, 'x');
  ASSERT_TRUE(name.has_value());
  EXPECT_EQ(*name, "xxx");
  const optional<std::pair<int, int>> pair(dmlc::in_place, 1, 2);
  EXPECT_EQ(pair->second, 2);
}

TEST(OptionalTest, TypeNames) {
  EXPECT_STREQ(type_name<optional<int>>(), "int or None");
  EXPECT_STREQ(type_name<optional<float>>(), "float or None");
}

}  // namespace
}  // namespace dmlc
