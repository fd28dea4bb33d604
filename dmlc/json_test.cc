#include "dmlc/json.h"

#include <cstdint>
#include <limits>
#include <list>
#include <map>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dmlc {
namespace {

using ::testing::HasSubstr;

template <typename T>
std::string ToJson(const T& value) {
  std::ostringstream os;
  JSONWriter writer(&os);
  writer.Write(value);
  return os.str();
}

template <typename T>
T FromJson(const std::string& text) {
  std::istringstream is(text);
  JSONReader reader(&is);
  std::remove_const_t<T> value{};
  reader.Read(&value);
  reader.ExpectEndOfInput();
  return value;
}

// The message of the dmlc::Error that writing `value` throws.
template <typename T>
std::string WriteError(const T& value) {
  try {
    ToJson(value);
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error writing";
  return "";
}

// The message of the dmlc::Error that reading `text` as T throws.
template <typename T>
std::string ReadError(const std::string& text) {
  try {
    FromJson<T>(text);
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error reading: " << text;
  return "";
}

TEST(JsonWriterTest, ScalarsAndContainers) {
  EXPECT_EQ(ToJson(std::string("relu")), "\"relu\"");
  EXPECT_EQ(ToJson(true), "true");
  EXPECT_EQ(ToJson(-3), "-3");
  EXPECT_EQ(ToJson(0.1f), "0.1");
  EXPECT_EQ(ToJson(std::vector<int64_t>{4, 16}), "[4, 16]");
  EXPECT_EQ(ToJson(std::vector<int>{}), "[]");
  EXPECT_EQ(ToJson(optional<int>()), "null");
  EXPECT_EQ(ToJson(std::map<std::string, int>{{"a", 1}}), "{\"a\": 1}");
  EXPECT_EQ(ToJson(std::map<std::string, int>{{"a", 1}, {"b", 2}}),
            "{\n  \"a\": 1, \n  \"b\": 2\n}");
  EXPECT_EQ(ToJson(std::make_pair(std::string("k"), 2.5)), "[\n  \"k\", \n  2.5\n]");
  EXPECT_EQ(ToJson(std::list<int>{1, 2, 3}), "[1, 2, 3]");
}

TEST(JsonWriterTest, EscapesStrings) {
  EXPECT_EQ(ToJson(std::string("a\"b\\c\nd\te\x01")), "\"a\\\"b\\\\c\\nd\\te\\u0001\"");
  EXPECT_EQ(ToJson(std::string("caf\xc3\xa9")), "\"caf\xc3\xa9\"") << "UTF-8 passes through";
}

TEST(JsonWriterTest, NonFiniteNumbersAreAnError) {
  std::ostringstream os;
  JSONWriter writer(&os);
  EXPECT_THROW(writer.Write(std::numeric_limits<double>::infinity()), Error);
  EXPECT_THROW(writer.Write(std::numeric_limits<float>::quiet_NaN()), Error);
}

// dmlc-core's layout, byte for byte: ", " between items (also before a newline), two spaces
// of indentation per level, arrays of more than 10 plain values or of anything else
// (strings, containers) one item per line, objects of more than one member likewise.
TEST(JsonWriterTest, LayoutMatchesDmlcCore) {
  std::ostringstream os;
  JSONWriter writer(&os);
  writer.BeginObject();
  writer.WriteObjectKeyValue("name", std::string("fc"));
  writer.WriteObjectKeyValue("inputs", std::vector<std::string>{"data", "weight"});
  writer.WriteObjectKeyValue("shape", std::vector<int>{4, 16});
  writer.WriteObjectKeyValue("ids", std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
  writer.WriteObjectKeyValue("empty", std::vector<std::string>{});
  writer.WriteObjectKeyValue("attrs", std::map<std::string, std::string>{{"k", "v"}});
  writer.EndObject();
  EXPECT_EQ(os.str(),
            "{\n"
            "  \"name\": \"fc\", \n"
            "  \"inputs\": [\n"
            "    \"data\", \n"
            "    \"weight\"\n"
            "  ], \n"
            "  \"shape\": [4, 16], \n"
            "  \"ids\": [\n"
            "    0, \n    1, \n    2, \n    3, \n    4, \n    5, \n    6, \n    7, \n    8, \n"
            "    9, \n    10\n"
            "  ], \n"
            "  \"empty\": [], \n"
            "  \"attrs\": {\"k\": \"v\"}\n"
            "}");
}

TEST(JsonWriterTest, TopLevelArrayItemsStartOnTheirOwnLine) {
  std::ostringstream os;
  JSONWriter writer(&os);
  writer.BeginArray();
  writer.WriteArrayItem(1);
  writer.WriteArrayItem(std::vector<int>{2, 3});
  writer.EndArray();
  EXPECT_EQ(os.str(), "[\n  1, \n  [2, 3]\n]");
}

TEST(JsonRoundTripTest, EveryHandledType) {
  const std::map<std::string, std::vector<double>> nested = {{"x", {1.5, -2e-300, 3}},
                                                             {"y", {}}};
  EXPECT_EQ(FromJson<decltype(nested)>(ToJson(nested)), nested);
  const std::unordered_map<std::string, std::string> attrs = {{"k", "v"}, {"empty", ""}};
  EXPECT_EQ(FromJson<decltype(attrs)>(ToJson(attrs)), attrs);
  const std::vector<optional<int>> opts = {optional<int>(1), optional<int>(), optional<int>(-7)};
  EXPECT_EQ(FromJson<decltype(opts)>(ToJson(opts)), opts);
  const std::vector<std::pair<std::string, bool>> pairs = {{"a", true}, {"b", false}};
  EXPECT_EQ(FromJson<decltype(pairs)>(ToJson(pairs)), pairs);
  const uint64_t big = std::numeric_limits<uint64_t>::max();
  EXPECT_EQ(FromJson<uint64_t>(ToJson(big)), big);
  const float third = 1.0f / 3.0f;
  EXPECT_EQ(FromJson<float>(ToJson(third)), third);
}

TEST(JsonRoundTripTest, Lists) {
  const std::list<std::string> names = {"a", "b", "c"};
  EXPECT_EQ(FromJson<decltype(names)>(ToJson(names)), names);
}

}  // namespace

// Enabled at namespace scope, as dmlc-core's users do.
DMLC_JSON_ENABLE_ANY(int, Int);
DMLC_JSON_ENABLE_ANY(std::vector<std::string>, StringList);

namespace {

TEST(JsonAnyTest, WritesTypeKeyAndValueAndReadsThemBack) {
  const any number = 42;
  EXPECT_EQ(ToJson(number), "[\"Int\", 42]");
  const std::map<std::string, any> dict = {
      {"count", any(7)}, {"names", any(std::vector<std::string>{"x", "y"})}};
  const auto back = FromJson<std::map<std::string, any>>(ToJson(dict));
  EXPECT_EQ(get<int>(back.at("count")), 7);
  EXPECT_EQ(get<std::vector<std::string>>(back.at("names")),
            (std::vector<std::string>{"x", "y"}));
  EXPECT_THROW(get<double>(back.at("count")), Error) << "wrong type";
}

TEST(JsonAnyTest, TypesNotEnabledAreClearErrors) {
  EXPECT_THAT(WriteError(any(2.5)), HasSubstr("not enabled with DMLC_JSON_ENABLE_ANY"));
  EXPECT_THAT(WriteError(any()), HasSubstr("empty dmlc::any"));
  EXPECT_THAT(ReadError<any>("[\"Float\", 2.5]"), HasSubstr("type key 'Float'"));
  EXPECT_THAT(ReadError<any>("[\"Int\"]"), HasSubstr("expected a value"));
  EXPECT_THAT(ReadError<any>("[\"Int\", 1, 2]"), HasSubstr("expected ']'"));
  EXPECT_THROW(json::AnyJSONManager::Global()->EnableType<double>("Int"), Error)
      << "a key names one type";
}

TEST(JsonRoundTripTest, StringsWithQuotesControlCharactersAndUnicode) {
  const std::string text = "say \"hi\"\\ \n\r\t\b\f\x1f caf\xc3\xa9 \xf0\x9f\x98\x80";
  EXPECT_EQ(FromJson<std::string>(ToJson(text)), text);
}

TEST(JsonReaderTest, UnicodeEscapes) {
  EXPECT_EQ(FromJson<std::string>("\"\\u0041\\u00e9\\u4e2d\""), "A\xc3\xa9\xe4\xb8\xad");
  EXPECT_EQ(FromJson<std::string>("\"\\ud83d\\ude00\""), "\xf0\x9f\x98\x80")
      << "a surrogate pair is one code point";
  EXPECT_EQ(FromJson<std::string>("\"\\/\""), "/");
}

TEST(JsonReaderTest, WhitespaceAnywhereBetweenTokens) {
  const auto m = FromJson<std::map<std::string, std::vector<int>>>(
      " \n{ \"a\" :\t[ 1 , 2 ] ,\r\n \"b\":[] }  \n");
  EXPECT_EQ(m.at("a"), (std::vector<int>{1, 2}));
  EXPECT_TRUE(m.at("b").empty());
}

TEST(JsonReaderTest, MalformedInputSaysWhereAndWhat) {
  EXPECT_THAT((ReadError<std::map<std::string, int>>("{\"a\": 1,\n \"b\" 2}")),
              HasSubstr("line 2, column 6: expected ':' after an object key but found '2'"));
  EXPECT_THAT(ReadError<std::vector<int>>("[1, 2"),
              HasSubstr("expected ',' or ']' in an array but found end of input"));
  EXPECT_THAT(ReadError<std::vector<int>>("[1 2]"),
              HasSubstr("expected ',' or ']' in an array but found '2'"));
  EXPECT_THAT(ReadError<std::string>("\"abc"), HasSubstr("unterminated string"));
  EXPECT_THAT(ReadError<std::string>("abc"), HasSubstr("expected a string but found 'a'"));
  EXPECT_THAT(ReadError<std::string>("\"\\x\""), HasSubstr("invalid escape \\'x'"));
  EXPECT_THAT(ReadError<std::string>("\"\\u12g4\""), HasSubstr("expected 4 hex digits"));
  EXPECT_THAT(ReadError<std::string>("\"\\ud83d\""), HasSubstr("not followed by a low surrogate"));
  EXPECT_THAT(ReadError<std::string>("\"\\ude00\""), HasSubstr("unpaired low surrogate"));
  EXPECT_THAT(ReadError<std::string>("\"a\nb\""), HasSubstr("control character"));
  EXPECT_THAT(ReadError<int>("1.5"), HasSubstr("expected int but found '1.5'"));
  EXPECT_THAT(ReadError<int>("3000000000"), HasSubstr("3000000000 is out of range for int"));
  EXPECT_THAT(ReadError<float>("1e99"), HasSubstr("out of range for float"));
  EXPECT_THAT(ReadError<int>("x"), HasSubstr("expected a number but found 'x'"));
  EXPECT_THAT(ReadError<bool>("yes"), HasSubstr("expected true or false but found 'yes'"));
  EXPECT_THAT(ReadError<optional<int>>("nul"), HasSubstr("expected null but found 'nul'"));
  EXPECT_THAT(ReadError<int>("1 2"), HasSubstr("expected end of input but found '2'"));
  EXPECT_THAT((ReadError<std::pair<int, int>>("[1]")), HasSubstr("found one"));
  EXPECT_THAT((ReadError<std::map<std::string, int>>("[]")),
              HasSubstr("expected '{' to begin an object but found '['"));
  EXPECT_THAT(ReadError<int>(std::string(100, '1')), HasSubstr("more than 64 characters"));
}

struct Record {
  std::string name;
  std::vector<int64_t> shape;
  optional<double> scale;
  void Save(JSONWriter* writer) const {
    writer->BeginObject();
    writer->WriteObjectKeyValue("name", name);
    writer->WriteObjectKeyValue("shape", shape);
    if (scale.has_value()) writer->WriteObjectKeyValue("scale", *scale);
    writer->EndObject();
  }
  void Load(JSONReader* reader) {
    JSONObjectReadHelper helper;
    helper.DeclareField("name", &name);
    helper.DeclareField("shape", &shape);
    helper.DeclareOptionalField("scale", &scale);
    helper.ReadAllFields(reader);
  }
};

TEST(JsonObjectReadHelperTest, ClassesThatSaveAndLoadThemselves) {
  const std::vector<Record> records = {{"fc", {4, 16}, 0.5}, {"relu", {}, {}}};
  const auto back = FromJson<std::vector<Record>>(ToJson(records));
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].name, "fc");
  EXPECT_EQ(back[0].shape, (std::vector<int64_t>{4, 16}));
  EXPECT_EQ(back[0].scale, optional<double>(0.5));
  EXPECT_FALSE(back[1].scale.has_value());
}

TEST(JsonObjectReadHelperTest, UnknownMissingAndRepeatedFieldsAreNamed) {
  EXPECT_THAT(ReadError<Record>("{\"name\": \"a\", \"shape\": [], \"colour\": 1}"),
              HasSubstr("unknown field 'colour'; expected one of: 'name', 'scale', 'shape'"));
  EXPECT_THAT(ReadError<Record>("{\"name\": \"a\"}"), HasSubstr("missing required field 'shape'"));
  EXPECT_THAT(ReadError<Record>("{\"name\": \"a\", \"name\": \"b\", \"shape\": []}"),
              HasSubstr("field 'name' appears twice"));
}

}  // namespace
}  // namespace dmlc
