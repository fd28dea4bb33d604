// ops/reduce-inl.h: what the CPU (reduce.cc) and GPU (reduce.cu) kernels of the reductions
// sum, mean, max, min, prod, nansum, nanprod and norm share: the parameters, which axes are
// reduced, the reducers and their gradients, and the shape folded into runs of kept and
// reduced axes.
#ifndef OPS_REDUCE_INL_H_
#define OPS_REDUCE_INL_H_

#include <sstream>
#include <type_traits>
#include <utility>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/kernel_util.h"

namespace ops {
namespace reduce {

struct ReduceParam : public dmlc::Parameter<ReduceParam> {
  dmlc::optional<TShape> axis;
  bool keepdims;
  bool exclude;
  DMLC_DECLARE_PARAMETER(ReduceParam) {
    DMLC_DECLARE_FIELD(axis)
        .set_default(dmlc::optional<TShape>())
        .describe("The axes to reduce, e.g. (0,2); negative values count from the end. None "
                  "reduces every axis.");
    DMLC_DECLARE_FIELD(keepdims).set_default(false).describe(
        "Keep the reduced axes, with extent 1.");
    DMLC_DECLARE_FIELD(exclude).set_default(false).describe(
        "Reduce every axis except those in axis.");
  }
};

// norm: the L1 or L2 norm over axes (MXNet 1.9.1 has no `exclude` here).
struct NormParam : public dmlc::Parameter<NormParam> {
  int ord;
  dmlc::optional<TShape> axis;
  bool keepdims;
  DMLC_DECLARE_PARAMETER(NormParam) {
    DMLC_DECLARE_FIELD(ord).set_default(2).set_range(1, 2).describe(
        "The order of the norm: 1 (sum of magnitudes) or 2 (Euclidean).");
    DMLC_DECLARE_FIELD(axis)
        .set_default(dmlc::optional<TShape>())
        .describe("The axes to reduce, e.g. (0,2); negative values count from the end. None "
                  "reduces every axis.");
    DMLC_DECLARE_FIELD(keepdims).set_default(false).describe(
        "Keep the reduced axes, with extent 1.");
  }
};

// Which axes of a rank-`ndim` input are reduced; bad or repeated axes are dmlc::Errors.
inline std::vector<bool> ReducedAxes(const dmlc::optional<TShape>& axes, bool exclude,
                                     int ndim) {
  // None and () both reduce every axis, with or without exclude (as MXNet 1.9.1).
  const bool every_axis = !axes.has_value() || axes->ndim() == 0;
  std::vector<bool> reduced(ndim, every_axis);
  if (!every_axis) {
    for (const index_t axis : *axes) {
      const int a = NormalizeAxis(axis, ndim);
      if (reduced[a]) {
        std::ostringstream os;
        os << "axis " << axis << " appears twice in " << *axes;
        throw dmlc::Error(os.str());
      }
      reduced[a] = true;
    }
    if (exclude) reduced.flip();
  }
  return reduced;
}
inline std::vector<bool> ReducedAxes(const ReduceParam& param, int ndim) {
  return ReducedAxes(param.axis, param.exclude, ndim);
}
inline std::vector<bool> ReducedAxes(const NormParam& param, int ndim) {
  return ReducedAxes(param.axis, false, ndim);
}

// The output shape with kept dims (reduced axes of extent 1), used for the strides.
inline TShape KeptShape(const TShape& in, const std::vector<bool>& reduced) {
  TShape kept = in;
  for (index_t d = 0; d < in.ndim(); ++d) {
    if (reduced[d]) kept[d] = 1;
  }
  return kept;
}

enum class Reducer { kSum, kMean, kMax, kMin, kProd, kNanSum, kNanProd, kNorm1, kNorm2 };

constexpr bool IsNorm(Reducer r) { return r == Reducer::kNorm1 || r == Reducer::kNorm2; }

// The parameters of a reduction's operator.
template <Reducer kReducer>
using ParamOf = std::conditional_t<IsNorm(kReducer), NormParam, ReduceParam>;

// NaN as kValue, other elements as they are: nansum and nanprod are the sum and product of
// the elements so mapped (NaN counting as 0 and 1: the reduction of the numbers alone).
template <int kValue>
struct nan_as {
  template <typename DType>
  MSHADOW_XINLINE static DType Map(DType x) {
    return mshadow::red::detail::IsNan(x) ? DType(kValue) : x;
  }
};

// What each element becomes before it is reduced: |x| for the L1 norm, x * x for the L2
// norm (whose sum then takes a square root), NaN as 0 or 1 for nansum and nanprod, the element
// itself otherwise.
template <Reducer kReducer>
struct ElementMapOf {
  using type = mshadow::op::identity;
};
template <>
struct ElementMapOf<Reducer::kNorm1> {
  using type = mshadow::op::abs;
};
template <>
struct ElementMapOf<Reducer::kNorm2> {
  using type = mshadow::op::square;
};
template <>
struct ElementMapOf<Reducer::kNanSum> {
  using type = nan_as<0>;
};
template <>
struct ElementMapOf<Reducer::kNanProd> {
  using type = nan_as<1>;
};
template <Reducer kReducer>
using ElementMap = typename ElementMapOf<kReducer>::type;

// The tensor itself, or Map of each element as an expression (which the CPU engine
// evaluates in packets). The expression refers to t, which must outlive it.
template <typename Map, typename Device, int kDim, typename DType>
auto Mapped(const Tensor<Device, kDim, DType>& t) {
  if constexpr (std::is_same_v<Map, mshadow::op::identity>) {
    return t;
  } else {
    return mshadow::expr::F<Map>(t);
  }
}

// The reducers mshadow does not have, in its interface (SetInitValue, Reduce, Merge).
struct product {
  template <typename DType>
  MSHADOW_XINLINE static void Reduce(DType& dst, DType src) { dst *= src; }  // NOLINT
  template <typename DType>
  MSHADOW_XINLINE static void Merge(DType& dst, DType src) { dst *= src; }  // NOLINT
  template <typename DType>
  MSHADOW_XINLINE static void SetInitValue(DType& initv) { initv = DType(1); }  // NOLINT
};

// The engine's reducer for each operator (mean sums, then scales).
template <Reducer kReducer>
struct ReducerOf {
  using type = mshadow::red::sum;
};
template <>
struct ReducerOf<Reducer::kMax> {
  using type = mshadow::red::maximum;
};
template <>
struct ReducerOf<Reducer::kMin> {
  using type = mshadow::red::minimum;
};
template <>
struct ReducerOf<Reducer::kProd> {
  using type = product;
};
template <>
struct ReducerOf<Reducer::kNanProd> {
  using type = product;
};
template <Reducer kReducer>
using EngineReducer = typename ReducerOf<kReducer>::type;

// The gradient reaching input element x from its result y, whose gradient is g (scale is
// 1 / count, for mean). As MXNet 1.9.1: max/min pass g to every element equal to the
// result; prod passes g * y / x (inf or NaN where x is 0); the nan reductions pass nothing
// to a NaN; the L1 norm passes g * sign(x), the L2 norm g * x / y (0 where the norm is 0,
// the subgradient, where MXNet 1.9.1 gives 0 / 0 = NaN).
template <Reducer kReducer, typename DType>
MSHADOW_XINLINE DType ReduceGradient(DType g, DType x, DType y, DType scale) {
  if constexpr (kReducer == Reducer::kMean) {
    return g * scale;
  } else if constexpr (kReducer == Reducer::kMax || kReducer == Reducer::kMin) {
    return x == y ? g : DType(0);
  } else if constexpr (kReducer == Reducer::kProd) {
    return g * (y / x);
  } else if constexpr (kReducer == Reducer::kNanSum) {
    return mshadow::red::detail::IsNan(x) ? DType(0) : g;
  } else if constexpr (kReducer == Reducer::kNanProd) {
    return mshadow::red::detail::IsNan(x) ? DType(0) : g * (y / x);
  } else if constexpr (kReducer == Reducer::kNorm1) {
    return x > DType(0) ? g : (x < DType(0) ? -g : DType(0));
  } else if constexpr (kReducer == Reducer::kNorm2) {
    return y == DType(0) ? DType(0) : g * (x / y);
  } else {
    return g;
  }
}

// A shape's axes merged into alternating runs of kept and reduced axes, outermost first,
// unit axes dropped: sum over axis 1 of (8, 4096, 4096) is (kept 8, reduced 4096, kept
// 4096), and axes (0, 2) of (a, b, c, d) give (reduced a, kept b, reduced c, kept d).
struct AxisRuns {
  std::vector<index_t> dims;
  std::vector<bool> reduced;
  void Push(index_t dim, bool is_reduced) {
    if (dim == 1) return;
    if (!dims.empty() && reduced.back() == is_reduced) {
      dims.back() *= dim;
    } else {
      dims.push_back(dim);
      reduced.push_back(is_reduced);
    }
  }
};

inline AxisRuns RunsOf(const TShape& shape, const std::vector<bool>& reduced) {
  AxisRuns runs;
  for (index_t d = 0; d < shape.ndim(); ++d) runs.Push(shape[d], reduced[d]);
  return runs;
}

// Calls fn(std::integral_constant<Reducer, r>(), name, description) for each reduction.
template <typename Fn>
void ForEachReduce(Fn&& fn) {
  fn(std::integral_constant<Reducer, Reducer::kSum>(), "sum", "Sum over the given axes.");
  fn(std::integral_constant<Reducer, Reducer::kMean>(), "mean", "Mean over the given axes.");
  fn(std::integral_constant<Reducer, Reducer::kMax>(), "max",
     "Maximum over the given axes; NaN if any element is NaN.");
  fn(std::integral_constant<Reducer, Reducer::kMin>(), "min",
     "Minimum over the given axes; NaN if any element is NaN.");
  fn(std::integral_constant<Reducer, Reducer::kProd>(), "prod",
     "Product over the given axes.");
  fn(std::integral_constant<Reducer, Reducer::kNanSum>(), "nansum",
     "Sum over the given axes, NaN counted as 0.");
  fn(std::integral_constant<Reducer, Reducer::kNanProd>(), "nanprod",
     "Product over the given axes, NaN counted as 1.");
}

// norm's FCompute: the L1 (ord=1) or the L2 (ord=2) reduction, each compiled separately.
inline FCompute ByNormOrder(FCompute l1, FCompute l2) {
  return [l1 = std::move(l1), l2 = std::move(l2)](
             const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
             const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
    (GetParam<NormParam>(attrs).ord == 1 ? l1 : l2)(attrs, ctx, in, req, out);
  };
}

}  // namespace reduce
}  // namespace ops

// product's packet form, so that prod's and nanprod's reductions run a packet at a time (as
// sum's: partial products per lane, merged at the end).
namespace mshadow {
template <>
struct PacketReducer<ops::reduce::product> {
  static constexpr bool kEnabled = true;
  template <typename P>
  MSHADOW_CINLINE static P Reduce(const P& a, const P& b) {
    return a * b;
  }
};

// nan_as's packet form (x == x is false for NaN alone), for the engine's vector path.
namespace packet {
template <int kValue, typename DType, PacketArch Arch>
struct PacketOp<ops::reduce::nan_as<kValue>, DType, Arch> {
  static constexpr bool kEnabled = true;
  using P = Packet<DType, Arch>;
  MSHADOW_CINLINE static P Map(const P& x) { return SelectEqual(x, x, x, P::Fill(DType(kValue))); }
};
}  // namespace packet
}  // namespace mshadow

#endif  // OPS_REDUCE_INL_H_
