// broadcast_to, broadcast_like, broadcast_axis, tile, repeat and their backward operators: the
// views each broadcasts between, their shape inference, the CPU registration. The computation, for
// every device: broadcast_to-inl.h; FCompute<gpu>: broadcast_to.cu.
#include <algorithm>
#include <array>
#include <cstring>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "mshadow/streaming_stores.h"
#include "ops/broadcast_to-inl.h"
#include "ops/row_pieces.h"

#if defined(__AVX512F__)
#include "mshadow/immintrin.h"
#endif

namespace ops {
namespace broadcast_to {

DMLC_REGISTER_PARAMETER(BroadcastToParam);
DMLC_REGISTER_PARAMETER(BroadcastLikeParam);
DMLC_REGISTER_PARAMETER(BroadcastAxesParam);
DMLC_REGISTER_PARAMETER(TileParam);
DMLC_REGISTER_PARAMETER(RepeatParam);

namespace {

[[noreturn]] void Fail(const std::string& message) { throw dmlc::Error(message); }

std::vector<index_t> Dims(const TShape& shape) { return {shape.begin(), shape.end()}; }

// Rows shorter than this that copy one input element (repeat along the last axis) are
// written together, each input element of a run n times, instead of a row at a time.
constexpr index_t kShortFill = 16;

#if defined(__AVX512F__)
// RepeatEach of float, kN dividing 16, for the first elements of x: a packet of 16 outputs
// from 16 / kN inputs (loaded alone, nothing past them read) by one permutation. Returns the
// inputs done. GCC had written the copies one element at a time (3 cycles an element).
template <bool kAdd, index_t kN>
index_t RepeatEachInPackets(float* y, const float* x, index_t m) {
  constexpr index_t kPer = 16 / kN;  // inputs per packet
  alignas(64) int32_t lanes[16];
  for (int l = 0; l < 16; ++l) lanes[l] = static_cast<int32_t>(l / kN);
  const __m512i pick = _mm512_load_si512(lanes);
  index_t i = 0;
  for (; i + kPer <= m; i += kPer) {
    __m512 inputs;
    if constexpr (kPer == 8) {
      inputs = _mm512_castps256_ps512(_mm256_loadu_ps(x + i));
    } else if constexpr (kPer == 4) {
      inputs = _mm512_castps128_ps512(_mm_loadu_ps(x + i));
    } else {
      double pair;  // two floats
      std::memcpy(&pair, x + i, sizeof(pair));
      inputs = _mm512_castps128_ps512(_mm_castpd_ps(_mm_set_sd(pair)));
    }
    __m512 out = _mm512_permutexvar_ps(pick, inputs);
    if constexpr (kAdd) out = _mm512_add_ps(out, _mm512_loadu_ps(y + i * kN));
    _mm512_storeu_ps(y + i * kN, out);
  }
  return i;
}
#endif

// y[i * kN + k] (+)= x[i] for i < m, k < kN (kN 0: n copies, a run-time count).
template <bool kAdd, index_t kN, typename DType>
void RepeatEach(DType* y, const DType* x, index_t m, index_t n) {
  const index_t copies = kN > 0 ? kN : n;
  index_t i = 0;
#if defined(__AVX512F__)
  if constexpr (std::is_same_v<DType, float> && kN > 0 && 16 % kN == 0) {
    i = RepeatEachInPackets<kAdd, kN>(y, x, m);
  }
#endif
  for (; i < m; ++i) {
    DType* row = y + i * copies;
    for (index_t k = 0; k < copies; ++k) row[k] = kAdd ? row[k] + x[i] : x[i];
  }
}

// The short fills of `axes` (their rows of fewer than kShortFill copies of one element, the
// next axis out stepping through consecutive input elements) as runs of RepeatEach along that
// axis; false where the rows are not such. A call per row of a few elements had cost about
// 5 ns a row (repeat along axis 1 of (1024, 1024), 0.9 of MXNet at 2 threads;
// docs/benchmarks.md, seventy-eighth session).
template <bool kAdd, typename DType>
bool WriteShortFills(const MergedAxes<2>& axes, const DType* x, DType* y) {
  const int nd = axes.ndim();
  const index_t n = axes.Inner();
  if (nd < 2 || axes.InnerStride(1) != 0 || n >= kShortFill || axes.stride[1][nd - 2] != 1) {
    return false;
  }
  MergedAxes<2> runs;  // the axes without the fill: pieces of input elements to repeat
  runs.extent.assign(axes.extent.begin(), axes.extent.end() - 1);
  for (size_t k = 0; k < 2; ++k) {
    runs.stride[k].assign(axes.stride[k].begin(), axes.stride[k].end() - 1);
  }
  ForEachPiece<DType>(runs, [&](const std::array<index_t, 2>& at, index_t j, index_t m) {
    DType* to = y + at[0] + j * n;
    const DType* from = x + at[1] + j;
    switch (n) {
      case 2: return RepeatEach<kAdd, 2>(to, from, m, n);
      case 4: return RepeatEach<kAdd, 4>(to, from, m, n);
      case 8: return RepeatEach<kAdd, 8>(to, from, m, n);
      default: return RepeatEach<kAdd, 0>(to, from, m, n);
    }
  });
  return true;
}

}  // namespace

void BroadcastForwardCpu(const Views& views, const TBlob& in, OpReqType req, const TBlob& out) {
  if (out.Size() == 0) return;
  const Views v = Merged(views);
  const TShape in_shape(v.in.begin(), v.in.end()), out_shape(v.out.begin(), v.out.end());
  const MergedAxes<2> axes =
      MergeAxes<2>(out_shape, {RowMajorStrides(out_shape), BroadcastStrides(in_shape, out_shape)});
  const bool runs = axes.InnerStride(1) != 0 || axes.ndim() == 0;  // else each row is a fill
  MSHADOW_SGL_DBL_TYPE_SWITCH(out.type_flag_, DType, {
    const DType* x = in.dptr<DType>();
    DType* y = out.dptr<DType>();
    // An output too large to stay cached is written around the caches: no read of each line
    // before its write (docs/benchmarks.md, forty-third session).
    const bool stream = runs && req != kAddTo && StreamsCopyOf(out.Size() * sizeof(DType));
    vec::WithReq(req, [&](auto add) {
      constexpr bool kAdd = decltype(add)::value;
      if (WriteShortFills<kAdd>(axes, x, y)) return;
      ForEachPiece<DType>(axes, [&](const std::array<index_t, 2>& at, index_t j, index_t n) {
        if (!runs) {
          FillRun<kAdd>(y + at[0] + j, x[at[1]], n);
        } else if (!kAdd && stream) {
          StreamRun(y + at[0] + j, x + at[1] + j, n);
        } else {
          CopyRun<kAdd>(y + at[0] + j, x + at[1] + j, n);
        }
      });
    });
    if (stream)
      mshadow::FenceStreamingStores();  // this thread's part (ParallelFor fences its workers)
  });
}

Views BroadcastToViews(const BroadcastToParam& param, const TShape& data) {
  const TShape& target = param.shape;
  if (target.ndim() != data.ndim()) {
    std::ostringstream os;
    os << "cannot broadcast " << data << " to shape " << target << ": the ranks differ";
    Fail(os.str());
  }
  Views v{Dims(data), Dims(data)};
  for (size_t d = 0; d < v.out.size(); ++d) {
    const index_t want = target[d] == 0 ? data[d] : target[d];
    if (want != data[d] && data[d] != 1) {
      std::ostringstream os;
      os << "cannot broadcast " << data << " to shape " << target << ": axis " << d
         << " has extent " << data[d] << ", neither 1 nor " << want;
      Fail(os.str());
    }
    v.out[d] = want;
  }
  return v;
}

Views BroadcastLikeViews(const BroadcastLikeParam& param, const TShape& lhs, const TShape& rhs) {
  if (!param.lhs_axes.has_value() && !param.rhs_axes.has_value()) {
    BroadcastToParam to;
    to.shape = rhs;
    return BroadcastToViews(to, lhs);
  }
  if (!param.lhs_axes.has_value() || !param.rhs_axes.has_value() ||
      param.lhs_axes.value().ndim() != param.rhs_axes.value().ndim()) {
    Fail("broadcast_like: lhs_axes and rhs_axes must be given together and be as long");
  }
  BroadcastToParam to;
  to.shape = lhs;
  for (index_t i = 0; i < param.lhs_axes.value().ndim(); ++i) {
    const int l = NormalizeAxis(param.lhs_axes.value()[i], lhs.ndim(), "lhs_axes");
    const int r = NormalizeAxis(param.rhs_axes.value()[i], rhs.ndim(), "rhs_axes");
    to.shape[l] = rhs[r];
  }
  return BroadcastToViews(to, lhs);
}

// Each axis[i] (of extent 1) stretched to size[i]; an axis named twice is an error, as in
// MXNet (its second naming finds the extent already stretched).
Views BroadcastAxesViews(const BroadcastAxesParam& param, const TShape& data) {
  if (param.axis.ndim() != param.size.ndim()) {
    std::ostringstream os;
    os << "broadcast_axis: axis " << param.axis << " and size " << param.size << " must be as long";
    Fail(os.str());
  }
  Views v{Dims(data), Dims(data)};
  std::vector<bool> named(data.ndim(), false);
  for (index_t i = 0; i < param.axis.ndim(); ++i) {
    const int a = NormalizeAxis(param.axis[i], data.ndim());
    const index_t size = param.size[i];
    if (data[a] != 1 || named[a]) {
      std::ostringstream os;
      os << "broadcast_axis: axis " << param.axis[i] << " of " << data
         << (named[a] ? " is named twice" : " has extent " + std::to_string(data[a]))
         << "; only axes of extent 1 broadcast, once each";
      Fail(os.str());
    }
    if (size < 1) {
      std::ostringstream os;
      os << "broadcast_axis: size " << size << " for axis " << param.axis[i]
         << " must be at least 1 (this library has no empty arrays)";
      Fail(os.str());
    }
    named[a] = true;
    v.out[a] = size;
  }
  return v;
}

// (d0, ..., dn) by reps (r0, ..., rn), after padding the shorter with leading 1s: the view
// (1, d0, ..., 1, dn) broadcast to (r0, d0, ..., rn, dn).
Views TileViews(const TileParam& param, const TShape& data) {
  const index_t ndim = std::max<index_t>(param.reps.ndim(), data.ndim());
  Views v;
  for (index_t d = 0; d < ndim; ++d) {
    const index_t from_end = ndim - d;
    const index_t extent = from_end <= data.ndim() ? data[data.ndim() - from_end] : 1;
    const index_t reps =
        from_end <= param.reps.ndim() ? param.reps[param.reps.ndim() - from_end] : 1;
    if (reps < 1) {
      std::ostringstream os;
      os << "tile: reps " << param.reps << " must be at least 1 each (this library has no "
         << "empty arrays)";
      Fail(os.str());
    }
    v.in.insert(v.in.end(), {1, extent});
    v.out.insert(v.out.end(), {reps, extent});
  }
  return v;
}

// Along axis a of (..., da, ...): the view (..., da, 1, ...) broadcast to (..., da, r, ...);
// without an axis, the flattened input (n, 1) to (n, r).
Views RepeatViews(const RepeatParam& param, const TShape& data) {
  const index_t r = param.repeats;
  if (!param.axis.has_value()) return Views{{data.Size(), 1}, {data.Size(), r}};
  const int axis = NormalizeAxis(param.axis.value(), data.ndim());
  Views v{Dims(data), Dims(data)};
  v.in.insert(v.in.begin() + axis + 1, 1);
  v.out.insert(v.out.begin() + axis + 1, r);
  return v;
}

namespace {

// The output shape: the output view, with the pairs a view split merged back (tile: each
// (r, d) is r * d; repeat: (d, r) is d * r, or n * r flattened). A merged extent past index_t
// is an error naming the operator, never a wrapped (undefined) product.
TShape Fold(const char* op, const std::vector<index_t>& out, size_t group, size_t first,
            size_t count) {
  std::vector<index_t> dims(out.begin(), out.begin() + first);
  for (size_t g = 0; g < count; ++g) {
    index_t extent = 1;
    for (size_t k = 0; k < group; ++k) {
      const index_t factor = out[first + g * group + k];
      if (__builtin_mul_overflow(extent, factor, &extent)) {
        std::ostringstream os;
        os << op << ": an output extent " << out[first + g * group] << " x "
           << out[first + g * group + 1] << " overflows index_t";
        Fail(os.str());
      }
    }
    dims.push_back(extent);
  }
  dims.insert(dims.end(), out.begin() + first + group * count, out.end());
  return TShape(dims.begin(), dims.end());
}

template <typename Param, Views (*kViews)(const Param&, const TShape&)>
bool SameRankShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  if (!ShapeIsKnown((*in)[0])) return false;
  const Views v = kViews(GetParam<Param>(attrs), (*in)[0]);
  AssignOutputShape(out, 0, TShape(v.out.begin(), v.out.end()));
  return true;
}

bool TileShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  if (!ShapeIsKnown((*in)[0])) return false;
  const Views v = TileViews(GetParam<TileParam>(attrs), (*in)[0]);
  AssignOutputShape(out, 0, Fold("tile", v.out, 2, 0, v.out.size() / 2));
  return true;
}

bool RepeatShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  const RepeatParam& param = GetParam<RepeatParam>(attrs);
  const Views v = RepeatViews(param, data);
  const size_t axis = param.axis.has_value() ? NormalizeAxis(param.axis.value(), data.ndim()) : 0;
  AssignOutputShape(out, 0, Fold("repeat", v.out, 2, axis, 1));
  return true;
}

bool BroadcastLikeShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  if (!ShapeIsKnown((*in)[0]) || !ShapeIsKnown((*in)[1])) return false;
  const Views v = BroadcastLikeViews(GetParam<BroadcastLikeParam>(attrs), (*in)[0], (*in)[1]);
  AssignOutputShape(out, 0, TShape(v.out.begin(), v.out.end()));
  return true;
}

// Registers a forward operator of one input and its backward operator (inputs: out_grad,
// data).
template <typename Param>
Op& DefineUnary(const std::string& name, const std::string& description, FInferShape infer) {
  Op& op = RegisterOp(name)
               .describe(description)
               .set_num_inputs(1)
               .set_num_outputs(1)
               .add_argument("data", "NDArray-or-Symbol", "The input array.")
               .set_attr<FInferShape>("FInferShape", infer)
               .set_attr<FInferType>("FInferType", ElemwiseRealType<1, 1>);
  op.add_arguments(Param::__FIELDS__());
  op.set_attr_parser(ParamParser<Param>);
  op.set_attr<FGradient>("FGradient", FGradient{"_backward_" + name, true, false});
  RegisterOp("_backward_" + name)
      .describe("Gradient of " + name + ": the output gradient summed over the copies.")
      .set_num_inputs(2)
      .set_num_outputs(1)
      .set_attr<bool>("TIsBackward", true)
      .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace)  // sum's
      .set_attr_parser(ParamParser<Param>);
  return op;
}

const bool kRegistered = [] {
  DefineUnary<BroadcastToParam>(
      "broadcast_to",
      "Broadcasts the input to shape (same rank; axes of extent 1 stretch; 0 keeps an extent).",
      SameRankShape<BroadcastToParam, BroadcastToViews>);
  DefineUnary<BroadcastAxesParam>("broadcast_axis",
                                  "Broadcasts the input's axes of extent 1 to the given sizes.",
                                  SameRankShape<BroadcastAxesParam, BroadcastAxesViews>)
      .add_alias("broadcast_axes");
  DefineUnary<TileParam>("tile", "Repeats the whole input reps[i] times along each axis i.",
                         TileShape);
  DefineUnary<RepeatParam>(
      "repeat", "Repeats each element `repeats` times along axis (or of the flattened input).",
      RepeatShape);
  Op& like = RegisterOp("broadcast_like")
                 .describe("Broadcasts lhs to rhs's shape (or lhs_axes to the extents of "
                           "rhs_axes); rhs gets no gradient.")
                 .set_num_inputs(2)
                 .set_num_outputs(1)
                 .add_argument("lhs", "NDArray-or-Symbol", "The array to broadcast.")
                 .add_argument("rhs", "NDArray-or-Symbol", "The array whose shape it takes.")
                 .add_arguments(BroadcastLikeParam::__FIELDS__())
                 .set_attr_parser(ParamParser<BroadcastLikeParam>)
                 .set_attr<FInferShape>("FInferShape", BroadcastLikeShape)
                 .set_attr<FInferType>("FInferType", ElemwiseRealType<2, 1>);
  like.set_attr<FGradient>("FGradient", FGradient{"_backward_broadcast_like", true, false});
  RegisterOp("_backward_broadcast_like")
      .describe("Gradient of broadcast_like.")
      .set_num_inputs(3)
      .set_num_outputs(2)
      .set_attr<bool>("TIsBackward", true)
      .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace)  // sum's
      .set_attr_parser(ParamParser<BroadcastLikeParam>);
  SetBroadcastToCompute<cpu>();
  return true;
}();

}  // namespace

}  // namespace broadcast_to
}  // namespace ops
