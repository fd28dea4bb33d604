#include "ops/testing/op_cases.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <random>
#include <sstream>

#include "dmlc/logging.h"

namespace ops {
namespace testing {
namespace {

std::string Trim(const std::string& s) {
  const size_t begin = s.find_first_not_of(" \t");
  if (begin == std::string::npos) return "";
  return s.substr(begin, s.find_last_not_of(" \t") - begin + 1);
}

std::vector<std::string> Split(const std::string& s, char separator) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream is(s);
  while (std::getline(is, part, separator)) parts.push_back(part);
  return parts;
}

[[noreturn]] void Fail(const std::string& message) { throw dmlc::Error(message); }

double ParseBound(const std::string& text, const std::string& range) {
  size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size()) {
    Fail("bad bound '" + text + "' in value range '" + range + "'");
  }
  return value;
}

}  // namespace

Values RandomValues(size_t n, double lo, double hi, std::mt19937_64* rng) {
  std::uniform_real_distribution<double> dist(lo, hi);
  Values values(n);
  for (double& v : values) v = dist(*rng);
  return values;
}

Values ToValues(const TBlob& blob) {
  Values values(static_cast<size_t>(blob.Size()));
  MSHADOW_TYPE_SWITCH_EXT_WITH_BOOL(blob.type_flag_, DType, {
    const DType* data = blob.dptr<DType>();
    for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<double>(data[i]);
  });
  return values;
}

CpuTensor TensorOf(const TShape& shape, int type_flag, const Values& values) {
  CpuTensor t(shape, type_flag);
  SetValues(t.blob(), values);
  return t;
}

CpuTensor TensorOf(int type_flag, const Values& values) {
  return TensorOf(TShape{static_cast<index_t>(values.size())}, type_flag, values);
}

void SetValues(const TBlob& blob, const Values& values) {
  CHECK_EQ(values.size(), static_cast<size_t>(blob.Size()))
      << "values for a tensor of another size";
  MSHADOW_TYPE_SWITCH_EXT_WITH_BOOL(blob.type_flag_, DType, {
    DType* data = blob.dptr<DType>();
    for (size_t i = 0; i < values.size(); ++i) data[i] = static_cast<DType>(values[i]);
  });
}

std::vector<CpuTensor> MakeInputs(const OpCase& c, int type_flag, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<CpuTensor> inputs;
  for (const InputSpec& spec : c.inputs) {
    inputs.emplace_back(spec.shape, spec.type_flag >= 0 ? spec.type_flag : type_flag);
    const size_t n = static_cast<size_t>(spec.shape.Size());
    Values values = spec.values.empty() ? RandomValues(n, spec.lo, spec.hi, &rng) : spec.values;
    if (spec.integer) {
      for (double& v : values) v = std::min(std::floor(v), spec.hi - 1);
    }
    SetValues(inputs.back().blob(), values);
  }
  return inputs;
}

InputSpec ParseValueSpec(const std::string& text);

std::vector<std::string> SplitTableFields(const std::string& line) {
  std::vector<std::string> fields = Split(line, '|');
  for (std::string& field : fields) field = Trim(field);
  return fields;
}

InputSpec ParseInputSpec(const std::string& spec_text) {
  // A trailing '~' marks a state input (e.g. BatchNorm's moving statistics): not differentiated.
  const bool state = !spec_text.empty() && spec_text.back() == '~';
  std::string text = state ? spec_text.substr(0, spec_text.size() - 1) : spec_text;
  // ":type" fixes the input's type (multi-precision optimizers' float32 master weights).
  int type_flag = -1;
  const size_t colon = text.find(':');
  if (colon != std::string::npos) {
    const std::string name = text.substr(colon + 1);
    for (int flag : {mshadow::kFloat32, mshadow::kFloat64, mshadow::kFloat16, mshadow::kUint8,
                     mshadow::kInt32, mshadow::kInt8, mshadow::kInt64}) {
      if (mshadow::TypeFlagName(flag) == name) type_flag = flag;
    }
    if (type_flag < 0) Fail("bad input type '" + name + "'; valid: float32, float64, ...");
    text = text.substr(0, colon);
  }
  InputSpec spec = ParseValueSpec(text);
  spec.type_flag = type_flag;
  if (state) spec.differentiable = false;
  return spec;
}

// "...+kI": the matrices of the last two axes with k added to their diagonals, drawn now (a
// fixed seed) as the spec's values.
InputSpec WithDiagonalShift(InputSpec spec, const std::string& shift_text) {
  const TShape& shape = spec.shape;
  const int ndim = static_cast<int>(shape.ndim());
  if (ndim < 2 || shape[ndim - 1] != shape[ndim - 2] || spec.integer) {
    Fail("'+" + shift_text + "' needs real square matrices (the last two axes), got " +
         ShapeText(shape));
  }
  const double shift = ParseBound(shift_text.substr(0, shift_text.size() - 1), "+" + shift_text);
  std::mt19937_64 rng(1234);
  spec.values = RandomValues(static_cast<size_t>(shape.Size()), spec.lo, spec.hi, &rng);
  const size_t n = shape[ndim - 1];
  for (size_t start = 0; start < spec.values.size(); start += n * n) {
    for (size_t d = 0; d < n; ++d) spec.values[start + d * (n + 1)] += shift;
  }
  return spec;
}

InputSpec ParseValueSpec(const std::string& spec_text) {
  // "+kI" last: k added to every matrix's diagonal.
  const size_t plus = spec_text.rfind('+');
  if (plus != std::string::npos && spec_text.back() == 'I' && plus > spec_text.find(')')) {
    return WithDiagonalShift(ParseValueSpec(spec_text.substr(0, plus)), spec_text.substr(plus + 1));
  }
  const std::string& text = spec_text;
  const size_t close = text.find(')');
  if (text.empty() || text.front() != '(' || close == std::string::npos) {
    Fail("bad input shape '" + text + "'");
  }
  std::istringstream shape_text(text.substr(0, close + 1));
  TShape shape;
  shape_text >> shape;
  if (shape_text.fail()) Fail("bad input shape '" + text + "'");
  InputSpec spec(shape);
  const std::string range = text.substr(close + 1);
  if (range.empty()) return spec;
  const char open = range.front(), end = range.back();
  if ((open != '[' || end != ']') && (open != '{' || end != '}')) {
    Fail("bad value range '" + range + "'; valid: [lo,hi] or {lo,hi}");
  }
  const std::vector<std::string> bounds = Split(range.substr(1, range.size() - 2), ',');
  if (bounds.size() != 2) Fail("bad value range '" + range + "'; valid: [lo,hi] or {lo,hi}");
  spec.lo = ParseBound(bounds[0], range);
  spec.hi = ParseBound(bounds[1], range);
  spec.integer = open == '{';
  spec.differentiable = !spec.integer;
  return spec;
}


OpCase ParseOpCase(const std::string& line) {
  const std::vector<std::string> fields = SplitTableFields(line);
  if (fields.size() != 2 && fields.size() != 3) Fail("expected 'operator | inputs | parameters'");
  return ParseOpCase(fields[0], fields[1], fields.size() == 3 ? fields[2] : "");
}

OpCase ParseOpCase(const std::string& op, const std::string& inputs_text,
                   const std::string& params_text) {
  OpCase c;
  c.op = op;
  std::istringstream inputs(inputs_text);
  for (std::string input; inputs >> input;) c.inputs.push_back(ParseInputSpec(input));
  std::istringstream params(params_text);
  for (std::string param; params >> param;) {
    const size_t eq = param.find('=');
    if (eq == std::string::npos) Fail("parameter '" + param + "' is not key=value");
    c.kwargs[param.substr(0, eq)] = param.substr(eq + 1);
  }
  return c;
}

void ForEachTableLine(std::istream& in, const std::string& table,
                      const std::function<void(const std::string& line)>& parse) {
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    line = Trim(line);
    if (line.empty() || line[0] == '#') continue;
    try {
      parse(line);
    } catch (const dmlc::Error& e) {
      throw dmlc::Error(table + " line " + std::to_string(number) + ": " + e.what());
    }
  }
}

std::vector<OpCase> ParseOpCases(std::istream& in) {
  std::vector<OpCase> cases;
  ForEachTableLine(in, "op cases",
                   [&](const std::string& line) { cases.push_back(ParseOpCase(line)); });
  return cases;
}

std::vector<OpCase> LoadOpCases(const std::string& path) {
  std::ifstream in(path);
  if (!in) Fail("cannot open the op case table " + path);
  return ParseOpCases(in);
}

std::string CaseName(const OpCase& c) {
  std::ostringstream os;
  os << c.op;
  for (const InputSpec& input : c.inputs) os << ' ' << input.shape;
  for (const auto& [key, value] : c.kwargs) os << ' ' << key << '=' << value;
  return os.str();
}

}  // namespace testing
}  // namespace ops
