// The interleaved attention products: loops over heads, positions and the head's elements as
// the references (MXNet 1.9.1's documented reshape/transpose/batch_dot compositions, which the
// Python suite also checks against MXNet itself), write modes, gradients, div_sqrt_dim, and
// the shapes they refuse.
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/testing/op_test_util.h"

namespace ops {
namespace {

using ::testing::HasSubstr;
using testing::InputSpec;
using testing::OpCase;
using testing::Values;

constexpr int kLength = 5, kQueries = 3, kBatch = 2, kHeads = 3, kDim = 4;
const std::map<std::string, std::string> kHeadsParam{{"heads", std::to_string(kHeads)}};

// Element d of part `part` of head h of position l of example b in interleaved projections of
// `parts` parts.
double At(const Values& x, int parts, int l, int b, int h, int part, int d) {
  return x[((l * kBatch + b) * kHeads + h) * parts * kDim + part * kDim + d];
}

// Scores (batch * heads, queries, keys): Q K^T / sqrt(D) per head.
Values Scores(const Values& q, int q_parts, const Values& k, int k_parts, int k_part, int queries,
              int keys) {
  Values out;
  for (int b = 0; b < kBatch; ++b) {
    for (int h = 0; h < kHeads; ++h) {
      for (int i = 0; i < queries; ++i) {
        for (int j = 0; j < keys; ++j) {
          double sum = 0;
          for (int d = 0; d < kDim; ++d) {
            sum += At(q, q_parts, i, b, h, 0, d) * At(k, k_parts, j, b, h, k_part, d);
          }
          out.push_back(sum / std::sqrt(double(kDim)));
        }
      }
    }
  }
  return out;
}

// The attention output (queries, batch, heads * D): attention V per head.
Values Attended(const Values& v, int parts, int part, const Values& attention, int queries,
                int keys) {
  Values out(queries * kBatch * kHeads * kDim);
  for (int i = 0; i < queries; ++i) {
    for (int b = 0; b < kBatch; ++b) {
      for (int h = 0; h < kHeads; ++h) {
        for (int d = 0; d < kDim; ++d) {
          double sum = 0;
          for (int j = 0; j < keys; ++j) {
            sum += attention[((b * kHeads + h) * queries + i) * keys + j] *
                   At(v, parts, j, b, h, part, d);
          }
          out[((i * kBatch + b) * kHeads + h) * kDim + d] = sum;
        }
      }
    }
  }
  return out;
}

TEST(AttentionTest, ProductsAgainstLoopsWithGradients) {
  const TShape qkv{kLength, kBatch, kHeads * 3 * kDim};
  const TShape queries{kQueries, kBatch, kHeads * kDim};
  const TShape kv{kLength, kBatch, kHeads * 2 * kDim};
  const TShape self_scores{kBatch * kHeads, kLength, kLength};
  const TShape cross_scores{kBatch * kHeads, kQueries, kLength};
  const std::vector<std::pair<OpCase, testing::Reference>> cases = {
      {{"_contrib_interleaved_matmul_selfatt_qk", kHeadsParam, {InputSpec{qkv}}},
       [](const std::vector<Values>& in) {
         return std::vector<Values>{Scores(in[0], 3, in[0], 3, 1, kLength, kLength)};
       }},
      {{"_contrib_interleaved_matmul_selfatt_valatt",
        kHeadsParam,
        {InputSpec{qkv}, InputSpec{self_scores}}},
       [](const std::vector<Values>& in) {
         return std::vector<Values>{Attended(in[0], 3, 2, in[1], kLength, kLength)};
       }},
      {{"_contrib_interleaved_matmul_encdec_qk", kHeadsParam, {InputSpec{queries}, InputSpec{kv}}},
       [](const std::vector<Values>& in) {
         return std::vector<Values>{Scores(in[0], 1, in[1], 2, 0, kQueries, kLength)};
       }},
      {{"_contrib_interleaved_matmul_encdec_valatt",
        kHeadsParam,
        {InputSpec{kv}, InputSpec{cross_scores}}},
       [](const std::vector<Values>& in) {
         return std::vector<Values>{Attended(in[0], 2, 1, in[1], kQueries, kLength)};
       }},
  };
  for (const auto& [c, reference] : cases) {
    SCOPED_TRACE(c.op);
    testing::CheckForward(c, reference);
    testing::CheckWriteModes(c);
    testing::CheckGradient(c);
  }
}

TEST(AttentionTest, DivSqrtDim) {
  const OpCase c{"_contrib_div_sqrt_dim", {}, {InputSpec{TShape{3, 2, 16}}}};
  testing::CheckForward(c, testing::ElementwiseReference([](double x) { return x / 4; }));
  testing::CheckWriteModes(c);
  testing::CheckGradient(c);
}

TEST(AttentionTest, BadShapesAreNamed) {
  const auto error_of = [](const std::string& op, std::vector<InputSpec> inputs) {
    return testing::ErrorOf([&] {
      testing::InferOutputShapes({op, kHeadsParam, std::move(inputs)});
    });
  };
  EXPECT_THAT(error_of("_contrib_interleaved_matmul_selfatt_qk", {InputSpec{TShape{5, 2, 37}}}),
              HasSubstr("queries_keys_values's last axis, 37, must be heads (3) * 3 * head_dim"));
  EXPECT_THAT(error_of("_contrib_interleaved_matmul_selfatt_qk", {InputSpec{TShape{5, 36}}}),
              HasSubstr("queries_keys_values must be (length, batch, heads * 3 * head_dim), got "
                        "(5,36)"));
  EXPECT_THAT(error_of("_contrib_interleaved_matmul_encdec_qk",
                       {InputSpec{TShape{3, 2, 12}}, InputSpec{TShape{5, 2, 36}}}),
              HasSubstr("keys_values (5,2,36) must be (keys, 2, 24) for queries (3,2,12) of 3 "
                        "heads"));
  EXPECT_THAT(error_of("_contrib_interleaved_matmul_selfatt_valatt",
                       {InputSpec{TShape{5, 2, 36}}, InputSpec{TShape{6, 5, 4}}}),
              HasSubstr("attention must be (batch * heads, queries, keys) = (6,5,5), got "
                        "(6,5,4)"));
  EXPECT_THAT(testing::ErrorOf([] {
                ParseAttrs(Op::Get("_contrib_interleaved_matmul_encdec_qk"), {{"heads", "0"}});
              }),
              HasSubstr("heads"));
}

}  // namespace
}  // namespace ops
