// small_lu::Factor against LAPACK's getrf (OpenBLAS's) on the same matrices: the same pivots
// and info, factors equal to rounding, for every order up to kMaxOrder, singular matrices
// included.
#include "ops/small_lu.h"

#include <cmath>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "gtest/gtest.h"
#include "ops/linalg_lapack.h"

namespace ops {
namespace {

template <typename DType>
void ExpectAsLapack(index_t n, const std::vector<DType>& matrix, const std::string& what) {
  SCOPED_TRACE(what + ", order " + std::to_string(n));
  const index_t ld = n + 3;  // a leading dimension past the order
  std::vector<DType> ours(ld * n, DType(-7)), lapack(ld * n, DType(-7));
  for (index_t j = 0; j < n; ++j) {
    for (index_t i = 0; i < n; ++i) ours[j * ld + i] = lapack[j * ld + i] = matrix[j * n + i];
  }
  std::vector<int> our_pivots(n), lapack_pivots(n);
  const int our_info = small_lu::Factor(n, ours.data(), ld, our_pivots.data());
  const int order = static_cast<int>(n), lda = static_cast<int>(ld);
  int lapack_info = 0;
  linalg::cpu_lapack::Functions<DType>::getrf(&order, &order, lapack.data(), &lda,
                                              lapack_pivots.data(), &lapack_info);
  EXPECT_EQ(our_info, lapack_info);
  EXPECT_EQ(our_pivots, lapack_pivots);
  const double tolerance = std::is_same_v<DType, float> ? 2e-4 : 1e-11;
  for (index_t j = 0; j < n; ++j) {
    for (index_t i = 0; i < ld; ++i) {
      const DType want = lapack[j * ld + i], got = ours[j * ld + i];
      if (i >= n) {
        ASSERT_EQ(got, DType(-7)) << "written past the order at (" << i << ", " << j << ")";
      } else {
        ASSERT_NEAR(want, got, tolerance * (1 + std::fabs(want))) << "(" << i << ", " << j << ")";
      }
    }
  }
}

template <typename DType>
void CheckEveryOrder() {
  std::mt19937 gen(11);
  std::uniform_real_distribution<double> value(-1, 1);
  for (index_t n = 1; n <= small_lu::kMaxOrder; ++n) {
    std::vector<DType> m(n * n);
    for (DType& x : m) x = static_cast<DType>(value(gen));
    // Diagonally weighted, so that the pivots are clear choices for both algorithms.
    for (index_t i = 0; i < n; ++i) m[i * n + (i * 7 + 3) % n] += DType(4);
    ExpectAsLapack(n, m, "random");
  }
  // Singular: a zero column (a zero pivot at its step; later steps go on) and two equal
  // columns (a pivot of rounding size or zero); and the zero matrix (info 1, no swaps).
  for (const index_t n : {index_t{5}, index_t{32}}) {
    std::vector<DType> m(n * n);
    for (DType& x : m) x = static_cast<DType>(value(gen));
    for (index_t i = 0; i < n; ++i) m[2 * n + i] = DType(0);
    ExpectAsLapack(n, m, "a zero column");
    ExpectAsLapack(n, std::vector<DType>(n * n, DType(0)), "zeros");
  }
}

TEST(SmallLuTest, AsLapacksGetrfFloat) { CheckEveryOrder<float>(); }
TEST(SmallLuTest, AsLapacksGetrfDouble) { CheckEveryOrder<double>(); }

}  // namespace
}  // namespace ops
