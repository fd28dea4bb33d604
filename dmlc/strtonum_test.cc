#include "dmlc/strtonum.h"

#include <cmath>
#include <cstdint>
#include <limits>

#include "gtest/gtest.h"

namespace dmlc {
namespace {

template <typename T>
ParseStatus Parse(const char* text, T* out) {
  return ParseNumber(std::string_view(text), out);
}

TEST(ParseNumberTest, IntegersAcceptDecimalWithSignAndSpaces) {
  int v = 0;
  EXPECT_EQ(Parse("42", &v), ParseStatus::kOk);
  EXPECT_EQ(v, 42);
  EXPECT_EQ(Parse("  -17\t", &v), ParseStatus::kOk);
  EXPECT_EQ(v, -17);
  EXPECT_EQ(Parse("+8", &v), ParseStatus::kOk);
  EXPECT_EQ(v, 8);
  EXPECT_EQ(Parse("2147483647", &v), ParseStatus::kOk);
  EXPECT_EQ(v, std::numeric_limits<int>::max());
  EXPECT_EQ(Parse("-2147483648", &v), ParseStatus::kOk);
  EXPECT_EQ(v, std::numeric_limits<int>::min());
}

TEST(ParseNumberTest, IntegersRejectFractionsExponentsGarbageAndEmpty) {
  int v = 99;
  for (const char* bad : {"3.0", "3.5", "1e3", "12abc", "", "   ", "+", "-", "+-1", "+ 1",
                          "0x10", "1 2", "one"}) {
    EXPECT_EQ(Parse(bad, &v), ParseStatus::kInvalid) << "'" << bad << "'";
  }
  EXPECT_EQ(v, 99) << "a failed parse must not write the output";
}

TEST(ParseNumberTest, IntegersOutOfRange) {
  int v = 0;
  EXPECT_EQ(Parse("3000000000", &v), ParseStatus::kOutOfRange);
  EXPECT_EQ(Parse("-2147483649", &v), ParseStatus::kOutOfRange);
  uint32_t u = 0;
  EXPECT_EQ(Parse("-1", &u), ParseStatus::kOutOfRange);
  EXPECT_EQ(Parse("4294967296", &u), ParseStatus::kOutOfRange);
  EXPECT_EQ(Parse("4294967295", &u), ParseStatus::kOk);
  EXPECT_EQ(u, 4294967295u);
  uint64_t big = 0;
  EXPECT_EQ(Parse("18446744073709551615", &big), ParseStatus::kOk);
  EXPECT_EQ(big, std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(Parse("18446744073709551616", &big), ParseStatus::kOutOfRange);
  int8_t small = 0;
  EXPECT_EQ(Parse("128", &small), ParseStatus::kOutOfRange);
}

TEST(ParseNumberTest, FloatsAcceptNotationsSuffixAndSpecialValues) {
  float f = 0;
  EXPECT_EQ(Parse("1.2f", &f), ParseStatus::kOk);
  EXPECT_EQ(f, 1.2f);
  EXPECT_EQ(Parse(" 2.5F ", &f), ParseStatus::kOk);
  EXPECT_EQ(f, 2.5f);
  EXPECT_EQ(Parse("1.", &f), ParseStatus::kOk);
  EXPECT_EQ(f, 1.0f);
  EXPECT_EQ(Parse(".5", &f), ParseStatus::kOk);
  EXPECT_EQ(f, 0.5f);
  EXPECT_EQ(Parse("-3e2", &f), ParseStatus::kOk);
  EXPECT_EQ(f, -300.0f);
  EXPECT_EQ(Parse("+7", &f), ParseStatus::kOk);
  EXPECT_EQ(f, 7.0f);
  EXPECT_EQ(Parse("inf", &f), ParseStatus::kOk);
  EXPECT_TRUE(std::isinf(f) && f > 0);
  EXPECT_EQ(Parse("-inf", &f), ParseStatus::kOk);
  EXPECT_TRUE(std::isinf(f) && f < 0);
  EXPECT_EQ(Parse("Infinity", &f), ParseStatus::kOk);
  EXPECT_TRUE(std::isinf(f));
  EXPECT_EQ(Parse("nan", &f), ParseStatus::kOk);
  EXPECT_TRUE(std::isnan(f));
  EXPECT_EQ(Parse("NaN", &f), ParseStatus::kOk);
  EXPECT_TRUE(std::isnan(f));
}

TEST(ParseNumberTest, FloatsRejectGarbage) {
  double d = 5;
  for (const char* bad : {"", "1.2.3", "1e", "1,5", "inff", "nanf", "1.5ff", "f", "0x1p3",
                          "1.5 x", "--1"}) {
    EXPECT_EQ(Parse(bad, &d), ParseStatus::kInvalid) << "'" << bad << "'";
  }
  EXPECT_EQ(d, 5);
}

TEST(ParseNumberTest, FloatOverflowAndUnderflowAreRangeErrors) {
  float f = 0;
  EXPECT_EQ(Parse("1e100", &f), ParseStatus::kOutOfRange);
  EXPECT_EQ(Parse("-1e39", &f), ParseStatus::kOutOfRange);
  EXPECT_EQ(Parse("1e100f", &f), ParseStatus::kOutOfRange);
  double d = 0;
  EXPECT_EQ(Parse("1e400", &d), ParseStatus::kOutOfRange);
  EXPECT_EQ(Parse("1e100", &d), ParseStatus::kOk);
  EXPECT_EQ(d, 1e100);
  // Nonzero values below the smallest normal number, as dmlc-core's std::stof/stod reject.
  f = 1;
  EXPECT_EQ(Parse("1e-100", &f), ParseStatus::kOutOfRange);
  EXPECT_EQ(Parse("-1e-50", &f), ParseStatus::kOutOfRange);
  EXPECT_EQ(Parse("1e-40", &f), ParseStatus::kOutOfRange) << "a float denormal";
  EXPECT_EQ(f, 1.0f) << "a rejected value leaves the target unchanged";
  EXPECT_EQ(Parse("1e-500", &d), ParseStatus::kOutOfRange);
  EXPECT_EQ(Parse("1e-310", &d), ParseStatus::kOutOfRange) << "a double denormal";
  EXPECT_EQ(Parse("1e-40", &d), ParseStatus::kOk) << "normal as a double";
  // The smallest normal numbers and zero in any spelling are fine.
  EXPECT_EQ(Parse("1.17549435e-38", &f), ParseStatus::kOk);
  EXPECT_EQ(f, std::numeric_limits<float>::min());
  for (const char* zero : {"0", "-0.0", "0e-999", "0.000e5", "0x0"}) {
    const ParseStatus status = Parse(zero, &f);
    if (std::string_view(zero) == "0x0") {
      EXPECT_EQ(status, ParseStatus::kInvalid) << "hex is not accepted";
    } else {
      EXPECT_EQ(status, ParseStatus::kOk) << zero;
      EXPECT_EQ(f, 0.0f) << zero;
    }
  }
}

TEST(NumberToStringTest, ShortestExactRoundTrip) {
  EXPECT_EQ(NumberToString(0.1f), "0.1");
  EXPECT_EQ(NumberToString(0.1), "0.1");
  EXPECT_EQ(NumberToString(-42), "-42");
  EXPECT_EQ(NumberToString(std::numeric_limits<uint64_t>::max()), "18446744073709551615");
  for (float value : {0.1f, 1.0f / 3.0f, 3.4028235e38f, 1.17549435e-38f, -2.5e-10f}) {
    float back = 0;
    ASSERT_EQ(ParseNumber(NumberToString(value), &back), ParseStatus::kOk);
    EXPECT_EQ(back, value);
  }
}

TEST(TrimSpaceTest, StripsBothEnds) {
  EXPECT_EQ(TrimSpace("  a b \n"), "a b");
  EXPECT_EQ(TrimSpace(" \t "), "");
  EXPECT_EQ(TrimSpace("x"), "x");
}

}  // namespace
}  // namespace dmlc
