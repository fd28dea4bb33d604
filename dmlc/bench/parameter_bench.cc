// Parameter::Init on a six-field struct (int with a range, float, double, bool, string,
// enum) against the same struct parsed the dmlc-core way: a std::map lookup per key, an
// std::istringstream per field with the trailing-space check, a std::set of the fields
// seen, defaults for the rest. Same key/value pairs, same checks, same results.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "dmlc/parameter.h"

namespace {

struct LayerParam : public dmlc::Parameter<LayerParam> {
  int num_hidden;
  float learning_rate;
  double momentum;
  bool no_bias;
  std::string name;
  int act_type;
  DMLC_DECLARE_PARAMETER(LayerParam) {
    DMLC_DECLARE_FIELD(num_hidden).set_range(1, 100000);
    DMLC_DECLARE_FIELD(learning_rate).set_default(0.01f);
    DMLC_DECLARE_FIELD(momentum).set_default(0.9);
    DMLC_DECLARE_FIELD(no_bias).set_default(false);
    DMLC_DECLARE_FIELD(name).set_default("layer");
    DMLC_DECLARE_FIELD(act_type)
        .add_enum("relu", 0)
        .add_enum("sigmoid", 1)
        .add_enum("tanh", 2)
        .set_default(0);
  }
};

const std::vector<std::pair<std::string, std::string>>& Kwargs() {
  static const std::vector<std::pair<std::string, std::string>> kwargs = {
      {"num_hidden", "128"}, {"learning_rate", "0.05"}, {"momentum", "0.95"},
      {"no_bias", "true"},   {"name", "fc1"},           {"act_type", "tanh"}};
  return kwargs;
}

// ---- The baseline: dmlc-core's parsing, written out for this struct.

// FieldEntryBase::Set of dmlc-core: stream extraction, then only whitespace may follow.
template <typename T>
void StreamSet(const std::string& key, const std::string& value, T* out) {
  std::istringstream is(value);
  is >> *out;
  if (!is.fail()) {
    while (!is.eof()) {
      const int ch = is.get();
      if (ch == EOF) {
        is.clear();
        break;
      }
      if (!std::isspace(ch)) {
        is.setstate(std::ios::failbit);
        break;
      }
    }
  }
  if (is.fail()) throw dmlc::ParamError("Invalid Parameter format for " + key);
}

struct BaselineParam {
  int num_hidden;
  float learning_rate;
  double momentum;
  bool no_bias;
  std::string name;
  int act_type;
};

using Setter = std::function<void(BaselineParam*, const std::string&)>;

const std::map<std::string, Setter>& BaselineSetters() {
  static const std::map<std::string, Setter> setters = {
      {"num_hidden",
       [](BaselineParam* p, const std::string& v) {
         StreamSet("num_hidden", v, &p->num_hidden);
         if (p->num_hidden < 1 || p->num_hidden > 100000) throw dmlc::ParamError("range");
       }},
      {"learning_rate",
       [](BaselineParam* p, const std::string& v) { StreamSet("learning_rate", v, &p->learning_rate); }},
      {"momentum", [](BaselineParam* p, const std::string& v) { StreamSet("momentum", v, &p->momentum); }},
      {"no_bias",
       [](BaselineParam* p, const std::string& v) {
         std::string lower(v.size(), ' ');
         std::transform(v.begin(), v.end(), lower.begin(), ::tolower);
         if (lower == "true" || lower == "1") {
           p->no_bias = true;
         } else if (lower == "false" || lower == "0") {
           p->no_bias = false;
         } else {
           throw dmlc::ParamError("bool");
         }
       }},
      {"name", [](BaselineParam* p, const std::string& v) { p->name = v; }},
      {"act_type",
       [](BaselineParam* p, const std::string& v) {
         // dmlc-core maps the name to its number, prints it, and parses that with a stream.
         static const std::map<std::string, int> enums = {{"relu", 0}, {"sigmoid", 1}, {"tanh", 2}};
         const auto it = enums.find(v);
         if (it == enums.end()) throw dmlc::ParamError("enum");
         std::ostringstream os;
         os << it->second;
         StreamSet("act_type", os.str(), &p->act_type);
       }},
  };
  return setters;
}

void BaselineInit(const std::vector<std::pair<std::string, std::string>>& kwargs,
                  BaselineParam* p) {
  const auto& setters = BaselineSetters();
  std::set<std::string> selected;
  for (const auto& [key, value] : kwargs) {
    const auto it = setters.find(key);
    if (it == setters.end()) throw dmlc::ParamError("Cannot find argument " + key);
    it->second(p, value);
    selected.insert(key);
  }
  if (!selected.count("num_hidden")) throw dmlc::ParamError("Required parameter num_hidden");
  if (!selected.count("learning_rate")) p->learning_rate = 0.01f;
  if (!selected.count("momentum")) p->momentum = 0.9;
  if (!selected.count("no_bias")) p->no_bias = false;
  if (!selected.count("name")) p->name = "layer";
  if (!selected.count("act_type")) p->act_type = 0;
}

// ---- The benchmarks.

void BM_InitSixFields_Project(benchmark::State& state) {
  const auto& kwargs = Kwargs();
  LayerParam param;
  for (auto _ : state) {
    param.Init(kwargs);
    benchmark::DoNotOptimize(param);
  }
  if (param.num_hidden != 128 || param.act_type != 2 || !param.no_bias) {
    state.SkipWithError("wrong result");
  }
}

void BM_InitSixFields_BaselineIstringstream(benchmark::State& state) {
  const auto& kwargs = Kwargs();
  BaselineParam param;
  for (auto _ : state) {
    BaselineInit(kwargs, &param);
    benchmark::DoNotOptimize(param);
  }
  if (param.num_hidden != 128 || param.act_type != 2 || !param.no_bias) {
    state.SkipWithError("wrong result");
  }
}

BENCHMARK(BM_InitSixFields_BaselineIstringstream);
BENCHMARK(BM_InitSixFields_Project);

}  // namespace

DMLC_REGISTER_PARAMETER(LayerParam);
