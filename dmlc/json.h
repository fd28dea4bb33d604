// dmlc/json.h: JSON reading and writing over std::istream / std::ostream, dmlc-core's API.
//
//   std::ostringstream out;
//   dmlc::JSONWriter writer(&out);
//   writer.BeginObject();
//   writer.WriteObjectKeyValue("name", std::string("relu"));
//   writer.WriteObjectKeyValue("shape", std::vector<int64_t>{4, 16});
//   writer.EndObject();
//
//   std::istringstream in(out.str());
//   dmlc::JSONReader reader(&in);
//   std::map<std::string, std::string> dict;
//   reader.Read(&dict);   // throws dmlc::Error "JSON: line 1, column 9: expected ..." if malformed
//
// Values that read and write themselves: std::string, bool, every arithmetic type,
// std::vector, std::list, std::pair, std::map / std::unordered_map with string keys,
// dmlc::any (types enabled by DMLC_JSON_ENABLE_ANY), dmlc::optional
// (null when empty), and any class with `void Save(dmlc::JSONWriter*) const` and
// `void Load(dmlc::JSONReader*)`. Specialize dmlc::json::Handler<T> for other types.
//
// Strings are UTF-8; the reader decodes \uXXXX escapes (surrogate pairs included) and the
// writer escapes quotes, backslashes and control characters. Non-finite numbers have no
// JSON form: writing one is a dmlc::Error.
#ifndef DMLC_JSON_H_
#define DMLC_JSON_H_

#include <cstddef>
#include <istream>
#include <list>
#include <map>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>
#include <typeindex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "dmlc/any.h"
#include "dmlc/base.h"
#include "dmlc/logging.h"
#include "dmlc/optional.h"
#include "dmlc/strtonum.h"
#include "dmlc/type_traits.h"

namespace dmlc {

class JSONReader;
class JSONWriter;

namespace json {

// How a type reads and writes itself; specialized below, and by users for their types.
template <typename T, typename Enable = void>
struct Handler;

}  // namespace json

class JSONWriter {
 public:
  explicit JSONWriter(std::ostream* os) : os_(os) {}

  // Writes `s` in quotes, escaping what JSON requires.
  void WriteString(std::string_view s);
  // Writes `s` in quotes as it is; for text known to need no escapes (keys, type names).
  void WriteNoEscape(std::string_view s);
  // Writes a JSON literal as it is: true, false, null.
  void WriteLiteral(std::string_view literal);
  // Writes an integer or the shortest exact form of a finite floating point number.
  template <typename ValueType>
  void WriteNumber(const ValueType& value);

  // Arrays and objects; multi_line puts each item on its own indented line.
  void BeginArray(bool multi_line = true);
  void EndArray();
  void BeginObject(bool multi_line = true);
  void EndObject();

  template <typename ValueType>
  void WriteObjectKeyValue(std::string_view key, const ValueType& value);
  // Starts the next array item (a comma after the first); for items written by hand.
  void WriteArraySeperator();  // dmlc-core's spelling
  template <typename ValueType>
  void WriteArrayItem(const ValueType& value);

  // Writes any value json::Handler knows.
  template <typename ValueType>
  void Write(const ValueType& value);

 private:
  // Newline and indentation inside a multi-line scope (and at the top level); nothing
  // otherwise.
  void WriteSeparator();

  std::ostream* os_;
  std::vector<size_t> scope_counter_;
  std::vector<bool> scope_multi_line_;
};

class JSONReader {
 public:
  explicit JSONReader(std::istream* is) : is_(is) {}

  void ReadString(std::string* out_str);
  // Reads a number into any arithmetic type; an integer target rejects fractions and
  // values out of its range.
  template <typename ValueType>
  void ReadNumber(ValueType* out_value);
  void ReadBool(bool* out_value);
  // Consumes `null` if it comes next and says whether it did.
  bool ReadNullIfPresent();

  void BeginObject();
  void BeginArray();
  // Advances to the next key of the current object; false (and the object closed) at '}'.
  bool NextObjectItem(std::string* out_key);
  // Advances to the next item of the current array; false (and the array closed) at ']'.
  bool NextArrayItem();

  // Reads any value json::Handler knows.
  template <typename ValueType>
  void Read(ValueType* out_value);

  // Checks that only whitespace remains; call after reading a whole document.
  void ExpectEndOfInput();

  // "line 3, column 7": where the reader is, for messages.
  std::string line_info() const;

  // Throws dmlc::Error with the position and `what`.
  [[noreturn]] void Fail(std::string_view what) const;

 private:
  int NextChar();
  int PeekNextChar();
  int NextNonSpace();
  int PeekNextNonSpace();
  // Consumes `ch` (after whitespace) or fails naming `context`.
  void Expect(char ch, std::string_view context);
  // The characters of a number token, at most `capacity` of them, into `buffer`.
  size_t ReadNumberToken(char* buffer, size_t capacity);
  void AppendUnicodeEscape(std::string* out);
  unsigned ReadHex4();

  std::istream* is_;
  size_t line_ = 1;
  size_t column_ = 0;
  std::vector<size_t> scope_counter_;
};

// Reads an object into declared fields: a missing required key, an unknown key or a
// repeated key is an error that names the key.
//
//   JSONObjectReadHelper helper;
//   helper.DeclareField("name", &name);
//   helper.DeclareOptionalField("attrs", &attrs);
//   helper.ReadAllFields(&reader);
class JSONObjectReadHelper {
 public:
  template <typename ValueType>
  void DeclareField(const std::string& key, ValueType* addr) {
    DeclareFieldInternal(key, addr, /*optional=*/false);
  }
  template <typename ValueType>
  void DeclareOptionalField(const std::string& key, ValueType* addr) {
    DeclareFieldInternal(key, addr, /*optional=*/true);
  }
  void ReadAllFields(JSONReader* reader);

 private:
  using ReadFunction = void (*)(JSONReader* reader, void* addr);
  struct Entry {
    ReadFunction read;
    void* addr;
    bool optional;
  };
  template <typename ValueType>
  static void ReaderFunction(JSONReader* reader, void* addr) {
    reader->Read(static_cast<ValueType*>(addr));
  }
  template <typename ValueType>
  void DeclareFieldInternal(const std::string& key, ValueType* addr, bool optional) {
    CHECK_EQ(map_.count(key), 0U) << "JSONObjectReadHelper: field '" << key
                                  << "' is declared twice";
    map_[key] = Entry{&ReaderFunction<ValueType>, addr, optional};
  }

  std::map<std::string, Entry> map_;
};

// ---------------------------------------------------------------------------------------
// Implementation of the templates.

template <typename ValueType>
void JSONWriter::WriteNumber(const ValueType& value) {
  static_assert(is_arithmetic<ValueType>::value, "WriteNumber takes integers and floats");
  if constexpr (std::is_floating_point_v<ValueType>) {
    CHECK(value - value == 0) << "JSON has no form for the number " << value
                              << "; only finite numbers can be written";
  }
  WriteLiteral(NumberToString(value));
}

template <typename ValueType>
void JSONWriter::WriteObjectKeyValue(std::string_view key, const ValueType& value) {
  CHECK(!scope_counter_.empty()) << "JSONWriter: object member outside an object";
  if (scope_counter_.back() > 0) *os_ << ", ";
  WriteSeparator();
  WriteString(key);
  *os_ << ": ";
  ++scope_counter_.back();
  Write(value);
}

template <typename ValueType>
void JSONWriter::WriteArrayItem(const ValueType& value) {
  WriteArraySeperator();
  Write(value);
}

template <typename ValueType>
void JSONWriter::Write(const ValueType& value) {
  json::Handler<ValueType>::Write(this, value);
}

template <typename ValueType>
void JSONReader::ReadNumber(ValueType* out_value) {
  static_assert(is_arithmetic<ValueType>::value, "ReadNumber takes integers and floats");
  char token[64];
  const size_t length = ReadNumberToken(token, sizeof(token));
  switch (ParseNumber(std::string_view(token, length), out_value)) {
    case ParseStatus::kOk:
      return;
    case ParseStatus::kOutOfRange:
      Fail("number " + std::string(token, length) + " is out of range for " +
           type_name<ValueType>());
    case ParseStatus::kInvalid:
      Fail("expected " + std::string(type_name<ValueType>()) + " but found '" +
           std::string(token, length) + "'");
  }
}

template <typename ValueType>
void JSONReader::Read(ValueType* out_value) {
  json::Handler<ValueType>::Read(this, out_value);
}

namespace json {

template <>
struct Handler<std::string> {
  static void Write(JSONWriter* writer, const std::string& value) { writer->WriteString(value); }
  static void Read(JSONReader* reader, std::string* value) { reader->ReadString(value); }
};

template <>
struct Handler<bool> {
  static void Write(JSONWriter* writer, bool value) {
    writer->WriteLiteral(value ? "true" : "false");
  }
  static void Read(JSONReader* reader, bool* value) { reader->ReadBool(value); }
};

template <typename T>
struct Handler<T, std::enable_if_t<is_arithmetic<T>::value>> {
  static void Write(JSONWriter* writer, const T& value) { writer->WriteNumber(value); }
  static void Read(JSONReader* reader, T* value) { reader->ReadNumber(value); }
};

// Arrays: std::vector and std::list. As in dmlc-core, an array goes on one line when it
// holds at most 10 plain values (is_pod), one item per line otherwise.
template <typename Container>
struct ArrayHandler {
  using Item = typename Container::value_type;
  static void Write(JSONWriter* writer, const Container& array) {
    writer->BeginArray(/*multi_line=*/array.size() > 10 || !is_pod<Item>::value);
    for (const Item& item : array) writer->WriteArrayItem(item);
    writer->EndArray();
  }
  static void Read(JSONReader* reader, Container* array) {
    array->clear();
    reader->BeginArray();
    while (reader->NextArrayItem()) {
      Item item;
      reader->Read(&item);
      array->push_back(std::move(item));
    }
  }
};
template <typename T>
struct Handler<std::vector<T>> : ArrayHandler<std::vector<T>> {};
template <typename T>
struct Handler<std::list<T>> : ArrayHandler<std::list<T>> {};

template <typename A, typename B>
struct Handler<std::pair<A, B>> {
  static void Write(JSONWriter* writer, const std::pair<A, B>& pair) {
    writer->BeginArray();  // multi-line, as dmlc-core writes pairs
    writer->WriteArrayItem(pair.first);
    writer->WriteArrayItem(pair.second);
    writer->EndArray();
  }
  static void Read(JSONReader* reader, std::pair<A, B>* pair) {
    reader->BeginArray();
    if (!reader->NextArrayItem()) reader->Fail("expected a pair of two items, found none");
    reader->Read(&pair->first);
    if (!reader->NextArrayItem()) reader->Fail("expected a pair of two items, found one");
    reader->Read(&pair->second);
    if (reader->NextArrayItem()) reader->Fail("expected a pair of two items, found more");
  }
};

// Objects with string keys: std::map and std::unordered_map.
template <typename MapType>
struct StringKeyMapHandler {
  static void Write(JSONWriter* writer, const MapType& map) {
    writer->BeginObject(/*multi_line=*/map.size() > 1);
    for (const auto& [key, value] : map) writer->WriteObjectKeyValue(key, value);
    writer->EndObject();
  }
  static void Read(JSONReader* reader, MapType* map) {
    map->clear();
    reader->BeginObject();
    std::string key;
    while (reader->NextObjectItem(&key)) reader->Read(&(*map)[key]);
  }
};
template <typename V>
struct Handler<std::map<std::string, V>> : StringKeyMapHandler<std::map<std::string, V>> {};
template <typename V>
struct Handler<std::unordered_map<std::string, V>>
    : StringKeyMapHandler<std::unordered_map<std::string, V>> {};

template <typename T>
struct Handler<optional<T>> {
  static void Write(JSONWriter* writer, const optional<T>& value) {
    if (value.has_value()) {
      writer->Write(*value);
    } else {
      writer->WriteLiteral("null");
    }
  }
  static void Read(JSONReader* reader, optional<T>* value) {
    if (reader->ReadNullIfPresent()) {
      value->reset();
      return;
    }
    T item;
    reader->Read(&item);
    *value = std::move(item);
  }
};

// dmlc::any: written as ["KeyName", value] for the types DMLC_JSON_ENABLE_ANY enabled.
class AnyJSONManager {
 public:
  static AnyJSONManager* Global();

  // Enables Type under `key`; enabling the same pair again is harmless, a clash an Error.
  template <typename T>
  AnyJSONManager& EnableType(const std::string& key) {
    Entry entry{key, &ReadAny<T>, &WriteAny<T>};
    Register(std::type_index(typeid(T)), std::move(entry));
    return *this;
  }

  void Write(JSONWriter* writer, const any& value) const;
  void Read(JSONReader* reader, any* value) const;

 private:
  struct Entry {
    std::string key;
    void (*read)(JSONReader* reader, any* value);
    void (*write)(JSONWriter* writer, const any& value);
  };
  template <typename T>
  static void ReadAny(JSONReader* reader, any* value) {
    T item;
    reader->Read(&item);
    *value = std::move(item);
  }
  template <typename T>
  static void WriteAny(JSONWriter* writer, const any& value) {
    writer->Write(get<T>(value));
  }
  void Register(std::type_index type, Entry entry);

  std::unordered_map<std::type_index, std::string> key_of_type_;
  std::unordered_map<std::string, Entry> entry_of_key_;
};

template <>
struct Handler<any> {
  static void Write(JSONWriter* writer, const any& value) {
    AnyJSONManager::Global()->Write(writer, value);
  }
  static void Read(JSONReader* reader, any* value) { AnyJSONManager::Global()->Read(reader, value); }
};

// Classes that save and load themselves.
template <typename T>
struct Handler<T, std::void_t<decltype(std::declval<const T&>().Save(
                                  std::declval<JSONWriter*>())),
                              decltype(std::declval<T&>().Load(std::declval<JSONReader*>()))>> {
  static void Write(JSONWriter* writer, const T& value) { value.Save(writer); }
  static void Read(JSONReader* reader, T* value) { value->Load(reader); }
};

}  // namespace json
}  // namespace dmlc

// Lets dmlc::any values of Type be written and read as JSON, tagged with KeyName (which a
// reader must have enabled for the same type). At namespace scope, once per type:
//   DMLC_JSON_ENABLE_ANY(std::vector<int>, IntVector);
#define DMLC_JSON_ENABLE_ANY(Type, KeyName)                                                \
  static DMLC_ATTRIBUTE_UNUSED ::dmlc::json::AnyJSONManager& DMLC_STR_CONCAT(              \
      dmlc_json_enable_any_##KeyName##_, __COUNTER__) =                                     \
      ::dmlc::json::AnyJSONManager::Global()->EnableType<Type>(#KeyName)

#endif  // DMLC_JSON_H_
