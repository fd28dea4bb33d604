#include "dmlc/parameter.h"

#include <cmath>
#include <cstdint>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using KwargVector = std::vector<std::pair<std::string, std::string>>;

// The example of the seed notes, verbatim.
struct Param : public dmlc::Parameter<Param> {
  float learning_rate;
  int num_hidden;
  std::string name;
  // declare parameters in header file
  DMLC_DECLARE_PARAMETER(Param) {
    DMLC_DECLARE_FIELD(num_hidden).set_range(0, 1000);
    DMLC_DECLARE_FIELD(learning_rate).set_default(0.01f);
    DMLC_DECLARE_FIELD(name).set_default("hello");
  }
};

// Every field kind, with docs, enums, optionals and an alias.
struct LayerParam : public dmlc::Parameter<LayerParam> {
  int num_hidden;
  int act_type;
  float slope;
  double momentum;
  bool no_bias;
  std::string prefix;
  dmlc::optional<int> axis;
  dmlc::optional<int> pool;
  dmlc::optional<float> clip;
  int64_t seed;
  uint32_t workers;
  uint64_t budget;
  size_t cache;
  DMLC_DECLARE_PARAMETER(LayerParam) {
    DMLC_DECLARE_FIELD(num_hidden).set_lower_bound(1).describe("Number of output units.");
    DMLC_DECLARE_FIELD(act_type)
        .add_enum("relu", 0)
        .add_enum("sigmoid", 1)
        .add_enum("tanh", 2)
        .set_default(0)
        .describe("Activation function.");
    DMLC_DECLARE_FIELD(slope).set_range(0.0f, 1.0f).set_default(0.25f);
    DMLC_DECLARE_FIELD(momentum).set_upper_bound(1.0).set_default(0.9);
    DMLC_DECLARE_FIELD(no_bias).set_default(false);
    DMLC_DECLARE_FIELD(prefix).set_default("layer");
    DMLC_DECLARE_FIELD(axis).set_default(dmlc::optional<int>());
    DMLC_DECLARE_FIELD(pool).add_enum("max", 0).add_enum("avg", 1).set_default(
        dmlc::optional<int>());
    DMLC_DECLARE_FIELD(clip).set_default(dmlc::optional<float>(1.5f));
    DMLC_DECLARE_FIELD(seed).set_default(-1);
    DMLC_DECLARE_FIELD(workers).set_default(1);
    DMLC_DECLARE_FIELD(budget).set_default(0);
    DMLC_DECLARE_FIELD(cache).set_default(64);
    DMLC_DECLARE_ALIAS(num_hidden, nhidden);
  }
};

// A struct that cannot be copied is updated in place (no transaction possible).
struct MoveOnlyParam : public dmlc::Parameter<MoveOnlyParam> {
  int k;
  std::unique_ptr<int> scratch;
  DMLC_DECLARE_PARAMETER(MoveOnlyParam) { DMLC_DECLARE_FIELD(k).set_default(1); }
};

}  // namespace

DMLC_REGISTER_PARAMETER(Param);
DMLC_REGISTER_PARAMETER(LayerParam);
DMLC_REGISTER_PARAMETER(MoveOnlyParam);

namespace {

// The message of the ParamError that Init(kwargs) throws.
std::string InitError(const KwargVector& kwargs) {
  LayerParam param;
  try {
    param.Init(kwargs);
  } catch (const dmlc::ParamError& e) {
    return e.what();
  }
  ADD_FAILURE() << "Init did not throw";
  return "";
}

TEST(ParameterTest, SeedExample) {
  Param param;
  KwargVector param_data = {{"num_hidden", "100"}, {"learning_rate", "0.1f"}, {"name", "MyNet"}};
  param.Init(param_data);
  EXPECT_EQ(param.num_hidden, 100);
  EXPECT_EQ(param.learning_rate, 0.1f);
  EXPECT_EQ(param.name, "MyNet");

  param.Init(std::map<std::string, std::string>{{"num_hidden", "3"}});
  EXPECT_EQ(param.learning_rate, 0.01f) << "fields not given take their defaults";
  EXPECT_EQ(param.name, "hello");
}

TEST(ParameterTest, AcceptsAnyContainerOfStringPairs) {
  LayerParam param;
  param.Init(std::unordered_map<std::string, std::string>{{"num_hidden", "5"}});
  EXPECT_EQ(param.num_hidden, 5);
  param.Init({{"num_hidden", "6"}});
  EXPECT_EQ(param.num_hidden, 6);
}

TEST(ParameterTest, EveryFieldTypeParses) {
  LayerParam p;
  p.Init({{"num_hidden", " 64 "},
          {"act_type", "tanh"},
          {"slope", "0.5f"},
          {"momentum", "-inf"},
          {"no_bias", "TRUE"},
          {"prefix", "  my layer  "},
          {"axis", "-1"},
          {"pool", "avg"},
          {"clip", "None"},
          {"seed", "-9000000000"},
          {"workers", "4294967295"},
          {"budget", "18446744073709551615"},
          {"cache", "+12"}});
  EXPECT_EQ(p.num_hidden, 64);
  EXPECT_EQ(p.act_type, 2);
  EXPECT_EQ(p.slope, 0.5f);
  EXPECT_TRUE(std::isinf(p.momentum) && p.momentum < 0);
  EXPECT_TRUE(p.no_bias);
  EXPECT_EQ(p.prefix, "  my layer  ") << "strings keep their spaces";
  EXPECT_EQ(p.axis, dmlc::optional<int>(-1));
  EXPECT_EQ(p.pool, dmlc::optional<int>(1));
  EXPECT_FALSE(p.clip.has_value());
  EXPECT_EQ(p.seed, -9000000000LL);
  EXPECT_EQ(p.workers, 4294967295u);
  EXPECT_EQ(p.budget, UINT64_MAX);
  EXPECT_EQ(p.cache, 12u);
}

TEST(ParameterTest, BoolsInAnyCase) {
  LayerParam p;
  for (const auto& [text, expected] : std::vector<std::pair<std::string, bool>>{
           {"true", true}, {"True", true}, {"TRUE", true}, {"1", true}, {"false", false},
           {"False", false}, {"fAlSe", false}, {"0", false}, {" true ", true}}) {
    p.Init({{"num_hidden", "1"}, {"no_bias", text}});
    EXPECT_EQ(p.no_bias, expected) << text;
  }
  EXPECT_EQ(InitError({{"num_hidden", "1"}, {"no_bias", "yes"}}),
            "Invalid Parameter format for no_bias expect boolean but value='yes'");
  EXPECT_EQ(InitError({{"num_hidden", "1"}, {"no_bias", "2"}}),
            "Invalid Parameter format for no_bias expect boolean but value='2'");
}

TEST(ParameterTest, StrictNumberErrors) {
  EXPECT_EQ(InitError({{"num_hidden", "3.5"}}),
            "Invalid Parameter format for num_hidden expect int but value='3.5'");
  EXPECT_EQ(InitError({{"num_hidden", "12abc"}}),
            "Invalid Parameter format for num_hidden expect int but value='12abc'");
  EXPECT_EQ(InitError({{"num_hidden", ""}}),
            "Invalid Parameter format for num_hidden expect int but value=''");
  EXPECT_EQ(InitError({{"num_hidden", "3000000000"}}),
            "Invalid Parameter value for num_hidden: '3000000000' is out of the range of int "
            "[-2147483648, 2147483647]");
  EXPECT_EQ(InitError({{"num_hidden", "1"}, {"slope", "1e100"}}),
            "Invalid Parameter value for slope: '1e100' is out of the range of float "
            "[-3.4028235e+38, 3.4028235e+38] with nonzero magnitudes from 1.1754944e-38");
  // Underflow, as in dmlc-core: the value typed would silently have become 0.
  EXPECT_EQ(InitError({{"num_hidden", "1"}, {"slope", "1e-100"}}),
            "Invalid Parameter value for slope: '1e-100' is out of the range of float "
            "[-3.4028235e+38, 3.4028235e+38] with nonzero magnitudes from 1.1754944e-38");
  EXPECT_EQ(InitError({{"num_hidden", "1"}, {"momentum", "1e-500"}}),
            "Invalid Parameter value for momentum: '1e-500' is out of the range of double "
            "[-1.7976931348623157e+308, 1.7976931348623157e+308] with nonzero magnitudes from "
            "2.2250738585072014e-308");
  EXPECT_EQ(InitError({{"num_hidden", "1"}, {"workers", "-1"}}),
            "Invalid Parameter value for workers: '-1' is out of the range of int (non-negative) "
            "[0, 4294967295]");
  EXPECT_EQ(InitError({{"num_hidden", "1"}, {"momentum", "0.5 0.6"}}),
            "Invalid Parameter format for momentum expect double but value='0.5 0.6'");
  EXPECT_EQ(InitError({{"num_hidden", "1"}, {"axis", "1.5"}}),
            "Invalid Parameter format for axis expect int or None but value='1.5'");
  EXPECT_EQ(InitError({{"num_hidden", "1"}, {"axis", "9999999999"}}),
            "Invalid Parameter value for axis: '9999999999' is out of the range of int or None "
            "[-2147483648, 2147483647] or None");
}

TEST(ParameterTest, RangeErrorsGiveValueAndBound) {
  EXPECT_EQ(InitError({{"num_hidden", "0"}}),
            "value 0 for Parameter num_hidden should be greater equal to 1\n"
            "num_hidden: Number of output units.");
  EXPECT_EQ(InitError({{"num_hidden", "1"}, {"slope", "1.5"}}),
            "value 1.5 for Parameter slope exceed bound [0,1]");
  EXPECT_EQ(InitError({{"num_hidden", "1"}, {"slope", "nan"}}),
            "value nan for Parameter slope exceed bound [0,1]")
      << "NaN is outside every range";
  EXPECT_EQ(InitError({{"num_hidden", "1"}, {"momentum", "2"}}),
            "value 2 for Parameter momentum should be smaller equal to 1");
  Param seed;
  try {
    seed.Init({{"num_hidden", "1001"}});
    FAIL();
  } catch (const dmlc::ParamError& e) {
    EXPECT_STREQ(e.what(), "value 1001 for Parameter num_hidden exceed bound [0,1000]");
  }
}

TEST(ParameterTest, MissingRequiredFieldIsNamed) {
  EXPECT_EQ(InitError({}), "Required parameter num_hidden of int is not presented");
}

TEST(ParameterTest, UnknownKeyIsNamedWithSuggestionAndDocs) {
  const std::string message = InitError({{"num_hiden", "3"}});
  EXPECT_THAT(message, StartsWith("Cannot find argument 'num_hiden' of LayerParam. Did you mean "
                                  "'num_hidden'? Possible Arguments:\n----------------\n"
                                  "num_hidden : int, required\n"
                                  "    Number of output units.\n"));
  EXPECT_THAT(message, HasSubstr("act_type : {'relu', 'sigmoid', 'tanh'}, optional, "
                                 "default='relu'\n    Activation function.\n"));
}

TEST(ParameterTest, EnumsSetAndPrintByNameAndListValidNames) {
  LayerParam p;
  p.Init({{"num_hidden", "1"}, {"act_type", "sigmoid"}});
  EXPECT_EQ(p.act_type, 1);
  EXPECT_EQ(p.__DICT__().at("act_type"), "sigmoid");
  EXPECT_EQ(InitError({{"num_hidden", "1"}, {"act_type", "softmax"}}),
            "Invalid Input: 'softmax' for act_type, valid values are: "
            "{'relu', 'sigmoid', 'tanh'}");
  EXPECT_EQ(InitError({{"num_hidden", "1"}, {"act_type", "1"}}),
            "Invalid Input: '1' for act_type, valid values are: {'relu', 'sigmoid', 'tanh'}")
      << "an enum takes names, not numbers";
  EXPECT_EQ(InitError({{"num_hidden", "1"}, {"pool", "min"}}),
            "Invalid Input: 'min' for pool, valid values are: {'avg', 'max'}");
}

TEST(ParameterTest, RepeatedEnumIsAnError) {
  dmlc::parameter::FieldEntry<int> entry;
  entry.add_enum("a", 0);
  EXPECT_THROW(entry.add_enum("a", 1), dmlc::ParamError);
  EXPECT_THROW(entry.add_enum("b", 0), dmlc::ParamError);
}

TEST(ParameterTest, AliasSetsTheSameField) {
  LayerParam p;
  p.Init({{"nhidden", "12"}});
  EXPECT_EQ(p.num_hidden, 12);
  const auto dict = p.__DICT__();
  EXPECT_EQ(dict.count("nhidden"), 0u) << "__DICT__ lists fields, not aliases";
  EXPECT_EQ(dict.at("num_hidden"), "12");
}

TEST(ParameterTest, HiddenAndUnknownKeysPerOption) {
  using dmlc::parameter::kAllMatch;
  using dmlc::parameter::kAllowHidden;
  using dmlc::parameter::kAllowUnknown;
  LayerParam p;
  const KwargVector hidden = {{"num_hidden", "2"}, {"__ctx__", "cpu"}};
  EXPECT_NO_THROW(p.Init(hidden));  // kAllowHidden is the default
  EXPECT_NO_THROW(p.Init(hidden, kAllowHidden));
  EXPECT_THROW(p.Init(hidden, kAllMatch), dmlc::ParamError);
  const KwargVector unknown = {{"num_hidden", "2"}, {"colour", "red"}};
  EXPECT_THROW(p.Init(unknown, kAllowHidden), dmlc::ParamError);
  EXPECT_NO_THROW(p.Init(unknown, kAllowUnknown));
  // Too short to be hidden: "____" has no name between the underscores.
  EXPECT_THROW(p.Init({{"num_hidden", "2"}, {"____", "x"}}), dmlc::ParamError);
}

TEST(ParameterTest, InitAllowUnknownReturnsTheRest) {
  LayerParam p;
  const auto rest = p.InitAllowUnknown(KwargVector{{"num_hidden", "2"}, {"lr", "0.1"}});
  EXPECT_EQ(p.num_hidden, 2);
  EXPECT_EQ(rest, (KwargVector{{"lr", "0.1"}}));
}

TEST(ParameterTest, FailedInitLeavesTheStructUnchanged) {
  LayerParam p;
  p.Init({{"num_hidden", "7"}, {"prefix", "before"}, {"slope", "0.5"}});
  const auto before = p.__DICT__();
  // Valid values first, then a bad one: none of them may stick.
  EXPECT_THROW(p.Init({{"prefix", "after"}, {"slope", "0.1"}, {"num_hidden", "x"}}),
               dmlc::ParamError);
  EXPECT_EQ(p.__DICT__(), before);
  EXPECT_THROW(p.Update({{"prefix", "after"}, {"slope", "7"}}), dmlc::ParamError);
  EXPECT_EQ(p.__DICT__(), before);
}

TEST(ParameterTest, UpdateKeepsFieldsNotNamed) {
  LayerParam p;
  p.Init({{"num_hidden", "7"}, {"prefix", "kept"}});
  p.Update({{"slope", "0.75"}});
  EXPECT_EQ(p.num_hidden, 7);
  EXPECT_EQ(p.prefix, "kept");
  EXPECT_EQ(p.slope, 0.75f);
  EXPECT_THROW(p.Update({{"bogus", "1"}}), dmlc::ParamError);
  const auto rest = p.UpdateAllowUnknown(KwargVector{{"seed", "5"}, {"bogus", "1"}});
  EXPECT_EQ(p.seed, 5);
  EXPECT_EQ(rest, (KwargVector{{"bogus", "1"}}));
}

TEST(ParameterTest, UpdateAllowUnknownSaysWhetherAValueChanged) {
  LayerParam p;
  p.Init({{"num_hidden", "7"}});
  bool changed = false;
  p.UpdateAllowUnknown(KwargVector{{"slope", "0.5"}, {"bogus", "1"}}, &changed);
  EXPECT_TRUE(changed);
  p.UpdateAllowUnknown(KwargVector{{"slope", "0.50"}, {"bogus", "1"}}, &changed);
  EXPECT_FALSE(changed) << "the same value spelled differently";
  p.UpdateAllowUnknown(KwargVector{{"bogus", "1"}}, &changed);
  EXPECT_FALSE(changed);
  EXPECT_THROW(p.UpdateAllowUnknown(KwargVector{{"slope", "2"}}, &changed), dmlc::ParamError);
  EXPECT_EQ(p.slope, 0.5f);
}

TEST(ParameterTest, OptionalIntegersTakeALongSuffix) {
  LayerParam p;
  p.Init({{"num_hidden", "1"}, {"axis", "-2L"}});
  EXPECT_EQ(p.axis.value(), -2) << "dmlc-core accepts Python 2's 1L for optional integers";
  EXPECT_THROW(p.Init({{"num_hidden", "1"}, {"axis", "2LL"}}), dmlc::ParamError);
  EXPECT_THROW(p.Init({{"num_hidden", "1L"}}), dmlc::ParamError) << "plain integers do not";
}

TEST(ParameterTest, FloatingPointSpellings) {
  Param p;
  auto set = [&p](const char* text) {
    p.Init({{"num_hidden", "1"}, {"learning_rate", text}});
  };
  // NaN with a payload and signed infinities, as strtod spells them.
  for (const char* text : {"nan(foo_bar_12)", "+NaN", "-NAN(X)"}) {
    set(text);
    EXPECT_TRUE(std::isnan(p.learning_rate)) << text;
  }
  for (const char* text : {"+INFINITY", "-inf", "Infinity"}) {
    set(text);
    EXPECT_TRUE(std::isinf(p.learning_rate)) << text;
  }
  // Just above and just below the smallest normal float.
  set("1.2e-38");
  EXPECT_THROW(set("1.1e-38"), dmlc::ParamError);
  for (const char* text : {"Nanny", "infinity war", "1.2e-2 foo"}) {
    EXPECT_THROW(set(text), dmlc::ParamError) << text;
  }
}

TEST(ParameterTest, UpdateDictWritesEveryField) {
  LayerParam p;
  p.Init({{"num_hidden", "7"}});
  std::map<std::string, std::string> dict = {{"num_hidden", "old"}, {"other", "kept"}};
  p.UpdateDict(&dict);
  EXPECT_EQ(dict.at("num_hidden"), "7");
  EXPECT_EQ(dict.at("other"), "kept");
  EXPECT_EQ(dict.at("slope"), "0.25");
  EXPECT_EQ(dict.size(), 14u);
}

TEST(ParameterTest, DictPrintsEveryTypeAndParsesBack) {
  LayerParam p;
  p.Init({{"num_hidden", "3"}, {"no_bias", "1"}, {"axis", "2"}, {"slope", "0.1"}});
  const std::map<std::string, std::string> expected = {
      {"num_hidden", "3"}, {"act_type", "relu"}, {"slope", "0.1"},  {"momentum", "0.9"},
      {"no_bias", "True"}, {"prefix", "layer"},  {"axis", "2"},     {"pool", "None"},
      {"clip", "1.5"},     {"seed", "-1"},       {"workers", "1"},  {"budget", "0"},
      {"cache", "64"}};
  EXPECT_EQ(p.__DICT__(), expected);
  LayerParam q;
  q.Init(p.__DICT__());
  EXPECT_EQ(q.__DICT__(), expected);
}

TEST(ParameterTest, FieldInfoAndDocString) {
  const auto fields = LayerParam::__FIELDS__();
  ASSERT_EQ(fields.size(), 13u);
  EXPECT_EQ(fields[0].name, "num_hidden");
  EXPECT_EQ(fields[0].type, "int");
  EXPECT_EQ(fields[0].type_info_str, "int, required");
  EXPECT_EQ(fields[0].description, "Number of output units.");
  EXPECT_EQ(fields[1].type_info_str, "{'relu', 'sigmoid', 'tanh'}, optional, default='relu'");
  EXPECT_EQ(fields[2].type_info_str, "float, optional, default=0.25");
  EXPECT_EQ(fields[4].type_info_str, "boolean, optional, default=False");
  EXPECT_EQ(fields[5].type_info_str, "string, optional, default='layer'");
  EXPECT_EQ(fields[6].type_info_str, "int or None, optional, default='None'");
  EXPECT_EQ(fields[7].type_info_str, "{'avg', 'max'} or None, optional, default='None'");
  EXPECT_EQ(fields[8].type_info_str, "float or None, optional, default='1.5'");
  EXPECT_EQ(fields[9].type_info_str, "long, optional, default=-1");
  EXPECT_EQ(fields[10].type_info_str, "int (non-negative), optional, default=1");
  EXPECT_EQ(fields[11].type_info_str, "long (non-negative), optional, default=0");
  EXPECT_EQ(Param::__DOC__(),
            "num_hidden : int, required\n"
            "learning_rate : float, optional, default=0.01\n"
            "name : string, optional, default='hello'\n");
}

TEST(ParameterTest, JsonSaveAndLoad) {
  LayerParam p;
  p.Init({{"num_hidden", "9"}, {"prefix", "say \"hi\""}, {"pool", "max"}});
  std::ostringstream os;
  dmlc::JSONWriter writer(&os);
  p.Save(&writer);
  std::istringstream is(os.str());
  dmlc::JSONReader reader(&is);
  LayerParam q;
  q.Load(&reader);
  EXPECT_EQ(q.__DICT__(), p.__DICT__());

  std::istringstream bad("{\"num_hidden\": \"0\"}");
  dmlc::JSONReader bad_reader(&bad);
  EXPECT_THROW(q.Load(&bad_reader), dmlc::ParamError);
  EXPECT_EQ(q.__DICT__(), p.__DICT__()) << "a failed Load leaves the struct unchanged";
}

TEST(ParameterTest, StructsThatCannotBeCopiedStillInit) {
  MoveOnlyParam p;
  p.Init({{"k", "4"}});
  EXPECT_EQ(p.k, 4);
}

TEST(ParameterTest, DeclaringAFieldTwiceIsAnError) {
  dmlc::parameter::ParamManager manager;
  manager.set_name("Twice");
  manager.AddEntry("a", new dmlc::parameter::FieldEntry<int>());
  EXPECT_THROW(manager.AddEntry("a", new dmlc::parameter::FieldEntry<int>()), dmlc::Error);
  EXPECT_THROW(manager.AddAlias("missing", "b"), dmlc::Error);
  EXPECT_THROW(manager.AddAlias("a", "a"), dmlc::Error);
}

TEST(ParameterTest, ConcurrentInitFromManyThreads) {
  constexpr int kThreads = 8;
  constexpr int kIterations = 2000;
  std::vector<std::thread> threads;
  std::vector<int> failures(kThreads, 0);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &failures] {
      for (int i = 0; i < kIterations; ++i) {
        LayerParam p;
        const int hidden = 1 + t * kIterations + i;
        p.Init({{"num_hidden", std::to_string(hidden)}, {"act_type", "tanh"}});
        if (p.num_hidden != hidden || p.act_type != 2) ++failures[t];
        try {
          p.Init({{"num_hidden", "-1"}});
          ++failures[t];
        } catch (const dmlc::ParamError&) {
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[t], 0) << "thread " << t;
}

TEST(EnvTest, GetEnvParsesLikeAFieldAndSetEnvPrintsLikeOne) {
  unsetenv("DMLC_TEST_VALUE");
  EXPECT_EQ(dmlc::GetEnv("DMLC_TEST_VALUE", 5), 5) << "unset: the default";
  dmlc::SetEnv("DMLC_TEST_VALUE", 0.1f);
  EXPECT_STREQ(std::getenv("DMLC_TEST_VALUE"), "0.1");
  EXPECT_EQ(dmlc::GetEnv("DMLC_TEST_VALUE", 0.0f), 0.1f);
  dmlc::SetEnv("DMLC_TEST_VALUE", true);
  EXPECT_STREQ(std::getenv("DMLC_TEST_VALUE"), "True");
  EXPECT_TRUE(dmlc::GetEnv("DMLC_TEST_VALUE", false));
  setenv("DMLC_TEST_VALUE", "many", 1);
  try {
    dmlc::GetEnv("DMLC_TEST_VALUE", 1);
    FAIL();
  } catch (const dmlc::ParamError& e) {
    EXPECT_STREQ(e.what(), "Invalid Parameter format for DMLC_TEST_VALUE expect int but "
                           "value='many'");
  }
  setenv("DMLC_TEST_VALUE", "", 1);
  EXPECT_EQ(dmlc::GetEnv("DMLC_TEST_VALUE", std::string("dflt")), "dflt");
  unsetenv("DMLC_TEST_VALUE");
}

}  // namespace
