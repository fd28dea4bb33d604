// ops/distribution_domain.h: the check that each of many distributions' parameters lie in
// their domain, which the operators that draw from them (multisample) and those that give
// their densities (pdf) make before computing. A distribution type names its parameters
// (kParams), says its domain in words (kDomain) and tests it (Valid(a, b); a one-parameter
// distribution ignores b).
#ifndef OPS_DISTRIBUTION_DOMAIN_H_
#define OPS_DISTRIBUTION_DOMAIN_H_

#include <string>

#include "dmlc/logging.h"
#include "dmlc/strtonum.h"
#include "mshadow/base.h"

namespace ops {

template <typename Dist>
constexpr int kNumParams = static_cast<int>(sizeof(Dist::kParams) / sizeof(Dist::kParams[0]));

// A dmlc::Error for the first of `count` distributions whose parameters (a[i], b[i]) are
// outside Dist's domain, naming its position, its values and the domain.
template <typename Dist, typename PType>
void CheckParameters(const PType* a, const PType* b, mshadow::index_t count) {
  for (mshadow::index_t i = 0; i < count; ++i) {
    const double x = static_cast<double>(a[i]), y = static_cast<double>(b[i]);
    if (Dist::Valid(x, y)) continue;
    std::string values = std::string(Dist::kParams[0]) + " " + dmlc::NumberToString(x);
    if (kNumParams<Dist> == 2)
      values += ", " + std::string(Dist::kParams[1]) + " " + dmlc::NumberToString(y);
    throw dmlc::Error("distribution " + std::to_string(i) + " has " + values +
                      "; valid: " + Dist::kDomain);
  }
}

}  // namespace ops

#endif  // OPS_DISTRIBUTION_DOMAIN_H_
