// ops/testing/op_cases.h: the case table (ops/testing/op_cases.txt), a valid call of every
// registered forward operator, as OpCases.
//
//   for (const OpCase& c : LoadOpCases("ops/testing/op_cases.txt")) ...
#ifndef OPS_TESTING_OP_CASES_H_
#define OPS_TESTING_OP_CASES_H_

#include <istream>
#include <string>
#include <vector>

#include "ops/testing/op_test_util.h"

namespace ops {
namespace testing {

// One case per non-comment line; a malformed line is a dmlc::Error naming its number.
std::vector<OpCase> ParseOpCases(std::istream& in);
std::vector<OpCase> LoadOpCases(const std::string& path);

// "FullyConnected (4,6) (5,6) (5) num_hidden=5", for test messages.
std::string CaseName(const OpCase& c);

}  // namespace testing
}  // namespace ops

#endif  // OPS_TESTING_OP_CASES_H_
