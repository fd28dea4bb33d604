// The batched SGD updates: each weight of a call gets exactly the single-weight operator's
// step (sgd_update, sgd_mom_update and their mp_ forms) with its own learning rate and weight
// decay, for every form (momentum, mp, preloaded); shapes per weight; the rates checked
// against num_weights; the float tuple parameter.
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/float_tuple.h"
#include "ops/testing/op_test_util.h"

namespace ops {
namespace {

using ::testing::HasSubstr;
using testing::OpCase;
using testing::TensorOf;
using testing::Values;

CpuTensor Filled(const TShape& shape, int type, std::mt19937* rng, double lo = -1, double hi = 1) {
  std::uniform_real_distribution<double> dist(lo, hi);
  Values v(shape.Size());
  for (double& x : v) x = dist(*rng);
  return TensorOf(shape, type, v);
}

CpuTensor Copy(const CpuTensor& t) {
  return TensorOf(t.shape(), t.type_flag(), testing::ToValues(t.blob()));
}

struct Form {
  std::string op;
  bool momentum, mp, preloaded;
};

TEST(MultiSGDTest, EachWeightGetsTheSingleOperatorsStep) {
  const std::vector<TShape> shapes = {TShape{5}, TShape{2, 3}};
  const std::vector<std::string> lrs = {"0.1", "0.25"}, wds = {"0.01", "0"};
  for (const Form& f : {Form{"multi_sgd_update", false, false, false},
                        Form{"multi_sgd_mom_update", true, false, false},
                        Form{"multi_mp_sgd_update", false, true, false},
                        Form{"multi_mp_sgd_mom_update", true, true, false},
                        Form{"preloaded_multi_sgd_update", false, false, true},
                        Form{"preloaded_multi_sgd_mom_update", true, false, true},
                        Form{"preloaded_multi_mp_sgd_update", false, true, true},
                        Form{"preloaded_multi_mp_sgd_mom_update", true, true, true}}) {
    SCOPED_TRACE(f.op);
    std::mt19937 rng(3);
    const int weight_type = f.mp ? mshadow::kFloat16 : mshadow::kFloat64;
    const int state_type = f.mp ? mshadow::kFloat32 : mshadow::kFloat64;
    std::map<std::string, std::string> kwargs = {
        {"num_weights", "2"}, {"rescale_grad", "0.5"}, {"clip_gradient", "0.8"}};
    if (f.momentum) kwargs["momentum"] = "0.9";
    if (!f.preloaded) {
      kwargs["lrs"] = "(" + lrs[0] + "," + lrs[1] + ")";
      kwargs["wds"] = "[" + wds[0] + ", " + wds[1] + "]";
    }
    std::vector<CpuTensor> in, single_in_all;
    std::vector<std::vector<CpuTensor>> single(2);
    for (int i = 0; i < 2; ++i) {
      in.push_back(Filled(shapes[i], weight_type, &rng));         // weight
      in.push_back(Filled(shapes[i], weight_type, &rng, -3, 3));  // grad
      if (f.momentum) in.push_back(Filled(shapes[i], state_type, &rng));
      if (f.mp) in.push_back(Filled(shapes[i], mshadow::kFloat32, &rng));  // weight32
      for (size_t j = in.size() - (2 + f.momentum + f.mp); j < in.size(); ++j) {
        single[i].push_back(Copy(in[j]));
      }
    }
    if (f.preloaded) {
      in.push_back(TensorOf(mshadow::kFloat32, {std::stod(lrs[0]), std::stod(lrs[1])}));
      in.push_back(TensorOf(mshadow::kFloat32, {std::stod(wds[0]), std::stod(wds[1])}));
    }
    const std::vector<CpuTensor> out = RunCpu(ParseAttrs(Op::Get(f.op), kwargs), Blobs(in));
    ASSERT_EQ(out.size(), 2u);
    const std::string single_op =
        std::string(f.mp ? "mp_" : "") + (f.momentum ? "sgd_mom_update" : "sgd_update");
    for (int i = 0; i < 2; ++i) {
      std::map<std::string, std::string> single_kwargs = {
          {"lr", lrs[i]}, {"wd", wds[i]}, {"rescale_grad", "0.5"}, {"clip_gradient", "0.8"}};
      if (f.momentum) single_kwargs["momentum"] = "0.9";
      const std::vector<CpuTensor> expected =
          RunCpu(ParseAttrs(Op::Get(single_op), single_kwargs), Blobs(single[i]));
      EXPECT_EQ(out[i].shape(), shapes[i]);
      EXPECT_EQ(out[i].type_flag(), weight_type);
      EXPECT_EQ(testing::ToValues(out[i].blob()), testing::ToValues(expected[0].blob())) << i;
      // The states (momentum, master weight) moved in place as the single operator's did.
      const int k = 2 + f.momentum + f.mp;
      for (int j = 2; j < k; ++j) {
        EXPECT_EQ(testing::ToValues(in[i * k + j].blob()), testing::ToValues(single[i][j].blob()))
            << i << " state " << j;
      }
    }
  }
}

TEST(MultiSGDTest, RatesMustMatchTheWeights) {
  const OpCase c{"multi_sgd_update",
                 {{"num_weights", "2"}, {"lrs", "(0.1,)"}, {"wds", "(0,0)"}},
                 {testing::InputSpec(TShape{3}), testing::InputSpec(TShape{3}),
                  testing::InputSpec(TShape{4}), testing::InputSpec(TShape{4})}};
  EXPECT_THAT(testing::ErrorOf([&] { testing::InferOutputShapes(c); }),
              HasSubstr("multi_sgd_update: lrs (0.1,) has 1 values; num_weights is 2"));
  const OpCase preloaded{"preloaded_multi_sgd_update",
                         {{"num_weights", "2"}},
                         {testing::InputSpec(TShape{3}), testing::InputSpec(TShape{3}),
                          testing::InputSpec(TShape{4}), testing::InputSpec(TShape{4}),
                          testing::InputSpec(TShape{3}), testing::InputSpec(TShape{2})}};
  EXPECT_THAT(testing::ErrorOf([&] { testing::InferOutputShapes(preloaded); }), HasSubstr("(3,)"));
  const OpCase mismatch{"multi_sgd_update",
                        {{"num_weights", "1"}, {"lrs", "0.1"}, {"wds", "0"}},
                        {testing::InputSpec(TShape{3}), testing::InputSpec(TShape{4})}};
  EXPECT_THAT(testing::ErrorOf([&] { testing::InferOutputShapes(mismatch); }), HasSubstr("(4,)"));
}

TEST(FloatTupleTest, ParsesTupleSyntaxAndNamesBadValues) {
  FloatTuple t;
  ASSERT_TRUE(ParseFloatTuple(" (0.5, -1e-3,2) ", &t));
  EXPECT_EQ(t.values, (std::vector<float>{0.5f, -1e-3f, 2.0f}));
  ASSERT_TRUE(ParseFloatTuple("[1.5]", &t));
  EXPECT_EQ(t.values, (std::vector<float>{1.5f}));
  ASSERT_TRUE(ParseFloatTuple("0.25", &t));
  EXPECT_EQ(t.values, (std::vector<float>{0.25f}));
  ASSERT_TRUE(ParseFloatTuple("(3,)", &t));
  EXPECT_EQ(t.values, (std::vector<float>{3.0f}));
  ASSERT_TRUE(ParseFloatTuple("()", &t));
  EXPECT_TRUE(t.values.empty());
  for (const char* bad : {"", "(1,a)", "(1,,2)", "(1", "1 2", "[1)"}) {
    EXPECT_FALSE(ParseFloatTuple(bad, &t)) << bad;
  }
  std::ostringstream os;
  os << FloatTuple{{0.1f, 2.0f}} << " " << FloatTuple{{3.0f}};
  EXPECT_EQ(os.str(), "(0.1,2) (3,)");
  EXPECT_THAT(testing::ErrorOf([] {
                ParseAttrs(Op::Get("multi_sgd_update"), {{"lrs", "(0.1,x)"}, {"wds", "(0)"}});
              }),
              HasSubstr("value='(0.1,x)'"));
}

}  // namespace
}  // namespace ops
