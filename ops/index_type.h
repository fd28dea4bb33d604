// ops/index_type.h: the types integer-valued arrays (positions, lengths) may come in, and
// dispatch over them: the operators that return indices (topk, argsort) or read lengths
// (Sequence*) accept the same four; and reading such an array on the host, for the checks that
// name a bad index before any kernel reads it (take's mode raise, gather_nd, scatter_nd).
#ifndef OPS_INDEX_TYPE_H_
#define OPS_INDEX_TYPE_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "mshadow/tensor.h"
#include "mshadow/type_flag.h"
#include "ops/kernel_util.h"
#include "ops/registration_util.h"
#include "ops/vector_loop.h"

namespace ops {

// A dmlc parameter field offering the index types, float32 by default (as MXNet's dtype
// fields). MXNet also offers uint8 and float16, which cannot hold the positions of most axes.
template <typename Field>
Field& IndexTypes(Field& field) {
  return field.add_enum("float32", mshadow::kFloat32)
      .add_enum("float64", mshadow::kFloat64)
      .add_enum("int32", mshadow::kInt32)
      .add_enum("int64", mshadow::kInt64)
      .set_default(mshadow::kFloat32);
}

inline bool IsIndexType(int flag) {
  return flag == mshadow::kFloat32 || flag == mshadow::kFloat64 || flag == mshadow::kInt32 ||
         flag == mshadow::kInt64;
}

// fn(TypeTag<IType>()) for an index type (IsIndexType; type inference refuses the others).
template <typename Fn>
void WithIndexType(int flag, Fn&& fn) {
  switch (flag) {
    case mshadow::kFloat32:
      return fn(TypeTag<float>());
    case mshadow::kFloat64:
      return fn(TypeTag<double>());
    case mshadow::kInt32:
      return fn(TypeTag<int32_t>());
    default:
      return fn(TypeTag<int64_t>());
  }
}

// The values of `indices` on the host: a GPU's copied there (waiting for the stream).
template <typename xpu, typename IType>
std::vector<IType> IndicesOnHost(const TBlob& indices, mshadow::Stream<xpu>* s) {
  const index_t count = static_cast<index_t>(indices.Size());
  std::vector<IType> host(static_cast<size_t>(count));
  if constexpr (std::is_same_v<xpu, mshadow::cpu>) {
    std::copy(indices.dptr<IType>(), indices.dptr<IType>() + count, host.begin());
  } else {
    mshadow::Tensor<mshadow::cpu, 1, IType> dst(host.data(), mshadow::Shape1(count));
    mshadow::Copy(dst, Flat<xpu, IType>(indices, s), s);
    s->Wait();
  }
  return host;
}

// fn(const IType* values, index_t count) with `indices` readable on the host: the CPU's in
// place, a GPU's copied (IndicesOnHost).
template <typename xpu, typename IType, typename Fn>
void WithIndicesOnHost(const TBlob& indices, mshadow::Stream<xpu>* s, Fn&& fn) {
  if constexpr (std::is_same_v<xpu, mshadow::cpu>) {
    fn(indices.dptr<IType>(), static_cast<index_t>(indices.Size()));
  } else {
    const std::vector<IType> host = IndicesOnHost<xpu, IType>(indices, s);
    fn(host.data(), static_cast<index_t>(host.size()));
  }
}

// The position of the first of `count` values for which inside(value) is false, or `count`
// when there is none: the values counted in SIMD lanes first, and searched one by one only
// when one is outside (a bad index is an error).
template <typename IType, typename Inside>
index_t FirstNotInside(const IType* values, index_t count, Inside inside) {
  index_t outside = 0;
  OPS_SIMD_SUM(outside)
  for (index_t j = 0; j < count; ++j) outside += inside(values[j]) ? 0 : 1;
  if (outside == 0) return count;
  index_t j = 0;
  while (inside(values[j])) ++j;
  return j;
}

// The position of the first of `count` values outside the open interval (low, high), or
// `count` when none is. Floating-point values are compared as doubles (NaN is outside);
// integers in their own type, against the first and last whole numbers inside the interval
// (a lane per value, where a conversion to double had taken two).
template <typename IType>
index_t FirstOutside(const IType* values, index_t count, double low, double high) {
  if constexpr (std::is_integral_v<IType>) {
    using Limits = std::numeric_limits<IType>;
    const double first = std::floor(low) + 1, last = std::ceil(high) - 1;
    const double type_min = static_cast<double>(Limits::min());
    const double type_max = static_cast<double>(Limits::max());
    if (!(first <= last) || first > type_max || last < type_min) return 0;  // none is inside
    const IType lo = first <= type_min ? Limits::min() : static_cast<IType>(first);
    const IType hi = last >= type_max ? Limits::max() : static_cast<IType>(last);
    return FirstNotInside(values, count, [lo, hi](IType v) { return v >= lo && v <= hi; });
  } else {
    return FirstNotInside(values, count, [low, high](IType value) {
      const double v = static_cast<double>(value);
      return v > low && v < high;
    });
  }
}

}  // namespace ops

#endif  // OPS_INDEX_TYPE_H_
