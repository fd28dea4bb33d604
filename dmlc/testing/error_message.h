// dmlc/testing/error_message.h: for tests that check what an error says.
//
//   EXPECT_EQ(dmlc::testing::ErrorMessageOf([&] { blob.get<cpu, 2, float>(); }), "...");
#ifndef DMLC_TESTING_ERROR_MESSAGE_H_
#define DMLC_TESTING_ERROR_MESSAGE_H_

#include <functional>
#include <string>

#include "dmlc/logging.h"
#include "gtest/gtest.h"

namespace dmlc {
namespace testing {

// The message of the dmlc::Error that `f` throws; "" and a test failure if it throws none.
inline std::string ErrorMessageOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no dmlc::Error was thrown";
  return "";
}

}  // namespace testing
}  // namespace dmlc

#endif  // DMLC_TESTING_ERROR_MESSAGE_H_
