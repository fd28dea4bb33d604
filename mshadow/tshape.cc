#include "mshadow/tshape.h"

#include <cctype>
#include <charconv>
#include <string>

#include "dmlc/strtonum.h"

namespace mshadow {
namespace {

// Dimensions parsed so far; no allocation for the common ranks.
class DimBuffer {
 public:
  void push_back(index_t dim) {
    if (size_ < kInline) {
      inline_[size_] = dim;
    } else {
      if (size_ == kInline) heap_.assign(inline_, inline_ + kInline);
      heap_.push_back(dim);
    }
    ++size_;
  }
  const index_t* begin() const { return size_ <= kInline ? inline_ : heap_.data(); }
  const index_t* end() const { return begin() + size_; }

 private:
  static constexpr size_t kInline = 8;
  index_t inline_[kInline];
  std::vector<index_t> heap_;
  size_t size_ = 0;
};

// An optionally signed integer with an optional 'L' suffix at text[*pos]; advances *pos.
bool ParseDim(std::string_view text, size_t* pos, index_t* dim) {
  const char* first = text.data() + *pos;
  const char* const last = text.data() + text.size();
  if (first != last && *first == '+') ++first;
  const auto result = std::from_chars(first, last, *dim);
  if (result.ec != std::errc()) return false;
  *pos = static_cast<size_t>(result.ptr - text.data());
  if (*pos < text.size() && (text[*pos] == 'L' || text[*pos] == 'l')) ++*pos;
  return true;
}

void SkipSpace(std::string_view text, size_t* pos) {
  while (*pos < text.size() && std::isspace(static_cast<unsigned char>(text[*pos]))) ++*pos;
}

}  // namespace

bool ParseTShape(std::string_view text, TShape* out) {
  text = dmlc::TrimSpace(text);
  if (text.empty()) return false;
  DimBuffer dims;
  size_t pos = 0;
  if (text.front() != '(' && text.front() != '[') {
    index_t dim;
    if (!ParseDim(text, &pos, &dim) || pos != text.size()) return false;
    dims.push_back(dim);
  } else {
    const char close = text.front() == '(' ? ')' : ']';
    if (text.size() < 2 || text.back() != close) return false;
    const std::string_view body = text.substr(1, text.size() - 2);
    SkipSpace(body, &pos);
    while (pos < body.size()) {
      index_t dim;
      if (!ParseDim(body, &pos, &dim)) return false;
      dims.push_back(dim);
      SkipSpace(body, &pos);
      if (pos == body.size()) break;
      if (body[pos] != ',') return false;
      ++pos;
      SkipSpace(body, &pos);  // a trailing comma ends the tuple: "(3,)"
    }
  }
  out->CopyFrom(dims.begin(), dims.end());
  return true;
}

std::istream& operator>>(std::istream& is, TShape& shape) {
  is >> std::ws;
  std::string token;
  int ch = is.peek();
  if (ch == '(' || ch == '[') {
    const char close = ch == '(' ? ')' : ']';
    // Up to and including the closing bracket; end of input before it is malformed.
    while ((ch = is.get()) != std::char_traits<char>::eof()) {
      token.push_back(static_cast<char>(ch));
      if (ch == close) break;
    }
    if (ch != close) {
      is.setstate(std::ios::failbit);
      return is;
    }
  } else {
    while ((ch = is.peek()) != std::char_traits<char>::eof() &&
           (std::isdigit(ch) || ch == '-' || ch == '+' || ch == 'L' || ch == 'l')) {
      token.push_back(static_cast<char>(is.get()));
    }
  }
  if (!ParseTShape(token, &shape)) is.setstate(std::ios::failbit);
  return is;
}

}  // namespace mshadow
