// _linalg_gemm and _linalg_gemm2 against a direct sum over every matrix of the batch: every
// transpose, alpha and beta, a row axis other than -2 (the matrices' rows strided), C
// overwritten in place; write modes, numerical gradients, and the shapes refused.
#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/testing/op_test_util.h"

namespace ops {
namespace {

using ::testing::HasSubstr;
using testing::InputSpec;
using testing::OpCase;
using testing::Values;

// Element (outer, row, middle, column) of a shape seen around `axis` (see linalg_gemm-inl.h).
struct View {
  index_t outer, rows, middle, columns;
  View(const TShape& s, int axis)
      : outer(s.ProdShape(0, axis)),
        rows(s[axis]),
        middle(s.ProdShape(axis + 1, s.ndim() - 1)),
        columns(s[s.ndim() - 1]) {}
  index_t At(index_t o, index_t r, index_t m, index_t c) const {
    return ((o * rows + r) * middle + m) * columns + c;
  }
};

// alpha op(A) op(B) + beta C, one matrix per (outer, middle), written out element by element.
Values Gemm(const Values& a, const TShape& as, const Values& b, const TShape& bs, const Values* c,
            const TShape& cs, int axis, bool ta, bool tb, double alpha, double beta) {
  const View va(as, axis), vb(bs, axis), vc(cs, axis);
  Values out(cs.Size());
  for (index_t o = 0; o < vc.outer; ++o) {
    for (index_t m = 0; m < vc.middle; ++m) {
      for (index_t i = 0; i < vc.rows; ++i) {
        for (index_t j = 0; j < vc.columns; ++j) {
          double sum = 0;
          const index_t depth = ta ? va.rows : va.columns;
          for (index_t k = 0; k < depth; ++k) {
            sum += a[ta ? va.At(o, k, m, i) : va.At(o, i, m, k)] *
                   b[tb ? vb.At(o, j, m, k) : vb.At(o, k, m, j)];
          }
          const index_t at = vc.At(o, i, m, j);
          out[at] = alpha * sum + (c ? beta * (*c)[at] : 0.0);
        }
      }
    }
  }
  return out;
}

struct Shapes {
  TShape a, b, c;
  int axis;
};

// A (2,3,4,5)-style batches for every transpose, with the default axis and with axis 1.
std::vector<std::pair<Shapes, std::pair<bool, bool>>> Layouts() {
  std::vector<std::pair<Shapes, std::pair<bool, bool>>> layouts;
  for (const bool ta : {false, true}) {
    for (const bool tb : {false, true}) {
      // m = 4, k = 5, n = 3
      const TShape a = ta ? TShape{2, 3, 5, 4} : TShape{2, 3, 4, 5};
      const TShape b = tb ? TShape{2, 3, 3, 5} : TShape{2, 3, 5, 3};
      layouts.push_back({{a, b, TShape{2, 3, 4, 3}, -2}, {ta, tb}});
      // The same with the row axis first after the batch's leading axis: (2, rows, 3, cols).
      const TShape a1 = ta ? TShape{2, 5, 3, 4} : TShape{2, 4, 3, 5};
      const TShape b1 = tb ? TShape{2, 3, 3, 5} : TShape{2, 5, 3, 3};
      layouts.push_back({{a1, b1, TShape{2, 4, 3, 3}, 1}, {ta, tb}});
    }
  }
  return layouts;
}

std::string Flag(bool b) { return b ? "True" : "False"; }

TEST(LinalgGemmTest, EveryTransposeAndAxisAgainstTheSum) {
  for (const auto& [shapes, flags] : Layouts()) {
    const auto [ta, tb] = flags;
    SCOPED_TRACE(std::to_string(shapes.axis) + Flag(ta) + Flag(tb));
    const std::map<std::string, std::string> common = {{"transpose_a", Flag(ta)},
                                                       {"transpose_b", Flag(tb)},
                                                       {"alpha", "0.75"},
                                                       {"axis", std::to_string(shapes.axis)}};
    const OpCase gemm2{"_linalg_gemm2", common, {InputSpec(shapes.a), InputSpec(shapes.b)}};
    std::vector<CpuTensor> in = testing::MakeInputs(gemm2, mshadow::kFloat64);
    const Values a = testing::ToValues(in[0].blob()), b = testing::ToValues(in[1].blob());
    const int axis = shapes.axis < 0 ? shapes.axis + 4 : shapes.axis;
    testing::ExpectClose(Gemm(a, shapes.a, b, shapes.b, nullptr, shapes.c, axis, ta, tb, 0.75, 0),
                         testing::ToValues(testing::Forward(gemm2, in)[0].blob()), 1e-14, 1e-14,
                         "gemm2");
    std::map<std::string, std::string> with_beta = common;
    with_beta["beta"] = "-1.5";
    const OpCase gemm{
        "_linalg_gemm", with_beta, {InputSpec(shapes.a), InputSpec(shapes.b), InputSpec(shapes.c)}};
    in = testing::MakeInputs(gemm, mshadow::kFloat64);
    const Values c = testing::ToValues(in[2].blob());
    const Values expected =
        Gemm(testing::ToValues(in[0].blob()), shapes.a, testing::ToValues(in[1].blob()), shapes.b,
             &c, shapes.c, axis, ta, tb, 0.75, -1.5);
    testing::ExpectClose(expected, testing::ToValues(testing::Forward(gemm, in)[0].blob()), 1e-14,
                         1e-14, "gemm");
    // C overwritten in place (the operators' in-place option).
    const NodeAttrs attrs = ParseAttrs(Op::Get("_linalg_gemm"), with_beta);
    Invoke<mshadow::cpu>(attrs, OpContext(), Blobs(in), {kWriteInplace}, {in[2].blob()});
    testing::ExpectClose(expected, testing::ToValues(in[2].blob()), 1e-14, 1e-14, "in place");
  }
}

TEST(LinalgGemmTest, WriteModesAndGradients) {
  for (const auto& [shapes, flags] : Layouts()) {
    const std::map<std::string, std::string> kwargs = {{"transpose_a", Flag(flags.first)},
                                                       {"transpose_b", Flag(flags.second)},
                                                       {"alpha", "1.5"},
                                                       {"beta", "0.5"},
                                                       {"axis", std::to_string(shapes.axis)}};
    const OpCase gemm{
        "_linalg_gemm", kwargs, {InputSpec(shapes.a), InputSpec(shapes.b), InputSpec(shapes.c)}};
    std::map<std::string, std::string> no_beta = kwargs;
    no_beta.erase("beta");
    const OpCase gemm2{"_linalg_gemm2", no_beta, {InputSpec(shapes.a), InputSpec(shapes.b)}};
    for (const OpCase& c : {gemm, gemm2}) {
      SCOPED_TRACE(c.op + " axis " + std::to_string(shapes.axis));
      testing::CheckWriteModes(c);
      testing::CheckGradient(c);
    }
  }
}

TEST(LinalgGemmTest, MatricesAndAliases) {
  EXPECT_EQ(Op::Get("linalg_gemm2"), Op::Get("_linalg_gemm2"));
  EXPECT_EQ(Op::Get("linalg_gemm"), Op::Get("_linalg_gemm"));
  const OpCase plain{"linalg_gemm2", {}, {InputSpec(TShape{3, 4}), InputSpec(TShape{4, 2})}};
  EXPECT_EQ(testing::InferOutputShapes(plain)[0], (TShape{3, 2}));
}

TEST(LinalgGemmTest, BadShapesAndAxesAreNamed) {
  const auto shape_error = [](const TShape& a, const TShape& b,
                              const std::map<std::string, std::string>& kwargs) {
    return testing::ErrorOf([&] {
      testing::InferOutputShapes(OpCase{"_linalg_gemm2", kwargs, {InputSpec(a), InputSpec(b)}});
    });
  };
  EXPECT_THAT(shape_error(TShape{4}, TShape{4, 2}, {}), HasSubstr("(4,)"));
  EXPECT_THAT(shape_error(TShape{3, 4}, TShape{5, 2}, {}), HasSubstr("reduced extents differ"));
  EXPECT_THAT(shape_error(TShape{2, 3, 4}, TShape{3, 4, 2}, {}), HasSubstr("batch axes differ"));
  EXPECT_THAT(shape_error(TShape{3, 4}, TShape{4, 2}, {{"axis", "-1"}}), HasSubstr("axis -1"));
  EXPECT_THAT(shape_error(TShape{3, 4}, TShape{4, 2}, {{"axis", "2"}}), HasSubstr("2"));
  const std::string c_error = testing::ErrorOf([] {
    testing::InferOutputShapes(
        OpCase{"_linalg_gemm",
               {},
               {InputSpec(TShape{3, 4}), InputSpec(TShape{4, 2}), InputSpec(TShape{3, 3})}});
  });
  EXPECT_THAT(c_error, HasSubstr("(3,3)"));
}

}  // namespace
}  // namespace ops
