#include "dmlc/suggest.h"

#include <algorithm>
#include <utility>

namespace dmlc {
namespace {

char Lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

}  // namespace

size_t EditDistance(std::string_view a, std::string_view b) {
  // Three rows of the dynamic program: two back (for swaps), one back, current.
  std::vector<size_t> before(b.size() + 1), previous(b.size() + 1), current(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = Lower(a[i - 1]) == Lower(b[j - 1]) ? 0 : 1;
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost});
      if (i > 1 && j > 1 && Lower(a[i - 1]) == Lower(b[j - 2]) &&
          Lower(a[i - 2]) == Lower(b[j - 1])) {
        current[j] = std::min(current[j], before[j - 2] + 1);
      }
    }
    std::swap(before, previous);
    std::swap(previous, current);
  }
  return previous[b.size()];
}

std::vector<std::string> SuggestSimilar(std::string_view name,
                                        const std::vector<std::string>& candidates,
                                        size_t max_results) {
  const size_t threshold = std::max<size_t>(1, name.size() / 3);
  std::vector<std::pair<size_t, size_t>> ranked;  // (distance, index into candidates)
  for (size_t i = 0; i < candidates.size(); ++i) {
    const std::string& candidate = candidates[i];
    size_t distance = EditDistance(name, candidate);
    const bool is_prefix = !name.empty() && name.size() < candidate.size() &&
                           EditDistance(name, candidate.substr(0, name.size())) == 0;
    if (is_prefix) distance = std::min(distance, threshold);
    if (distance <= threshold) ranked.emplace_back(distance, i);
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::string> result;
  for (size_t i = 0; i < ranked.size() && i < max_results; ++i) {
    result.push_back(candidates[ranked[i].second]);
  }
  return result;
}

std::string DidYouMean(std::string_view name, const std::vector<std::string>& candidates) {
  const std::vector<std::string> similar = SuggestSimilar(name, candidates);
  if (similar.empty()) return "";
  std::string text = " Did you mean ";
  for (size_t i = 0; i < similar.size(); ++i) {
    if (i > 0) text += i + 1 == similar.size() ? " or " : ", ";
    text += "'" + similar[i] + "'";
  }
  return text + "?";
}

}  // namespace dmlc
