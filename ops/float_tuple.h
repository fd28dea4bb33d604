// ops/float_tuple.h: a tuple of floats as a dmlc parameter field (MXNet's Tuple<float>, as
// multi_sgd_update's lrs and wds take it), in the tuple syntax shapes use:
//
//   ops::FloatTuple lrs;
//   DMLC_DECLARE_FIELD(lrs).describe("Learning rates.");
//   param.Init({{"lrs", "(0.1, 0.01)"}});   // "0.1", "[0.1,0.01]" and "(0.1,)" parse too
//
// A bad element is a dmlc::ParamError naming the field and the value.
#ifndef OPS_FLOAT_TUPLE_H_
#define OPS_FLOAT_TUPLE_H_

#include <istream>
#include <iterator>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "dmlc/parameter.h"
#include "dmlc/strtonum.h"

namespace ops {

struct FloatTuple {
  std::vector<float> values;
  size_t size() const { return values.size(); }
  float operator[](size_t i) const { return values[i]; }
  bool operator==(const FloatTuple& other) const { return values == other.values; }
};

// "(a, b, ...)", "[a, b]", "(a,)", "()" or one bare number; false for anything else.
inline bool ParseFloatTuple(std::string_view text, FloatTuple* out) {
  text = dmlc::TrimSpace(text);
  if (text.empty()) return false;
  std::vector<float> values;
  auto parse_one = [&values](std::string_view item) {
    float value;
    if (dmlc::ParseNumber(item, &value) != dmlc::ParseStatus::kOk) return false;
    values.push_back(value);
    return true;
  };
  if (text.front() != '(' && text.front() != '[') {
    if (!parse_one(text)) return false;
  } else {
    const char close = text.front() == '(' ? ')' : ']';
    if (text.size() < 2 || text.back() != close) return false;
    std::string_view body = dmlc::TrimSpace(text.substr(1, text.size() - 2));
    while (!body.empty()) {
      const size_t comma = body.find(',');
      if (!parse_one(body.substr(0, comma))) return false;
      if (comma == std::string_view::npos) break;
      body = dmlc::TrimSpace(body.substr(comma + 1));  // a trailing comma ends the tuple
    }
  }
  out->values = std::move(values);
  return true;
}

// The rest of the stream as one tuple (what dmlc's generic field parsing reads).
inline std::istream& operator>>(std::istream& is, FloatTuple& tuple) {
  std::string text((std::istreambuf_iterator<char>(is)), std::istreambuf_iterator<char>());
  if (!ParseFloatTuple(text, &tuple)) is.setstate(std::ios::failbit);
  return is;
}

inline std::ostream& operator<<(std::ostream& os, const FloatTuple& tuple) {
  os << '(';
  for (size_t i = 0; i < tuple.size(); ++i) os << (i ? "," : "") << dmlc::NumberToString(tuple[i]);
  if (tuple.size() == 1) os << ',';
  return os << ')';
}

}  // namespace ops

namespace dmlc {

DMLC_DECLARE_TYPE_NAME(ops::FloatTuple, "tuple of <float>");

namespace parameter {

template <>
class FieldEntry<ops::FloatTuple>
    : public FieldEntryBase<FieldEntry<ops::FloatTuple>, ops::FloatTuple> {
 public:
  void Set(void* head, const std::string& value) const override {
    if (!ops::ParseFloatTuple(value, &this->Get(head))) this->ThrowFormatError(value);
  }

 protected:
  void PrintDefaultValueString(std::ostream& os) const override {
    os << '\'' << default_value_ << '\'';
  }
};

}  // namespace parameter
}  // namespace dmlc

#endif  // OPS_FLOAT_TUPLE_H_
