#include "dmlc/suggest.h"

#include "gtest/gtest.h"

namespace dmlc {
namespace {

TEST(EditDistanceTest, CountsEditsIgnoringCase) {
  EXPECT_EQ(EditDistance("", ""), 0u);
  EXPECT_EQ(EditDistance("abc", ""), 3u);
  EXPECT_EQ(EditDistance("relu", "relu"), 0u);
  EXPECT_EQ(EditDistance("ReLU", "relu"), 0u);
  EXPECT_EQ(EditDistance("relu", "relv"), 1u);       // substitute
  EXPECT_EQ(EditDistance("relu", "reelu"), 1u);      // insert
  EXPECT_EQ(EditDistance("sigmoid", "sigmod"), 1u);  // delete
  EXPECT_EQ(EditDistance("tanh", "tnah"), 1u);       // swap of neighbours
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3u);
}

TEST(SuggestSimilarTest, ClosestFirstAndOnlyPlausibleTypos) {
  const std::vector<std::string> names = {"num_hidden", "no_bias", "flatten", "num_args"};
  EXPECT_EQ(SuggestSimilar("num_hiden", names), std::vector<std::string>{"num_hidden"});
  EXPECT_EQ(SuggestSimilar("flaten", names), std::vector<std::string>{"flatten"});
  EXPECT_TRUE(SuggestSimilar("learning_rate", names).empty());
  EXPECT_EQ(SuggestSimilar("num", names), (std::vector<std::string>{"num_hidden", "num_args"}))
      << "a prefix counts as close";
}

TEST(DidYouMeanTest, Sentence) {
  EXPECT_EQ(DidYouMean("relv", {"relu", "tanh"}), " Did you mean 'relu'?");
  EXPECT_EQ(DidYouMean("sum", {"sum_rows", "sumall"}), " Did you mean 'sum_rows' or 'sumall'?");
  EXPECT_EQ(DidYouMean("zzz", {"relu"}), "");
}

}  // namespace
}  // namespace dmlc
