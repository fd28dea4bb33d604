// ops/testing/uniform_vector.h: fixed-seed uniform values in [-1, 1] for the kernels' unit
// tests that need no operator (products against triple loops).
#ifndef OPS_TESTING_UNIFORM_VECTOR_H_
#define OPS_TESTING_UNIFORM_VECTOR_H_

#include <cstddef>
#include <random>
#include <vector>

namespace ops {
namespace testing {

// n values drawn uniformly from [-1, 1] by a generator seeded with `seed`.
template <typename DType>
std::vector<DType> UniformVector(size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(-1, 1);
  std::vector<DType> v(n);
  for (auto& x : v) x = static_cast<DType>(dist(gen));
  return v;
}

}  // namespace testing
}  // namespace ops

#endif  // OPS_TESTING_UNIFORM_VECTOR_H_
