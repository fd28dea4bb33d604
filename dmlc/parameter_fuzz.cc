// Fuzzes Parameter::Init with arbitrary key=value lines. Properties checked on every input:
// - only dmlc::ParamError escapes (no crash, no other exception, no sanitizer report);
// - a failed Init leaves the struct exactly as it was;
// - a successful Init round-trips: Init(__DICT__()) succeeds and gives the same dict.
#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dmlc/parameter.h"

namespace {

struct FuzzParam : public dmlc::Parameter<FuzzParam> {
  int num_hidden;
  int act;
  float learning_rate;
  double momentum;
  bool no_bias;
  std::string name;
  dmlc::optional<int> axis;
  dmlc::optional<float> clip;
  int64_t seed;
  uint32_t workers;
  uint64_t budget;
  DMLC_DECLARE_PARAMETER(FuzzParam) {
    DMLC_DECLARE_FIELD(num_hidden).set_range(1, 4096);
    DMLC_DECLARE_FIELD(act).add_enum("relu", 0).add_enum("tanh", 1).set_default(0);
    DMLC_DECLARE_FIELD(learning_rate).set_lower_bound(0.0f).set_default(0.01f);
    DMLC_DECLARE_FIELD(momentum).set_range(0.0, 1.0).set_default(0.9);
    DMLC_DECLARE_FIELD(no_bias).set_default(false);
    DMLC_DECLARE_FIELD(name).set_default("net");
    DMLC_DECLARE_FIELD(axis).set_default(dmlc::optional<int>());
    DMLC_DECLARE_FIELD(clip).set_default(dmlc::optional<float>(1.0f));
    DMLC_DECLARE_FIELD(seed).set_default(0);
    DMLC_DECLARE_FIELD(workers).set_default(1);
    DMLC_DECLARE_FIELD(budget).set_default(0);
    DMLC_DECLARE_ALIAS(num_hidden, nhidden);
  }
};

}  // namespace

DMLC_REGISTER_PARAMETER(FuzzParam);

// Lines of `key=value`; a line without '=' is a key with an empty value.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<std::pair<std::string, std::string>> kwargs;
  while (!text.empty()) {
    const size_t end = std::min(text.find('\n'), text.size());
    const std::string_view line = text.substr(0, end);
    const size_t eq = line.find('=');
    kwargs.emplace_back(std::string(line.substr(0, eq)),
                        eq == std::string_view::npos ? "" : std::string(line.substr(eq + 1)));
    text.remove_prefix(std::min(end + 1, text.size()));
  }

  FuzzParam param;
  param.Init({{"num_hidden", "7"}});
  const auto before = param.__DICT__();
  try {
    param.Init(kwargs);
  } catch (const dmlc::ParamError&) {
    if (param.__DICT__() != before) std::abort();  // a failed Init changed the struct
    return 0;
  }
  const auto dict = param.__DICT__();
  FuzzParam again;
  again.Init(dict);  // must not throw: everything printed must parse back
  if (again.__DICT__() != dict) std::abort();
  return 0;
}
