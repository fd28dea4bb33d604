// dmlc/logging.h: CHECK/LOG macros whose failures throw dmlc::Error.
//
// A failed check never aborts the host process: it throws dmlc::Error with the file, line,
// the failed expression, both operand values (anything with operator<<, so mshadow Shapes
// print as tuples) and the user's message.
//
//   CHECK_EQ(a.shape_, b.shape_) << "operands of " << name << " differ";
//   // throws: "[file.cc:12] Check failed: a.shape_ == b.shape_ ((2,3) vs. (3,2)) operands ..."
//
//   try { LOG(FATAL) << "bad value " << v; } catch (const dmlc::Error& e) { ... }
#ifndef DMLC_LOGGING_H_
#define DMLC_LOGGING_H_

#include <memory>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "dmlc/base.h"

namespace dmlc {

// Every error this project reports. Hosts catch this one type.
struct Error : public std::runtime_error {
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

// Severity of a non-fatal log line; FATAL throws instead of printing.
enum class LogSeverity { kInfo, kWarning, kError, kFatal };

// Where non-fatal log lines go (default: std::cerr). Lets a host route or silence them.
using LogSink = void (*)(LogSeverity severity, const std::string& line);
void SetLogSink(LogSink sink);

// Builds one non-fatal log line and hands it to the sink when destroyed.
class LogMessage {
 public:
  LogMessage(const char* file, int line, LogSeverity severity);
  ~LogMessage();
  LogMessage(const LogMessage&) = delete;
  LogMessage& operator=(const LogMessage&) = delete;
  std::ostream& stream() { return stream_; }

 private:
  LogSeverity severity_;
  std::ostringstream stream_;
};

// Builds the message of a fatal error and throws it as dmlc::Error when destroyed.
class LogMessageFatal {
 public:
  LogMessageFatal(const char* file, int line);
  ~LogMessageFatal() noexcept(false);
  LogMessageFatal(const LogMessageFatal&) = delete;
  LogMessageFatal& operator=(const LogMessageFatal&) = delete;
  std::ostream& stream() { return stream_; }

 private:
  std::ostringstream stream_;
};

// Swallows a stream expression so that disabled DCHECKs still type-check their operands.
struct LogMessageVoidify {
  void operator&(std::ostream&) {}
};

namespace logging_internal {

// The "(x vs. y)" part of a failed binary check, built only on failure.
template <typename X, typename Y>
std::unique_ptr<std::string> FormatCheckValues(const X& x, const Y& y) {
  std::ostringstream os;
  os << " (" << x << " vs. " << y << ") ";
  return std::make_unique<std::string>(os.str());
}

// Comparisons compile without sign-compare noise: the values are printed on failure anyway.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-compare"
#define DMLC_DEFINE_CHECK_FUNC(name, op)                                          \
  template <typename X, typename Y>                                               \
  inline std::unique_ptr<std::string> LogCheck##name(const X& x, const Y& y) {    \
    if (x op y) return nullptr;                                                   \
    return FormatCheckValues(x, y);                                               \
  }
DMLC_DEFINE_CHECK_FUNC(_EQ, ==)
DMLC_DEFINE_CHECK_FUNC(_NE, !=)
DMLC_DEFINE_CHECK_FUNC(_LT, <)
DMLC_DEFINE_CHECK_FUNC(_LE, <=)
DMLC_DEFINE_CHECK_FUNC(_GT, >)
DMLC_DEFINE_CHECK_FUNC(_GE, >=)
#undef DMLC_DEFINE_CHECK_FUNC
#pragma GCC diagnostic pop

template <typename T>
T CheckNotNull(T ptr, const char* file, int line, const char* expr) {
  if (ptr == nullptr) {
    LogMessageFatal(file, line).stream() << "Check notnull: " << expr;
  }
  return ptr;
}

}  // namespace logging_internal
}  // namespace dmlc

#define CHECK(x) \
  if (x) {       \
  } else         \
    ::dmlc::LogMessageFatal(__FILE__, __LINE__).stream() << "Check failed: " #x ": "

#define DMLC_CHECK_BINARY(name, op, x, y)                                               \
  if (auto _dmlc_check_values = ::dmlc::logging_internal::LogCheck##name((x), (y))) \
    ::dmlc::LogMessageFatal(__FILE__, __LINE__).stream()                                \
        << "Check failed: " #x " " #op " " #y << *_dmlc_check_values

#define CHECK_EQ(x, y) DMLC_CHECK_BINARY(_EQ, ==, x, y)
#define CHECK_NE(x, y) DMLC_CHECK_BINARY(_NE, !=, x, y)
#define CHECK_LT(x, y) DMLC_CHECK_BINARY(_LT, <, x, y)
#define CHECK_LE(x, y) DMLC_CHECK_BINARY(_LE, <=, x, y)
#define CHECK_GT(x, y) DMLC_CHECK_BINARY(_GT, >, x, y)
#define CHECK_GE(x, y) DMLC_CHECK_BINARY(_GE, >=, x, y)
#define CHECK_NOTNULL(x) ::dmlc::logging_internal::CheckNotNull((x), __FILE__, __LINE__, #x)

#define DMLC_LOG_INFO ::dmlc::LogMessage(__FILE__, __LINE__, ::dmlc::LogSeverity::kInfo)
#define DMLC_LOG_WARNING ::dmlc::LogMessage(__FILE__, __LINE__, ::dmlc::LogSeverity::kWarning)
#define DMLC_LOG_ERROR ::dmlc::LogMessage(__FILE__, __LINE__, ::dmlc::LogSeverity::kError)
#define DMLC_LOG_FATAL ::dmlc::LogMessageFatal(__FILE__, __LINE__)
#define LOG(severity) DMLC_LOG_##severity.stream()
#define LOG_IF(severity, condition) \
  !(condition) ? (void)0 : ::dmlc::LogMessageVoidify() & LOG(severity)

// Debug-only checks: compiled (so operands stay valid code) but never run under NDEBUG.
#ifdef NDEBUG
#define DMLC_DEBUG_ONLY(check) \
  while (false) check
#else
#define DMLC_DEBUG_ONLY(check) check
#endif
#define DCHECK(x) DMLC_DEBUG_ONLY(CHECK(x))
#define DCHECK_EQ(x, y) DMLC_DEBUG_ONLY(CHECK_EQ(x, y))
#define DCHECK_NE(x, y) DMLC_DEBUG_ONLY(CHECK_NE(x, y))
#define DCHECK_LT(x, y) DMLC_DEBUG_ONLY(CHECK_LT(x, y))
#define DCHECK_LE(x, y) DMLC_DEBUG_ONLY(CHECK_LE(x, y))
#define DCHECK_GT(x, y) DMLC_DEBUG_ONLY(CHECK_GT(x, y))
#define DCHECK_GE(x, y) DMLC_DEBUG_ONLY(CHECK_GE(x, y))
#define DLOG(severity) DMLC_DEBUG_ONLY(LOG(severity))

#endif  // DMLC_LOGGING_H_
