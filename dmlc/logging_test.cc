#include "dmlc/logging.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using ::testing::HasSubstr;

// Runs `fn`, expects dmlc::Error, returns its message.
template <typename Fn>
std::string ErrorMessageOf(Fn fn) {
  try {
    fn();
  } catch (const dmlc::Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected dmlc::Error";
  return "";
}

TEST(LoggingTest, ErrorIsARuntimeError) {
  EXPECT_THROW(LOG(FATAL) << "boom", std::runtime_error);
}

TEST(LoggingTest, CheckPassesSilently) {
  EXPECT_NO_THROW(CHECK(1 + 1 == 2) << "never printed");
  EXPECT_NO_THROW(CHECK_EQ(2, 2));
  EXPECT_NO_THROW(CHECK_LT(1, 2));
}

TEST(LoggingTest, CheckMessageHasFileLineExpressionAndUserText) {
  const int line = __LINE__ + 1;
  std::string msg = ErrorMessageOf([] { CHECK(2 < 1) << "user says " << 42; });
  EXPECT_THAT(msg, HasSubstr("logging_test.cc:" + std::to_string(line)));
  EXPECT_THAT(msg, HasSubstr("Check failed: 2 < 1"));
  EXPECT_THAT(msg, HasSubstr("user says 42"));
}

TEST(LoggingTest, BinaryChecksShowBothValues) {
  int a = 3, b = 4;
  EXPECT_THAT(ErrorMessageOf([&] { CHECK_EQ(a, b) << "ctx"; }),
              HasSubstr("Check failed: a == b (3 vs. 4) ctx"));
  EXPECT_THAT(ErrorMessageOf([&] { CHECK_NE(a, a); }), HasSubstr("a != a (3 vs. 3)"));
  EXPECT_THAT(ErrorMessageOf([&] { CHECK_LT(b, a); }), HasSubstr("b < a (4 vs. 3)"));
  EXPECT_THAT(ErrorMessageOf([&] { CHECK_LE(b, a); }), HasSubstr("b <= a (4 vs. 3)"));
  EXPECT_THAT(ErrorMessageOf([&] { CHECK_GT(a, b); }), HasSubstr("a > b (3 vs. 4)"));
  EXPECT_THAT(ErrorMessageOf([&] { CHECK_GE(a, b); }), HasSubstr("a >= b (3 vs. 4)"));
}

TEST(LoggingTest, OperandsEvaluatedOnce) {
  int calls = 0;
  auto next = [&] { return ++calls; };
  CHECK_EQ(next(), 1);
  EXPECT_EQ(calls, 1);
}

TEST(LoggingTest, StringValuesPrint) {
  std::string x = "abc";
  EXPECT_THAT(ErrorMessageOf([&] { CHECK_EQ(x, std::string("abd")); }),
              HasSubstr("(abc vs. abd)"));
}

TEST(LoggingTest, CheckNotNullReturnsPointerOrThrows) {
  int v = 5;
  int* p = &v;
  EXPECT_EQ(CHECK_NOTNULL(p), p);
  int* null = nullptr;
  EXPECT_THAT(ErrorMessageOf([&] { CHECK_NOTNULL(null); }), HasSubstr("Check notnull: null"));
}

TEST(LoggingTest, LogFatalThrowsWithMessage) {
  EXPECT_THAT(ErrorMessageOf([] { LOG(FATAL) << "bad value " << 7; }), HasSubstr("bad value 7"));
}

std::vector<std::string>* captured = nullptr;
void CaptureSink(dmlc::LogSeverity, const std::string& line) { captured->push_back(line); }

TEST(LoggingTest, NonFatalLogsGoToTheSinkAndDoNotThrow) {
  std::vector<std::string> lines;
  captured = &lines;
  dmlc::SetLogSink(&CaptureSink);
  LOG(INFO) << "hello " << 1;
  LOG(WARNING) << "careful";
  LOG(ERROR) << "bad";
  LOG_IF(INFO, false) << "skipped";
  LOG_IF(INFO, true) << "kept";
  dmlc::SetLogSink(nullptr);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_THAT(lines[0], HasSubstr("logging_test.cc:"));
  EXPECT_THAT(lines[0], HasSubstr("hello 1"));
  EXPECT_THAT(lines[3], HasSubstr("kept"));
}

TEST(LoggingTest, DcheckFollowsNdebug) {
  int evaluated = 0;
  auto fails = [&] {
    ++evaluated;
    return false;
  };
#ifdef NDEBUG
  EXPECT_NO_THROW(DCHECK(fails()));
  EXPECT_EQ(evaluated, 0);
#else
  EXPECT_THROW(DCHECK(fails()), dmlc::Error);
  EXPECT_EQ(evaluated, 1);
#endif
}

}  // namespace
