// mshadow/cpu/blas_core.cc, linked in: OpenBLAS runs kernels as wide as the CPU where it
// would have fallen back to Prescott's, and computes right with them; with OPENBLAS_CORETYPE
// set (//mshadow:blas_core_env_test sets Prescott) OpenBLAS's choice stands.
#include <cblas.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "gtest/gtest.h"

extern "C" char* openblas_get_corename(void);

namespace mshadow {
namespace {

TEST(BlasCoreTest, KernelsAsWideAsTheCpu) {
  const std::string running = openblas_get_corename();
  const char* forced = std::getenv("OPENBLAS_CORETYPE");
  if (forced != nullptr) {
    EXPECT_EQ(running, forced);
    return;
  }
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    EXPECT_NE(running, "Prescott");
  }
}

// A product on the running core (its tables initialized by OpenBLAS's selection): c = a b for
// integers small enough to be exact in float.
TEST(BlasCoreTest, ProductsAreRightOnTheRunningCore) {
  const int m = 67, n = 45, k = 130;
  std::vector<float> a(m * k), b(k * n), c(m * n, -1.0f);
  for (int i = 0; i < m * k; ++i) a[i] = static_cast<float>(i % 7 - 3);
  for (int i = 0; i < k * n; ++i) b[i] = static_cast<float>(i % 5 - 2);
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a.data(), k, b.data(), n,
              0.0f, c.data(), n);
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      float want = 0;
      for (int t = 0; t < k; ++t) want += a[i * k + t] * b[t * n + j];
      ASSERT_EQ(c[i * n + j], want)
          << "element (" << i << ", " << j << ") on " << openblas_get_corename();
    }
  }
}

}  // namespace
}  // namespace mshadow
