#include "dmlc/logging.h"

#include <atomic>
#include <cstring>
#include <ctime>
#include <iostream>

namespace dmlc {
namespace {

void StderrSink(LogSeverity, const std::string& line) { std::cerr << line << std::flush; }

std::atomic<LogSink> g_sink{&StderrSink};

// Only the file's base name: build paths are noise in a message.
const char* BaseName(const char* file) {
  const char* slash = std::strrchr(file, '/');
  return slash ? slash + 1 : file;
}

void WritePrefix(std::ostream& os, const char* file, int line) {
  std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char clock[16];
  std::strftime(clock, sizeof(clock), "%H:%M:%S", &local);
  os << '[' << clock << "] " << BaseName(file) << ':' << line << ": ";
}

}  // namespace

void SetLogSink(LogSink sink) { g_sink.store(sink ? sink : &StderrSink); }

LogMessage::LogMessage(const char* file, int line, LogSeverity severity) : severity_(severity) {
  WritePrefix(stream_, file, line);
}

LogMessage::~LogMessage() {
  stream_ << '\n';
  g_sink.load()(severity_, stream_.str());
}

LogMessageFatal::LogMessageFatal(const char* file, int line) {
  stream_ << '[' << BaseName(file) << ':' << line << "] ";
}

LogMessageFatal::~LogMessageFatal() noexcept(false) { throw Error(stream_.str()); }

}  // namespace dmlc
