// all_finite(data) and multi_all_finite(array_0, ..., num_arrays): a float32 flag, 1 where
// every element is finite. No gradient (MXNet registers none). The CPU's check is here; the
// computation for every device: all_finite-inl.h; FCompute<gpu>: all_finite.cu.
#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "ops/all_finite-inl.h"
#include "ops/vector_loop.h"

namespace ops {
namespace all_finite {

DMLC_REGISTER_PARAMETER(AllFiniteParam);
DMLC_REGISTER_PARAMETER(MultiAllFiniteParam);

namespace {

// x * 0 is 0 for a finite x and NaN otherwise, and a NaN stays in any sum: the sum over a
// range of x * 0 is 0 exactly when all its elements are finite (packets, no branch per
// element). The 16-bit types are widened to float a lane at a time.
template <typename DType>
bool RangeIsFinite(const DType* x, index_t n) {
  if constexpr (std::is_same_v<DType, float> || std::is_same_v<DType, double>) {
    return vec::Sum<DType>(n, [&](index_t i, auto tag) {
             using P = vec::PacketOf<decltype(tag)>;
             return P::LoadUnAligned(x + i) * P::Fill(DType(0));
           }) == DType(0);
  } else {
    float sum = 0;
    for (index_t i = 0; i < n; ++i) sum += static_cast<float>(x[i]) * 0.0f;
    return sum == 0.0f;
  }
}

// Blocks of the array per thread, each with its own answer (no shared writes).
constexpr index_t kBlock = 1 << 14;

}  // namespace

bool AllFiniteCpu(const TBlob& x) {
  const index_t n = x.Size(), blocks = (n + kBlock - 1) / kBlock;
  std::vector<char> finite(blocks, 1);
  MSHADOW_REAL_TYPE_SWITCH_EX(x.type_flag_, DType, {
    const DType* data = x.dptr<DType>();
    ParallelRows(blocks, kBlock, [&](index_t begin, index_t end) {
      for (index_t b = begin; b < end; ++b) {
        const index_t first = b * kBlock;
        finite[b] = RangeIsFinite(data + first, std::min(kBlock, n - first));
      }
    });
  });
  for (const char f : finite) {
    if (!f) return false;
  }
  return true;
}

namespace {

// Every input a floating-point type (any of them, mixed); the flag float32.
bool FlagType(const NodeAttrs&, std::vector<int>* in, std::vector<int>* out) {
  AssignOutputType(out, 0, mshadow::kFloat32);
  for (const int t : *in) {
    if (t == -1) return false;
    CheckFloatType(t);
  }
  return true;
}

bool FlagShape(const NodeAttrs&, std::vector<TShape>* in, std::vector<TShape>* out) {
  AssignOutputShape(out, 0, TShape{1});
  for (const TShape& s : *in) {
    if (!ShapeIsKnown(s)) return false;
  }
  return true;
}

std::vector<std::string> ArrayNames(const NodeAttrs& attrs) {
  std::vector<std::string> names;
  for (int i = 0; i < GetParam<MultiAllFiniteParam>(attrs).num_arrays; ++i) {
    names.push_back("array_" + std::to_string(i));  // MXNet's names
  }
  return names;
}

const bool kRegistered = [] {
  RegisterOp("all_finite")
      .describe("1 (float32, shape (1,)) if every element of data is finite, else 0.")
      .set_num_inputs(1)
      .set_num_outputs(1)
      .add_argument("data", "NDArray-or-Symbol", "The array to check.")
      .add_arguments(AllFiniteParam::__FIELDS__())
      .set_attr_parser(ParamParser<AllFiniteParam>)
      .set_attr<FInferShape>("FInferShape", FlagShape)
      .set_attr<FInferType>("FInferType", FlagType);
  RegisterOp("multi_all_finite")
      .describe("1 (float32, shape (1,)) if every element of every input is finite, else 0.")
      .set_num_inputs([](const NodeAttrs& attrs) -> uint32_t {
        return GetParam<MultiAllFiniteParam>(attrs).num_arrays;
      })
      .set_num_outputs(1)
      .add_argument("data", "NDArray-or-Symbol[]", "The arrays to check.")
      .add_arguments(MultiAllFiniteParam::__FIELDS__())
      .set_attr_parser(ParamParser<MultiAllFiniteParam>)
      .set_attr<FListInputNames>("FListInputNames", ArrayNames)
      .set_attr<FInferShape>("FInferShape", FlagShape)
      .set_attr<FInferType>("FInferType", FlagType);
  SetAllFiniteCompute<cpu>();
  return true;
}();

}  // namespace
}  // namespace all_finite
}  // namespace ops
