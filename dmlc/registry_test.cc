#include "dmlc/registry.h"

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace {

struct TreeFactory : public dmlc::FunctionRegEntryBase<TreeFactory, int (*)(int)> {};

struct TreeParam : public dmlc::Parameter<TreeParam> {
  int height;
  DMLC_DECLARE_PARAMETER(TreeParam) {
    DMLC_DECLARE_FIELD(height).set_default(10).describe("Height in metres.");
  }
};

}  // namespace

DMLC_REGISTER_PARAMETER(TreeParam);

// As dmlc-core users write it: inside namespace dmlc.
namespace dmlc {
DMLC_REGISTRY_ENABLE(TreeFactory);
}  // namespace dmlc

DMLC_REGISTRY_REGISTER(TreeFactory, TreeFactory, oak)
    .describe("An oak.")
    .add_arguments(TreeParam::__FIELDS__())
    .set_return_type("int")
    .set_body([](int x) { return x + 1; });

DMLC_REGISTRY_REGISTER(TreeFactory, TreeFactory, birch)
    .describe("A birch.")
    .add_argument("bark", "string", "Bark colour.")
    .set_body([](int x) { return x * 2; });

namespace {

using Trees = dmlc::Registry<TreeFactory>;

TEST(RegistryTest, FindsRegisteredEntriesWithTheirFields) {
  const TreeFactory* oak = Trees::Find("oak");
  ASSERT_NE(oak, nullptr);
  EXPECT_EQ(oak->name, "oak");
  EXPECT_EQ(oak->description, "An oak.");
  EXPECT_EQ(oak->return_type, "int");
  EXPECT_EQ(oak->body(1), 2);
  ASSERT_EQ(oak->arguments.size(), 1u);
  EXPECT_EQ(oak->arguments[0].name, "height");
  EXPECT_EQ(oak->arguments[0].type_info_str, "int, optional, default=10");
  const TreeFactory* birch = Trees::Find(std::string("birch"));
  ASSERT_NE(birch, nullptr);
  EXPECT_EQ(birch->body(5), 10);
  EXPECT_EQ(birch->arguments[0].description, "Bark colour.");
  EXPECT_EQ(Trees::Find("pine"), nullptr);
}

TEST(RegistryTest, ListsInRegistrationOrderAndNamesSorted) {
  const auto& list = Trees::List();
  ASSERT_GE(list.size(), 2u);
  EXPECT_EQ(list[0]->name, "oak");
  EXPECT_EQ(list[1]->name, "birch");
  const auto names = Trees::ListAllNames();
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  EXPECT_NE(std::find(names.begin(), names.end(), "oak"), names.end());
}

TEST(RegistryTest, AliasesAndDuplicates) {
  Trees::Get()->AddAlias("oak", "quercus");
  EXPECT_EQ(Trees::Find("quercus"), Trees::Find("oak"));
  EXPECT_NO_THROW(Trees::Get()->AddAlias("oak", "quercus")) << "same alias, same entry";
  EXPECT_THROW(Trees::Get()->AddAlias("birch", "quercus"), dmlc::Error);
  EXPECT_THROW(Trees::Get()->AddAlias("pine", "pinus"), dmlc::Error);
  EXPECT_THROW(Trees::Get()->__REGISTER__("oak"), dmlc::Error);
  EXPECT_EQ(&Trees::Get()->__REGISTER_OR_GET__("oak"), Trees::Find("oak"));
}

TEST(RegistryTest, ConcurrentLookupsWhileRegistering) {
  std::atomic<bool> stop{false};
  std::atomic<int> wrong{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 4; ++t) {
    readers.emplace_back([&] {
      while (!stop.load()) {
        const TreeFactory* oak = Trees::Find("oak");
        if (oak == nullptr || oak->body(1) != 2) ++wrong;
      }
    });
  }
  for (int i = 0; i < 500; ++i) {
    Trees::Get()->__REGISTER__("sapling" + std::to_string(i)).set_body([](int x) { return x; });
  }
  stop = true;
  for (auto& reader : readers) reader.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_NE(Trees::Find("sapling499"), nullptr);
}

}  // namespace
