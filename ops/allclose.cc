// _contrib_allclose(a, b): a uint8 flag, 1 where every pair of elements is close. No gradient
// (MXNet registers none). The CPU's check is here; the computation for every device:
// allclose-inl.h; FCompute<gpu>: allclose.cu.
#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ops/allclose-inl.h"
#include "ops/infer.h"
#include "ops/vector_loop.h"

namespace ops {
namespace allclose {

DMLC_REGISTER_PARAMETER(AllCloseParam);

namespace {

// Blocks of the arrays per thread, each with its own answer (no shared writes).
constexpr index_t kBlock = 1 << 14;

// The pairs of [0, n) that are not close. float and double on packets, Close's three ways
// to be close as selects; their sum of ones (one a far pair) is exact below 2^24. The other
// types a pair at a time.
template <typename DType>
index_t CountFar(const DType* a, const DType* b, index_t n, const AllCloseParam& p) {
  if constexpr (std::is_same_v<DType, float> || std::is_same_v<DType, double>) {
    using mshadow::packet::Abs;
    using mshadow::packet::SelectEqual;
    using mshadow::packet::SelectLessEqual;
    const DType rtol = p.rtol, atol = p.atol;
    return static_cast<index_t>(vec::Sum<DType>(n, [&](index_t i, auto tag) {
      using P = vec::PacketOf<decltype(tag)>;
      const P x = P::LoadUnAligned(a + i), y = P::LoadUnAligned(b + i);
      const P zero = P::Fill(DType(0)), one = P::Fill(DType(1));
      const P difference = Abs(x - y), tolerance = P::Fill(atol) + P::Fill(rtol) * Abs(y);
      P close = SelectEqual(difference - difference, zero,
                            SelectLessEqual(difference, tolerance, one, zero), zero);
      close = SelectEqual(x, y, one, close);
      if (p.equal_nan) close = SelectEqual(x, x, close, SelectEqual(y, y, close, one));
      return one - close;
    }));
  } else {
    index_t far = 0;
    for (index_t i = 0; i < n; ++i) far += !Close(a[i], b[i], p.rtol, p.atol, p.equal_nan);
    return far;
  }
}

}  // namespace

bool AllCloseCpu(const TBlob& a, const TBlob& b, const AllCloseParam& p) {
  const index_t n = a.Size(), blocks = (n + kBlock - 1) / kBlock;
  std::vector<char> close(blocks, 1);
  MSHADOW_TYPE_SWITCH(a.type_flag_, DType, {
    const DType* x = a.dptr<DType>();
    const DType* y = b.dptr<DType>();
    ParallelRows(blocks, kBlock, [&](index_t begin, index_t end) {
      for (index_t k = begin; k < end; ++k) {
        const index_t first = k * kBlock;
        close[k] = CountFar(x + first, y + first, std::min(kBlock, n - first), p) == 0;
      }
    });
  });
  return std::all_of(close.begin(), close.end(), [](char c) { return c != 0; });
}

namespace {

void Parse(NodeAttrs* attrs) {
  ParamParser<AllCloseParam>(attrs);
  const AllCloseParam& p = GetParam<AllCloseParam>(*attrs);
  for (const auto& [name, value] :
       {std::pair<const char*, float>{"rtol", p.rtol}, {"atol", p.atol}}) {
    if (!(value >= 0 && value < INFINITY)) {
      throw dmlc::ParamError(std::string(name) + " " + dmlc::NumberToString(value) +
                             " is not a tolerance; valid: a finite value >= 0");
    }
  }
}

// a and b of one shape; the flag (1,).
bool FlagShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  AssignOutputShape(out, 0, TShape{1});
  std::vector<TShape> none;
  return ElemwiseShape<2, 0>(attrs, in, &none);
}

// a and b of one of the seven number types (as MXNet's kernel: not bool or bfloat16); the
// flag uint8.
bool FlagType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  AssignOutputType(out, 0, mshadow::kUint8);
  std::vector<int> none;
  if (!ElemwiseType<2, 0>(attrs, in, &none)) return false;
  if ((*in)[0] == mshadow::kBool || (*in)[0] == mshadow::kBfloat16) {
    throw dmlc::Error("data type " + mshadow::TypeFlagName((*in)[0]) +
                      " is not supported; valid: float32, float64, float16, uint8, int8, "
                      "int32, int64");
  }
  return true;
}

const bool kRegistered = [] {
  RegisterOp("_contrib_allclose")
      .describe(
          "1 (uint8, shape (1,)) if |a - b| <= atol + rtol * |b| for every pair of elements "
          "(NumPy's allclose), else 0.")
      .set_num_inputs(2)
      .set_num_outputs(1)
      .add_argument("a", "NDArray-or-Symbol", "The first array.")
      .add_argument("b", "NDArray-or-Symbol", "The second array, of a's shape and type.")
      .add_arguments(AllCloseParam::__FIELDS__())
      .set_attr_parser(Parse)
      .set_attr<FInferShape>("FInferShape", FlagShape)
      .set_attr<FInferType>("FInferType", FlagType);
  SetAllCloseCompute<cpu>();
  return true;
}();

}  // namespace
}  // namespace allclose
}  // namespace ops
