// float16 and bfloat16 on the CPU: every operator case whose type inference takes them,
// forward and backward against float64 from the same rounded inputs (the elementwise
// functors run in float through InComputeType); the matrix products, which the CPU's BLAS
// cannot compute in 16 bits (OPS_PRODUCT_TYPE_SWITCH), fail with an error saying so.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "ops/testing/op_test_util.h"

namespace ops {
namespace {

using testing::OpCase;

std::vector<CpuTensor> RunOnCpu(const NodeAttrs& attrs, const std::vector<TBlob>& inputs,
                                const std::vector<CpuTensor>& outputs) {
  Invoke<mshadow::cpu>(attrs, MakeCpuContext(attrs, /*is_train=*/true), inputs,
                       std::vector<OpReqType>(outputs.size(), kWriteTo), Blobs(outputs));
  return outputs;  // the tensors share their storage
}

TEST(SixteenBitOnTheCpu, ElementwiseOperatorsMatchFloat64AndProductsSayTheyCannot) {
  const std::set<std::string> products = {"FullyConnected", "dot", "batch_dot"};
  int compared = 0, refused = 0;
  for (const OpCase& c : testing::LoadOpCases("ops/testing/op_cases.txt")) {
    for (const int type_flag : {mshadow::kFloat16, mshadow::kBfloat16}) {
      SCOPED_TRACE(testing::CaseName(c) + " " + mshadow::TypeFlagName(type_flag));
      if (products.count(c.op) != 0) {
        const std::string error =
            testing::ErrorOf([&] { testing::CheckSixteenBit(c, type_flag, RunOnCpu); });
        EXPECT_NE(error.find("is not supported here; valid: float32, float64"), std::string::npos)
            << error;
        ++refused;
        continue;
      }
      compared += testing::CheckSixteenBit(c, type_flag, RunOnCpu);
    }
  }
  EXPECT_GT(compared, 40);
  EXPECT_GT(refused, 0);
}

}  // namespace
}  // namespace ops
