// khatri_rao: MXNet 1.9.1's printed product, a loop over every output element as the
// reference for one to three inputs, write modes, gradients (which MXNet does not have), and
// the shapes it refuses.
#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/khatri_rao-inl.h"
#include "ops/testing/op_test_util.h"

namespace ops {
namespace {

using ::testing::HasSubstr;
using testing::InputSpec;
using testing::OpCase;
using testing::Values;

TEST(KhatriRaoTest, MxnetsValues) {
  const OpCase c{"khatri_rao",
                 {{"num_args", "2"}},
                 {InputSpec::WithValues(TShape{2, 2}, {1, -1, 2, -3}),
                  InputSpec::WithValues(TShape{3, 2}, {1, 4, 2, 5, 3, 6})}};
  EXPECT_EQ(
      testing::ToValues(testing::Forward(c, testing::MakeInputs(c, mshadow::kFloat32))[0].blob()),
      (Values{1, -4, 2, -5, 3, -6, 2, -12, 4, -15, 6, -18}));
}

TEST(KhatriRaoTest, ProductsAgainstLoopsWithGradients) {
  const int columns = 3;
  for (const std::vector<int>& rows : std::vector<std::vector<int>>{{4}, {2, 3}, {3, 1, 2}}) {
    SCOPED_TRACE(std::to_string(rows.size()) + " inputs");
    OpCase c{"khatri_rao", {{"num_args", std::to_string(rows.size())}}, {}};
    int total = 1;
    for (const int m : rows) {
      c.inputs.push_back(InputSpec{TShape{m, columns}});
      total *= m;
    }
    testing::CheckForward(c, [&](const std::vector<Values>& in) {
      Values out;
      for (int r = 0; r < total; ++r) {
        for (int n = 0; n < columns; ++n) {
          double p = 1;
          int rest = r;
          for (int j = static_cast<int>(rows.size()) - 1; j >= 0; --j) {
            p *= in[j][(rest % rows[j]) * columns + n];
            rest /= rows[j];
          }
          out.push_back(p);
        }
      }
      return std::vector<Values>{out};
    });
    testing::CheckWriteModes(c);
    testing::CheckGradient(c);
  }
}

// The GPU's forward item (an output element a thread) runs here on the CPU through
// Kernel<OP, cpu>, against the CPU's row items.
TEST(KhatriRaoTest, TheGpuItemAgreesWithTheCpuPath) {
  const OpCase c{"khatri_rao",
                 {{"num_args", "3"}},
                 {InputSpec{TShape{3, 4}}, InputSpec{TShape{2, 4}}, InputSpec{TShape{5, 4}}}};
  const std::vector<CpuTensor> in = testing::MakeInputs(c, mshadow::kFloat64);
  const Values y = testing::ToValues(testing::Forward(c, in)[0].blob());
  std::vector<TBlob> blobs;
  for (const CpuTensor& t : in) blobs.push_back(t.blob());
  Values gpu_y(y.size());
  Kernel<khatri_rao::product_element<kWriteTo>, cpu>::Launch(
      nullptr, static_cast<index_t>(y.size()), gpu_y.data(), khatri_rao::FactorsOf<double>(blobs),
      index_t{4});
  testing::ExpectClose(y, gpu_y, 1e-14, 1e-14, "forward");
}

TEST(KhatriRaoTest, BadShapesAreNamed) {
  EXPECT_THAT(testing::ErrorOf([] {
                testing::InferOutputShapes({"khatri_rao",
                                            {{"num_args", "2"}},
                                            {InputSpec{TShape{2, 3}}, InputSpec{TShape{2, 2}}}});
              }),
              HasSubstr("input arg1 has shape (2,2); every input must be a matrix with arg0's 3 "
                        "columns"));
  EXPECT_THAT(testing::ErrorOf([] {
                testing::InferOutputShapes(
                    {"khatri_rao", {{"num_args", "1"}}, {InputSpec{TShape{2, 3, 4}}}});
              }),
              HasSubstr("input arg0 has shape (2,3,4)"));
  EXPECT_THAT(testing::ErrorOf([] {
                ParseAttrs(Op::Get("khatri_rao"), {{"num_args", "17"}});
              }),
              HasSubstr("num_args"));
}

}  // namespace
}  // namespace ops
