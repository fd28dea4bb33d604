#include "ops/testing/op_cases.h"

#include <fstream>
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

// "(4,5)", "(3,4)[0.5,2]" or "(4){0,5}".
InputSpec ParseInput(const std::string& text) {
  const size_t close = text.find(')');
  CHECK(text.front() == '(' && close != std::string::npos) << "bad input shape '" << text << "'";
  std::istringstream shape_text(text.substr(0, close + 1));
  TShape shape;
  shape_text >> shape;
  CHECK(!shape_text.fail()) << "bad input shape '" << text << "'";
  InputSpec spec(shape);
  const std::string range = text.substr(close + 1);
  if (range.empty()) return spec;
  const char open = range.front(), end = range.back();
  CHECK((open == '[' && end == ']') || (open == '{' && end == '}'))
      << "bad value range '" << range << "'; valid: [lo,hi] or {lo,hi}";
  const std::vector<std::string> bounds = Split(range.substr(1, range.size() - 2), ',');
  CHECK_EQ(bounds.size(), 2U) << "bad value range '" << range << "'";
  spec.lo = std::stod(bounds[0]);
  spec.hi = std::stod(bounds[1]);
  spec.integer = open == '{';
  spec.differentiable = !spec.integer;
  return spec;
}

}  // namespace

std::vector<OpCase> ParseOpCases(std::istream& in) {
  std::vector<OpCase> cases;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    line = Trim(line);
    if (line.empty() || line[0] == '#') continue;
    try {
      const std::vector<std::string> fields = Split(line, '|');
      CHECK(fields.size() == 2 || fields.size() == 3)
          << "expected 'operator | inputs | parameters'";
      OpCase c;
      c.op = Trim(fields[0]);
      std::istringstream inputs(fields[1]);
      for (std::string input; inputs >> input;) c.inputs.push_back(ParseInput(input));
      std::istringstream params(fields.size() == 3 ? fields[2] : "");
      for (std::string param; params >> param;) {
        const size_t eq = param.find('=');
        CHECK(eq != std::string::npos) << "parameter '" << param << "' is not key=value";
        c.kwargs[param.substr(0, eq)] = param.substr(eq + 1);
      }
      cases.push_back(std::move(c));
    } catch (const dmlc::Error& e) {
      throw dmlc::Error("op cases line " + std::to_string(number) + ": " + e.what());
    }
  }
  return cases;
}

std::vector<OpCase> LoadOpCases(const std::string& path) {
  std::ifstream in(path);
  CHECK(in) << "cannot open the op case table " << path;
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
