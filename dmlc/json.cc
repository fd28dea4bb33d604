#include "dmlc/json.h"

#include <cstdio>
#include <set>

namespace dmlc {
namespace {

bool IsJsonSpace(int ch) { return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r'; }

// How a character appears in an error message.
std::string DescribeChar(int ch) {
  if (ch == EOF) return "end of input";
  if (ch >= 0x20 && ch < 0x7f) return std::string("'") + static_cast<char>(ch) + "'";
  char hex[16];
  std::snprintf(hex, sizeof(hex), "byte 0x%02x", ch & 0xff);
  return hex;
}

void AppendUtf8(unsigned code_point, std::string* out) {
  if (code_point < 0x80) {
    out->push_back(static_cast<char>(code_point));
  } else if (code_point < 0x800) {
    out->push_back(static_cast<char>(0xc0 | (code_point >> 6)));
    out->push_back(static_cast<char>(0x80 | (code_point & 0x3f)));
  } else if (code_point < 0x10000) {
    out->push_back(static_cast<char>(0xe0 | (code_point >> 12)));
    out->push_back(static_cast<char>(0x80 | ((code_point >> 6) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | (code_point & 0x3f)));
  } else {
    out->push_back(static_cast<char>(0xf0 | (code_point >> 18)));
    out->push_back(static_cast<char>(0x80 | ((code_point >> 12) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | ((code_point >> 6) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | (code_point & 0x3f)));
  }
}

}  // namespace

// ----------------------------------------------------------------------------- writer

void JSONWriter::WriteString(std::string_view s) {
  std::ostream& os = *os_;
  os << '"';
  for (const char c : s) {
    switch (c) {
      case '"': os << "\\\""; break;
      case '\\': os << "\\\\"; break;
      case '\n': os << "\\n"; break;
      case '\r': os << "\\r"; break;
      case '\t': os << "\\t"; break;
      case '\b': os << "\\b"; break;
      case '\f': os << "\\f"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char escape[8];
          std::snprintf(escape, sizeof(escape), "\\u%04x", static_cast<unsigned>(c));
          os << escape;
        } else {
          os << c;  // UTF-8 bytes pass through
        }
    }
  }
  os << '"';
}

void JSONWriter::WriteNoEscape(std::string_view s) { *os_ << '"' << s << '"'; }

void JSONWriter::WriteLiteral(std::string_view literal) { *os_ << literal; }

void JSONWriter::BeginArray(bool multi_line) {
  *os_ << '[';
  scope_counter_.push_back(0);
  scope_multi_line_.push_back(multi_line);
}

void JSONWriter::EndArray() {
  CHECK(!scope_counter_.empty()) << "JSONWriter: EndArray without BeginArray";
  const bool newline = scope_multi_line_.back() && scope_counter_.back() != 0;
  scope_counter_.pop_back();
  scope_multi_line_.pop_back();
  if (newline) WriteSeparator();
  *os_ << ']';
}

void JSONWriter::BeginObject(bool multi_line) {
  *os_ << '{';
  scope_counter_.push_back(0);
  scope_multi_line_.push_back(multi_line);
}

void JSONWriter::EndObject() {
  CHECK(!scope_counter_.empty()) << "JSONWriter: EndObject without BeginObject";
  const bool newline = scope_multi_line_.back() && scope_counter_.back() != 0;
  scope_counter_.pop_back();
  scope_multi_line_.pop_back();
  if (newline) WriteSeparator();
  *os_ << '}';
}

// dmlc-core's layout, byte for byte: items after the first follow ", "; a multi-line scope
// puts each item on its own line, indented two spaces per level (so a multi-line scope's
// lines end in ", " before the newline, as dmlc-core's do).
void JSONWriter::WriteArraySeperator() {
  CHECK(!scope_counter_.empty()) << "JSONWriter: array item outside an array";
  if (scope_counter_.back() != 0) *os_ << ", ";
  ++scope_counter_.back();
  WriteSeparator();
}

void JSONWriter::WriteSeparator() {
  if (scope_multi_line_.empty() || scope_multi_line_.back()) {
    *os_ << '\n' << std::string(scope_multi_line_.size() * 2, ' ');
  }
}

// ----------------------------------------------------------------------------- reader

int JSONReader::NextChar() {
  const int ch = is_->get();
  if (ch == '\n') {
    ++line_;
    column_ = 0;
  } else if (ch != EOF) {
    ++column_;
  }
  return ch;
}

int JSONReader::PeekNextChar() { return is_->peek(); }

int JSONReader::NextNonSpace() {
  int ch;
  do {
    ch = NextChar();
  } while (IsJsonSpace(ch));
  return ch;
}

int JSONReader::PeekNextNonSpace() {
  int ch;
  while (IsJsonSpace(ch = PeekNextChar())) NextChar();
  return ch;
}

std::string JSONReader::line_info() const {
  return "line " + std::to_string(line_) + ", column " + std::to_string(column_);
}

void JSONReader::Fail(std::string_view what) const {
  throw Error("JSON: " + line_info() + ": " + std::string(what));
}

void JSONReader::Expect(char expected, std::string_view context) {
  const int ch = NextNonSpace();
  if (ch != expected) {
    Fail(std::string("expected '") + expected + "' " + std::string(context) + " but found " +
         DescribeChar(ch));
  }
}

unsigned JSONReader::ReadHex4() {
  unsigned value = 0;
  for (int i = 0; i < 4; ++i) {
    const int ch = NextChar();
    int digit;
    if (ch >= '0' && ch <= '9') {
      digit = ch - '0';
    } else if ((ch | 0x20) >= 'a' && (ch | 0x20) <= 'f') {
      digit = (ch | 0x20) - 'a' + 10;
    } else {
      Fail("expected 4 hex digits after \\u but found " + DescribeChar(ch));
    }
    value = value * 16 + static_cast<unsigned>(digit);
  }
  return value;
}

void JSONReader::AppendUnicodeEscape(std::string* out) {
  unsigned code_point = ReadHex4();
  if (code_point >= 0xdc00 && code_point <= 0xdfff) {
    Fail("unpaired low surrogate in \\u escape");
  }
  if (code_point >= 0xd800 && code_point <= 0xdbff) {
    if (NextChar() != '\\' || NextChar() != 'u') {
      Fail("high surrogate in \\u escape is not followed by a low surrogate");
    }
    const unsigned low = ReadHex4();
    if (low < 0xdc00 || low > 0xdfff) {
      Fail("high surrogate in \\u escape is not followed by a low surrogate");
    }
    code_point = 0x10000 + ((code_point - 0xd800) << 10) + (low - 0xdc00);
  }
  AppendUtf8(code_point, out);
}

void JSONReader::ReadString(std::string* out_str) {
  const int first = NextNonSpace();
  if (first != '"') Fail("expected a string but found " + DescribeChar(first));
  out_str->clear();
  while (true) {
    int ch = NextChar();
    if (ch == '"') return;
    if (ch == EOF) Fail("unterminated string");
    if (ch == '\\') {
      ch = NextChar();
      switch (ch) {
        case '"': out_str->push_back('"'); break;
        case '\\': out_str->push_back('\\'); break;
        case '/': out_str->push_back('/'); break;
        case 'b': out_str->push_back('\b'); break;
        case 'f': out_str->push_back('\f'); break;
        case 'n': out_str->push_back('\n'); break;
        case 'r': out_str->push_back('\r'); break;
        case 't': out_str->push_back('\t'); break;
        case 'u': AppendUnicodeEscape(out_str); break;
        default: Fail("invalid escape \\" + DescribeChar(ch) + " in a string");
      }
    } else if (ch < 0x20) {
      Fail("control character " + DescribeChar(ch) + " in a string; write it as an escape");
    } else {
      out_str->push_back(static_cast<char>(ch));
    }
  }
}

size_t JSONReader::ReadNumberToken(char* buffer, size_t capacity) {
  PeekNextNonSpace();
  size_t length = 0;
  for (int ch = PeekNextChar(); (ch >= '0' && ch <= '9') || ch == '-' || ch == '+' ||
                                ch == '.' || ch == 'e' || ch == 'E';
       ch = PeekNextChar()) {
    if (length == capacity) Fail("number has more than " + std::to_string(capacity) + " characters");
    buffer[length++] = static_cast<char>(NextChar());
  }
  if (length == 0) Fail("expected a number but found " + DescribeChar(PeekNextChar()));
  return length;
}

void JSONReader::ReadBool(bool* out_value) {
  const int first = PeekNextNonSpace();
  std::string word;
  while (word.size() < 5 && PeekNextChar() >= 'a' && PeekNextChar() <= 'z') {
    word.push_back(static_cast<char>(NextChar()));
  }
  if (word == "true") {
    *out_value = true;
  } else if (word == "false") {
    *out_value = false;
  } else {
    Fail("expected true or false but found " +
         (word.empty() ? DescribeChar(first) : "'" + word + "'"));
  }
}

bool JSONReader::ReadNullIfPresent() {
  if (PeekNextNonSpace() != 'n') return false;
  std::string word;
  while (word.size() < 4 && PeekNextChar() >= 'a' && PeekNextChar() <= 'z') {
    word.push_back(static_cast<char>(NextChar()));
  }
  if (word != "null") Fail("expected null but found '" + word + "'");
  return true;
}

void JSONReader::BeginObject() {
  Expect('{', "to begin an object");
  scope_counter_.push_back(0);
}

void JSONReader::BeginArray() {
  Expect('[', "to begin an array");
  scope_counter_.push_back(0);
}

bool JSONReader::NextObjectItem(std::string* out_key) {
  if (scope_counter_.empty()) Fail("NextObjectItem called outside an object");
  if (scope_counter_.back() != 0) {
    const int ch = NextNonSpace();
    if (ch == '}') {
      scope_counter_.pop_back();
      return false;
    }
    if (ch != ',') Fail("expected ',' or '}' in an object but found " + DescribeChar(ch));
  } else if (PeekNextNonSpace() == '}') {
    NextChar();
    scope_counter_.pop_back();
    return false;
  }
  ++scope_counter_.back();
  ReadString(out_key);
  Expect(':', "after an object key");
  return true;
}

bool JSONReader::NextArrayItem() {
  if (scope_counter_.empty()) Fail("NextArrayItem called outside an array");
  if (scope_counter_.back() != 0) {
    const int ch = NextNonSpace();
    if (ch == ']') {
      scope_counter_.pop_back();
      return false;
    }
    if (ch != ',') Fail("expected ',' or ']' in an array but found " + DescribeChar(ch));
  } else if (PeekNextNonSpace() == ']') {
    NextChar();
    scope_counter_.pop_back();
    return false;
  }
  ++scope_counter_.back();
  return true;
}

void JSONReader::ExpectEndOfInput() {
  const int ch = PeekNextNonSpace();
  if (ch != EOF) Fail("expected end of input but found " + DescribeChar(ch));
}

// ----------------------------------------------------------------------------- helper

// ----------------------------------------------------------------------------- any

namespace json {

AnyJSONManager* AnyJSONManager::Global() {
  static AnyJSONManager* const manager = new AnyJSONManager();  // never destroyed
  return manager;
}

void AnyJSONManager::Register(std::type_index type, Entry entry) {
  const auto known = key_of_type_.find(type);
  if (known != key_of_type_.end()) {
    CHECK(known->second == entry.key)
        << "DMLC_JSON_ENABLE_ANY: type " << type.name() << " is already enabled as '"
        << known->second << "', not '" << entry.key << "'";
    return;
  }
  CHECK(entry_of_key_.count(entry.key) == 0)
      << "DMLC_JSON_ENABLE_ANY: the key '" << entry.key << "' already names another type";
  key_of_type_.emplace(type, entry.key);
  entry_of_key_.emplace(entry.key, std::move(entry));
}

void AnyJSONManager::Write(JSONWriter* writer, const any& value) const {
  CHECK(value.has_value()) << "JSONWriter: an empty dmlc::any has no JSON form";
  const auto known = key_of_type_.find(std::type_index(value.type()));
  CHECK(known != key_of_type_.end())
      << "JSONWriter: dmlc::any holding " << value.type().name()
      << ", a type not enabled with DMLC_JSON_ENABLE_ANY";
  writer->BeginArray(/*multi_line=*/false);
  writer->WriteArrayItem(known->second);
  writer->WriteArraySeperator();
  entry_of_key_.at(known->second).write(writer, value);
  writer->EndArray();
}

void AnyJSONManager::Read(JSONReader* reader, any* value) const {
  reader->BeginArray();
  if (!reader->NextArrayItem()) reader->Fail("expected [\"type key\", value] for a dmlc::any");
  std::string key;
  reader->ReadString(&key);
  const auto entry = entry_of_key_.find(key);
  if (entry == entry_of_key_.end()) {
    reader->Fail("dmlc::any of type key '" + key + "', which no DMLC_JSON_ENABLE_ANY enabled");
  }
  if (!reader->NextArrayItem()) reader->Fail("expected a value after the type key '" + key + "'");
  entry->second.read(reader, value);
  if (reader->NextArrayItem()) reader->Fail("expected ']' after the dmlc::any's value");
}

}  // namespace json

void JSONObjectReadHelper::ReadAllFields(JSONReader* reader) {
  reader->BeginObject();
  std::set<std::string> seen;
  std::string key;
  while (reader->NextObjectItem(&key)) {
    const auto it = map_.find(key);
    if (it == map_.end()) {
      std::string expected;
      for (const auto& [name, entry] : map_) {
        expected += (expected.empty() ? "'" : ", '") + name + "'";
      }
      reader->Fail("unknown field '" + key + "'; expected one of: " + expected);
    }
    if (!seen.insert(key).second) reader->Fail("field '" + key + "' appears twice");
    it->second.read(reader, it->second.addr);
  }
  for (const auto& [name, entry] : map_) {
    if (!entry.optional && seen.count(name) == 0) {
      reader->Fail("missing required field '" + name + "'");
    }
  }
}

}  // namespace dmlc
