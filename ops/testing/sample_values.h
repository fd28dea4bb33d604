// ops/testing/sample_values.h: inputs and outputs as flat values, for operator tests that
// check MXNet's numbers by hand.
//
//   InputSpec::WithValues(TShape{2, 3}, Ramp(6))      // 0, 1, ..., 5
//   EXPECT_EQ(ForwardOf({"Crop", kwargs, {images}}), expected);
#ifndef OPS_TESTING_SAMPLE_VALUES_H_
#define OPS_TESTING_SAMPLE_VALUES_H_

#include <cstddef>

#include "ops/testing/op_cases.h"
#include "ops/testing/op_test_util.h"

namespace ops {
namespace testing {

// from, from + 1, ..., from + n - 1.
inline Values Ramp(size_t n, double from = 0) {
  Values v(n);
  for (size_t i = 0; i < n; ++i) v[i] = from + static_cast<double>(i);
  return v;
}

// The first output of case c's float32 forward on its inputs.
inline Values ForwardOf(const OpCase& c) {
  return ToValues(Forward(c, MakeInputs(c, mshadow::kFloat32))[0].blob());
}

}  // namespace testing
}  // namespace ops

#endif  // OPS_TESTING_SAMPLE_VALUES_H_
