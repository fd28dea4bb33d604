// dmlc/suggest.h: "did you mean ...?" for names a user mistyped.
//
//   std::vector<std::string> names = {"num_hidden", "no_bias", "flatten"};
//   dmlc::SuggestSimilar("num_hiden", names);   // {"num_hidden"}
//
// Candidates are ranked by edit distance (insert, delete, substitute, swap of neighbours),
// case-insensitively; only those close enough to be a plausible typo are returned.
#ifndef DMLC_SUGGEST_H_
#define DMLC_SUGGEST_H_

#include <string>
#include <string_view>
#include <vector>

namespace dmlc {

// Optimal-string-alignment distance between `a` and `b`, ignoring ASCII case.
size_t EditDistance(std::string_view a, std::string_view b);

// Up to `max_results` candidates within a distance of max(1, |name| / 3), closest first (ties
// keep the candidates' order). A candidate that starts with `name` also counts as close.
std::vector<std::string> SuggestSimilar(std::string_view name,
                                        const std::vector<std::string>& candidates,
                                        size_t max_results = 3);

// " Did you mean 'a' or 'b'?" (with the leading space), or "" when nothing is close.
std::string DidYouMean(std::string_view name, const std::vector<std::string>& candidates);

}  // namespace dmlc

#endif  // DMLC_SUGGEST_H_
