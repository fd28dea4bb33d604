// _contrib_allclose: NumPy's rule in every type (NaNs, infinities of either sign, the
// tolerances' edges), a pair that is not close at every place (first, last, a tail past the
// SIMD lanes, another thread's block), write modes, and the errors for bad tolerances,
// mismatched inputs and the types it refuses.
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mshadow/parallel.h"
#include "ops/testing/op_test_util.h"

namespace ops {
namespace {

using ::testing::HasSubstr;
using testing::Values;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The flag for a and b of this type, written over `before` as req says.
int AllClose(const Values& a, const Values& b, int type,
             const std::map<std::string, std::string>& kwargs = {}, OpReqType req = kWriteTo,
             uint8_t before = 7) {
  const NodeAttrs attrs = ParseAttrs(Op::Get("_contrib_allclose"), kwargs);
  const CpuTensor x = testing::TensorOf(type, a), y = testing::TensorOf(type, b);
  CpuTensor flag(TShape{1}, mshadow::kUint8);
  *flag.data<uint8_t>() = before;
  Invoke<mshadow::cpu>(attrs, MakeCpuContext(attrs), {x.blob(), y.blob()}, {req}, {flag.blob()});
  return *flag.data<uint8_t>();
}

// Whether x is a float16 value (the cases whose values float16 rounds test nothing there).
bool InHalf(double x) {
  return std::isnan(x) || static_cast<double>(mshadow::half::half_t(static_cast<float>(x))) == x;
}

TEST(AllCloseTest, NumpysRule) {
  struct Case {
    double a, b;
    std::map<std::string, std::string> kwargs;
    int want;
  };
  // As numpy.allclose on float32 values gives them.
  const std::vector<Case> cases = {{100, 100.0005, {}, 1},
                                   {100, 100.002, {}, 0},
                                   {-100, -100.0005, {}, 1},
                                   {0, 1e-8, {}, 1},  // atol alone
                                   {0, 2e-8, {}, 0},
                                   {1, 1.5, {{"rtol", "0.5"}}, 1},  // rtol of |b|, not |a|
                                   {1.5, 1, {{"rtol", "0.4"}}, 0},
                                   {3, 4, {{"atol", "1"}}, 1},
                                   {2, 2, {{"rtol", "0"}, {"atol", "0"}}, 1},
                                   {kNaN, kNaN, {}, 1},
                                   {kNaN, kNaN, {{"equal_nan", "False"}}, 0},
                                   {kNaN, 1, {}, 0},
                                   {1, kNaN, {}, 0},
                                   {kInf, kInf, {}, 1},
                                   {-kInf, -kInf, {}, 1},
                                   {kInf, -kInf, {}, 0},  // MXNet 1.9.1: 1
                                   {1, kInf, {}, 0},      // MXNet 1.9.1: 1
                                   {kInf, 1, {}, 0},
                                   {1, kInf, {{"rtol", "0"}}, 0}};
  for (const int type : {mshadow::kFloat32, mshadow::kFloat64, mshadow::kFloat16}) {
    for (const Case& c : cases) {
      SCOPED_TRACE("type " + std::to_string(type) + ": " + std::to_string(c.a) + " " +
                   std::to_string(c.b));
      if (type == mshadow::kFloat16 && !(InHalf(c.a) && InHalf(c.b))) continue;
      EXPECT_EQ(AllClose({c.a}, {c.b}, type, c.kwargs), c.want);
      // The same pair among equal ones, where the CPU compares whole packets.
      Values a(37, 1.0), b(37, 1.0);
      a[20] = c.a;
      b[20] = c.b;
      EXPECT_EQ(AllClose(a, b, type, c.kwargs), c.want);
    }
  }
  // Integers compare exactly at the default tolerances, and within atol.
  for (const int type : {mshadow::kUint8, mshadow::kInt8, mshadow::kInt32, mshadow::kInt64}) {
    SCOPED_TRACE(type);
    EXPECT_EQ(AllClose({3, 5}, {3, 5}, type), 1);
    EXPECT_EQ(AllClose({3, 5}, {3, 6}, type), 0);
    EXPECT_EQ(AllClose({3, 5}, {4, 6}, type, {{"atol", "1"}}), 1);
  }
  // No overflow in a - b.
  EXPECT_EQ(AllClose({-2e9}, {2e9}, mshadow::kInt32, {{"atol", "1e6"}}), 0);
}

TEST(AllCloseTest, OnePairFarAtEveryPlace) {
  for (const int threads : {1, 2}) {
    mshadow::SetNumThreads(threads);
    // 70000 pairs: several of the check's blocks, and a tail past the SIMD lanes.
    for (const size_t n : {size_t{1}, size_t{13}, size_t{70000}}) {
      for (const int type : {mshadow::kFloat32, mshadow::kFloat64, mshadow::kInt32}) {
        SCOPED_TRACE("threads " + std::to_string(threads) + " n " + std::to_string(n) + " type " +
                     std::to_string(type));
        Values a(n);
        for (size_t i = 0; i < n; ++i) a[i] = static_cast<double>(i % 1000) - 500;
        EXPECT_EQ(AllClose(a, a, type), 1);
        for (const size_t at : {size_t{0}, n / 2, n - 1}) {
          Values b = a;
          b[at] += 1;
          EXPECT_EQ(AllClose(a, b, type), 0) << at;
        }
      }
    }
  }
  mshadow::SetNumThreads(1);
  EXPECT_EQ(AllClose({}, {}, mshadow::kFloat32), 1);  // no pair is far
}

TEST(AllCloseTest, WriteModes) {
  EXPECT_EQ(AllClose({1}, {2}, mshadow::kFloat32, {}, kNullOp, 7), 7);
  EXPECT_EQ(AllClose({1}, {1}, mshadow::kFloat32, {}, kWriteInplace, 7), 1);
  try {
    AllClose({1}, {1}, mshadow::kFloat32, {}, kAddTo, 7);
    ADD_FAILURE() << "kAddTo accepted";
  } catch (const dmlc::Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("_contrib_allclose writes a flag, it cannot add to it"));
  }
}

TEST(AllCloseTest, ShapesTypesAndErrors) {
  const testing::OpCase c{"_contrib_allclose", {}, {{TShape{2, 3}}, {TShape{2, 3}}}};
  EXPECT_EQ(testing::InferOutputShapes(c)[0], TShape{1});
  for (const std::string bad : {"-1", "nan", "inf"}) {
    for (const std::string name : {"rtol", "atol"}) {
      EXPECT_THAT(testing::ErrorOf([&] {
                    ParseAttrs(Op::Get("_contrib_allclose"), {{name, bad}});
                  }),
                  HasSubstr(name + " " + bad + " is not a tolerance; valid: a finite value >= 0"));
    }
  }
  const testing::OpCase mismatched{"_contrib_allclose", {}, {{TShape{2}}, {TShape{3}}}};
  EXPECT_THAT(testing::ErrorOf([&] { testing::InferOutputShapes(mismatched); }), HasSubstr("(3,)"));
  EXPECT_THAT(testing::ErrorOf([] {
                AllClose({1, 0}, {1, 0}, mshadow::kBool);
              }),
              HasSubstr("data type bool is not supported; valid: float32"));
}

}  // namespace
}  // namespace ops
