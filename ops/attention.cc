// The interleaved multi-head attention products (_contrib_interleaved_matmul_selfatt_qk,
// _selfatt_valatt, _encdec_qk, _encdec_valatt) and _contrib_div_sqrt_dim. Shapes and where
// each projection lies are here; the computation, for every device: attention-inl.h;
// FCompute<gpu>: attention.cu.
#include <sstream>
#include <string>
#include <vector>

#include "ops/attention-inl.h"
#include "ops/infer_util.h"

namespace ops {
namespace attention {

DMLC_REGISTER_PARAMETER(InterleavedParam);

namespace {

// The projections' head size of `shape` (length, batch, heads * parts * head_dim); a
// dmlc::Error naming the input where it is not such an array.
index_t HeadDim(const TShape& shape, int heads, int parts, const char* input) {
  std::ostringstream os;
  if (shape.ndim() != 3) {
    os << input << " must be (length, batch, heads * " << parts << " * head_dim), got " << shape;
    throw dmlc::Error(os.str());
  }
  if (shape[2] % (heads * parts) != 0) {
    os << input << "'s last axis, " << shape[2] << ", must be heads (" << heads << ") * " << parts
       << " * head_dim";
    throw dmlc::Error(os.str());
  }
  return shape[2] / (heads * parts);
}

void CheckScores(const TShape& attention, const Geometry& g) {
  if (attention != TShape{g.batch_heads, g.queries, g.keys}) {
    std::ostringstream os;
    os << "attention must be (batch * heads, queries, keys) = (" << g.batch_heads << ","
       << g.queries << "," << g.keys << "), got " << attention;
    throw dmlc::Error(os.str());
  }
}

bool IsSelfAttention(const std::string& op) { return op.find("_selfatt_") != std::string::npos; }
bool IsQueryKey(const std::string& op) { return op.find("_qk") != std::string::npos; }

}  // namespace

Geometry GeometryOf(const std::string& op, int heads, const std::vector<TShape>& in) {
  Geometry g;
  const TShape& first = in[0];
  const int parts = IsSelfAttention(op) ? 3 : (IsQueryKey(op) ? 1 : 2);
  g.head_dim = HeadDim(
      first, heads, parts,
      IsSelfAttention(op) ? "queries_keys_values" : (IsQueryKey(op) ? "queries" : "keys_values"));
  g.batch_heads = first[1] * heads;
  if (IsSelfAttention(op)) {
    g.queries = g.keys = first[0];
  } else if (IsQueryKey(op)) {
    g.queries = first[0];
    const TShape& kv = in[1];
    if (HeadDim(kv, heads, 2, "keys_values") != g.head_dim || kv[1] != first[1]) {
      std::ostringstream os;
      os << "keys_values " << kv << " must be (keys, " << first[1] << ", " << 2 * heads * g.head_dim
         << ") for queries " << first << " of " << heads << " heads";
      throw dmlc::Error(os.str());
    }
    g.keys = kv[0];
  } else {
    g.keys = first[0];
    g.queries = in[1].ndim() == 3 ? in[1][1] : 0;
  }
  if (!IsQueryKey(op)) CheckScores(in[1], g);
  return g;
}

Operands OperandsOf(const std::string& op, const Geometry& g) {
  Operands o{};
  if (IsSelfAttention(op)) {
    o.q = Projection(g.queries, g.batch_heads, 3, g.head_dim, 0);
    o.k = Projection(g.keys, g.batch_heads, 3, g.head_dim, 1);
    o.v = Projection(g.keys, g.batch_heads, 3, g.head_dim, 2);
    o.q_input = o.k_input = o.v_input = 0;
  } else {
    o.q = Projection(g.queries, g.batch_heads, 1, g.head_dim, 0);
    o.k = Projection(g.keys, g.batch_heads, 2, g.head_dim, 0);
    o.v = Projection(g.keys, g.batch_heads, 2, g.head_dim, 1);
    o.q_input = 0;
    o.k_input = IsQueryKey(op) ? 1 : 0;
    o.v_input = 0;
  }
  return o;
}

namespace {

bool InterleavedShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  for (const TShape& s : *in) {
    if (!ShapeIsKnown(s)) return false;
  }
  const std::string& op = attrs.op->name;
  const int heads = GetParam<InterleavedParam>(attrs).heads;
  const Geometry g = GeometryOf(op, heads, *in);
  if (IsQueryKey(op)) {
    AssignOutputShape(out, 0, TShape{g.batch_heads, g.queries, g.keys});
  } else {
    AssignOutputShape(out, 0, TShape{g.queries, (*in)[0][1], heads * g.head_dim});
  }
  return true;
}

struct Interleaved {
  const char* name;
  std::vector<const char*> inputs;
  const char* description;
};

const bool kRegistered = [] {
  const std::vector<Interleaved> ops = {
      {"_contrib_interleaved_matmul_selfatt_qk",
       {"queries_keys_values"},
       "Self-attention scores of interleaved projections (length, batch, heads * 3 * "
       "head_dim), each head's queries, keys and values in turn: (batch * heads, length, "
       "length), Q K^T / sqrt(head_dim) per head."},
      {"_contrib_interleaved_matmul_selfatt_valatt",
       {"queries_keys_values", "attention"},
       "Self-attention output: the attention weights (batch * heads, length, length) times "
       "each head's values of interleaved projections (length, batch, heads * 3 * head_dim): "
       "(length, batch, heads * head_dim)."},
      {"_contrib_interleaved_matmul_encdec_qk",
       {"queries", "keys_values"},
       "Encoder-decoder attention scores of queries (queries, batch, heads * head_dim) and "
       "interleaved keys and values (keys, batch, heads * 2 * head_dim): (batch * heads, "
       "queries, keys), Q K^T / sqrt(head_dim) per head."},
      {"_contrib_interleaved_matmul_encdec_valatt",
       {"keys_values", "attention"},
       "Encoder-decoder attention output: the attention weights (batch * heads, queries, "
       "keys) times each head's values of interleaved keys and values (keys, batch, heads * 2 "
       "* head_dim): (queries, batch, heads * head_dim)."},
  };
  for (const Interleaved& spec : ops) {
    const std::string backward = std::string("_backward") + spec.name;
    Op& op = RegisterOp(spec.name);
    op.describe(spec.description)
        .set_num_inputs(static_cast<uint32_t>(spec.inputs.size()))
        .set_num_outputs(1)
        .add_arguments(InterleavedParam::__FIELDS__())
        .set_attr_parser(ParamParser<InterleavedParam>)
        .set_attr<FInferShape>("FInferShape", InterleavedShape)
        .set_attr<FInferType>("FInferType", SameRealType)
        .set_attr<FGradient>("FGradient", FGradient{backward, true, false});
    for (const char* input : spec.inputs) op.add_argument(input, "NDArray-or-Symbol", input);
    RegisterOp(backward)
        .describe(std::string("Gradient of ") + spec.name + ".")
        .set_num_inputs(static_cast<uint32_t>(spec.inputs.size()) + 1)
        .set_num_outputs(static_cast<uint32_t>(spec.inputs.size()))
        .set_attr<bool>("TIsBackward", true)
        .set_attr_parser(ParamParser<InterleavedParam>);
  }
  RegisterOp("_contrib_div_sqrt_dim")
      .describe("The data divided by the square root of its last extent (a head's size).")
      .set_num_inputs(1)
      .set_num_outputs(1)
      .add_argument("data", "NDArray-or-Symbol", "The input array.")
      .set_attr<FInferShape>("FInferShape", ElemwiseShape<1, 1>)
      .set_attr<FInferType>("FInferType", ElemwiseRealType<1, 1>)
      .set_attr<FGradient>("FGradient", FGradient{"_backward_contrib_div_sqrt_dim", false, false});
  RegisterOp("_backward_contrib_div_sqrt_dim")
      .describe("Gradient of _contrib_div_sqrt_dim: the output gradient scaled alike.")
      .set_num_inputs(1)
      .set_num_outputs(1)
      .set_attr<bool>("TIsBackward", true);
  SetAttentionCompute<cpu>();
  return true;
}();

}  // namespace
}  // namespace attention
}  // namespace ops
