// softmax(axis, temperature, use_length, dtype), log_softmax and softmin (axis, temperature,
// dtype) and softmax_cross_entropy, with backward operators. 16-bit data or a dtype other than the
// data's runs the float32/float64 kernels through converted copies (ComputeConverted). Each works
// on (outer, n, inner) views of the input, n being the extent of the axis, and subtracts the
// maximum before exponentiating (no overflow). The CPU kernels are here; softmax.cu has the GPU's.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "ops/kernel_util.h"
#include "ops/softmax-inl.h"
#include "ops/vector_loop.h"

namespace ops {
namespace softmax {
namespace {

// Whether attrs belong to softmin or its backward operator.
bool IsSoftmin(const NodeAttrs& attrs) {
  return attrs.op != nullptr &&
         (attrs.op->name == "softmin" || attrs.op->name == "_backward_softmin");
}

void ParseSoftmax(NodeAttrs* attrs) {
  ParamParser<SoftmaxParam>(attrs);
  // Negative temperatures are valid (MXNet takes them); 0 would divide by zero (MXNet gives
  // NaN everywhere).
  const SoftmaxParam& param = GetParam<SoftmaxParam>(*attrs);
  const auto& t = param.temperature;
  if (t.has_value() && !(*t != 0)) {
    throw dmlc::ParamError("temperature must be nonzero (negative reverses the order), got " +
                           dmlc::NumberToString(*t));
  }
  if (param.use_length && attrs->op != nullptr && attrs->op->name != "softmax" &&
      attrs->op->name != "_backward_softmax") {
    throw dmlc::ParamError("use_length is softmax's alone (as in MXNet 1.9.1); " +
                           attrs->op->name + " has no length input");
  }
  // softmin(x) at temperature T is softmax(x) at temperature -T: its kernels, forward and
  // backward, on either device, are softmax's, given the negated temperature.
  if (IsSoftmin(*attrs)) {
    SoftmaxParam negated = param;
    negated.temperature = -t.value_or(1.0);
    attrs->parsed = std::move(negated);
  }
}

uint32_t NumInputs(const NodeAttrs& attrs) {
  return GetParam<SoftmaxParam>(attrs).use_length ? 2 : 1;
}

std::vector<std::string> InputNames(const NodeAttrs& attrs) {
  if (GetParam<SoftmaxParam>(attrs).use_length) return {"data", "length"};
  return {"data"};
}

// The output is the data's shape; length (with use_length) the data's without the axis.
bool SoftmaxShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  const int axis =
      NormalizeAxis(GetParam<SoftmaxParam>(attrs).axis, static_cast<int>(data.ndim()));
  if (in->size() > 1) {
    std::vector<index_t> dims;
    for (index_t d = 0; d < data.ndim(); ++d) {
      if (static_cast<int>(d) != axis) dims.push_back(data[d]);
    }
    if (dims.empty()) dims.push_back(1);
    AssignInputShape(in, 1, TShape(dims.begin(), dims.end()));
  }
  AssignOutputShape(out, 0, data);
  return true;
}

// The data is float16, bfloat16, float32 or float64; the output has dtype (the data's type
// when None); length is an index type (the data's when unknown).
bool SoftmaxType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  const int data = (*in)[0];
  if (data == -1) return false;
  if (data != mshadow::kFloat16 && data != mshadow::kBfloat16 && data != mshadow::kFloat32 &&
      data != mshadow::kFloat64) {
    throw dmlc::Error("data type " + mshadow::TypeFlagName(data) +
                      " is not supported; valid: float16, bfloat16, float32, float64");
  }
  if (in->size() > 1) {
    const int length = (*in)[1];
    if (length != -1 && !IsIndexType(length)) {
      throw dmlc::Error("length has type " + mshadow::TypeFlagName(length) +
                        "; it must be int32, int64, float32 or float64");
    }
    if (length == -1) AssignInputType(in, 1, data);
  }
  AssignOutputType(out, 0, GetParam<SoftmaxParam>(attrs).dtype.value_or(data));
  return true;
}

// ---- Kernels. Along the last axis (inner = 1) each row is contiguous: one vectorized pass
// for its maximum, one for the sum of exponentials, one for the write. Along another axis
// the same passes run down the axis over a block of contiguous columns at once, with a
// running maximum and sum per column. Rows (or outer slices and column blocks) are split
// over the engine's threads; each is computed the same way for any thread count.

using mshadow::packet::Exp;
using mshadow::packet::Log;
using mshadow::packet::Max;

// Columns per block when normalizing along an axis other than the last: their running
// maxima and sums stay in L1.
constexpr index_t kColumnBlock = 512;

// Calls fn(o, k0, k1) for every outer slice o and column block [k0, k1) of the view, over
// the engine's threads.
template <typename Fn>
void ForEachColumnBlock(const AxisView& v, Fn&& fn) {
  const index_t blocks = (v.inner + kColumnBlock - 1) / kColumnBlock;
  ParallelRows(v.outer * blocks, v.n * std::min(v.inner, kColumnBlock),
               [&](index_t begin, index_t end) {
                 for (index_t item = begin; item < end; ++item) {
                   const index_t o = item / blocks, k0 = item % blocks * kColumnBlock;
                   fn(o, k0, std::min(k0 + kColumnBlock, v.inner));
                 }
               });
}

// The largest element of a contiguous row.
template <typename DType>
DType RowMax(const DType* x, index_t n) {
  return vec::Max<DType>(n, [&](index_t i, auto tag) {
    return vec::PacketOf<decltype(tag)>::LoadUnAligned(x + i);
  });
}

// The shift that keeps exp((x - shift) * inv_t) at most 1: the row's maximum, or its minimum
// for a negative temperature.
template <typename DType>
DType RowShift(const DType* x, index_t n, DType inv_t) {
  if (inv_t >= 0) return RowMax(x, n);
  return -vec::Max<DType>(n, [&](index_t i, auto tag) {
    using P = vec::PacketOf<decltype(tag)>;
    return P::Fill(DType(0)) - P::LoadUnAligned(x + i);
  });
}

// A row longer than kRowBlockBytes is read in blocks: each block's maximum and then its
// exponentials, while the next block is prefetched, so that the row comes from memory once,
// behind the exponentials, rather than once for a maximum over the whole row and again for
// the sum (softmax and log_softmax on (64, 32768) 1.1-1.3x faster at one thread,
// docs/benchmarks.md).
constexpr index_t kRowBlockBytes = 8192;
template <typename DType>
constexpr index_t RowBlock() {
  return kRowBlockBytes / static_cast<index_t>(sizeof(DType));
}
// The shifts a row's blocks take (none where it is one block).
template <typename DType>
index_t RowBlockShifts(index_t n) {
  return n > RowBlock<DType>() ? (n + RowBlock<DType>() - 1) / RowBlock<DType>() : 0;
}

template <typename DType>
struct ShiftedSum {
  DType shift, sum;
};

// The sum of exp((x - shift) * inv_t) over x[0, n), and the exponentials written to e where
// kStore; where kPrefetch, next[0, n) prefetched along the way.
template <bool kStore, bool kPrefetch = false, typename DType>
DType SumOfShiftedExp(const DType* x, index_t n, DType shift, DType inv_t, DType* e,
                      const DType* next = nullptr) {
  return vec::Sum<DType>(n, [&](index_t i, auto tag) {
    using P = vec::PacketOf<decltype(tag)>;
    if constexpr (kPrefetch) __builtin_prefetch(next + i, 0, 3);
    const P value = Exp((P::LoadUnAligned(x + i) - P::Fill(shift)) * P::Fill(inv_t));
    if constexpr (kStore) value.StoreUnAligned(e + i);
    return value;
  });
}

// A row's shift (RowShift's) and sum of exp((x - shift) * inv_t) by blocks: each block's
// exponentials taken from the shift of the blocks so far, the sum so far rescaled where a
// block moves that shift, and (kStore) block_shift[b] the shift of block b's. False where that
// shift is not finite (infinities or NaN), which the caller takes by whole passes.
template <bool kStore, typename DType>
bool BlockedShiftedSum(const DType* x, index_t n, DType inv_t, DType* e, DType* block_shift,
                       ShiftedSum<DType>* result) {
  constexpr index_t kBlock = RowBlock<DType>();
  DType shift = 0, sum = 0;
  for (index_t b = 0, begin = 0; begin < n; ++b, begin += kBlock) {
    const index_t len = std::min(kBlock, n - begin);
    const DType block = RowShift(x + begin, len, inv_t);
    if (!std::isfinite(block)) return false;
    if (b == 0) {
      shift = block;
    } else if ((block - shift) * inv_t > 0) {
      sum *= std::exp((shift - block) * inv_t);
      shift = block;
    }
    DType* eb = kStore ? e + begin : e;
    sum += begin + 2 * kBlock <= n
               ? SumOfShiftedExp<kStore, true>(x + begin, len, shift, inv_t, eb, x + begin + len)
               : SumOfShiftedExp<kStore>(x + begin, len, shift, inv_t, eb);
    if constexpr (kStore) block_shift[b] = shift;
  }
  *result = {shift, sum};
  return true;
}

// A row's shift and sum of exp((x - shift) * inv_t), with the exponentials in e where kStore:
// by blocks where the row is longer than one (kStore: block_shift, RowBlockShifts(n) elements),
// otherwise (or where the blocks' shift is not finite) by whole passes, every block's
// exponentials then from the row's shift.
template <bool kStore, typename DType>
ShiftedSum<DType> RowShiftedSum(const DType* x, index_t n, DType inv_t, DType* e,
                                DType* block_shift) {
  const index_t blocks = RowBlockShifts<DType>(n);
  ShiftedSum<DType> s;
  if (blocks > 0 && BlockedShiftedSum<kStore>(x, n, inv_t, e, block_shift, &s)) return s;
  s.shift = RowShift(x, n, inv_t);
  s.sum = SumOfShiftedExp<kStore>(x, n, s.shift, inv_t, e);
  if constexpr (kStore) std::fill(block_shift, block_shift + blocks, s.shift);
  return s;
}

// One contiguous row: y = softmax(x * inv_t) or its log. `scratch` (n elements) holds the
// exponentials when y is accumulated into; block_shift (RowBlockShifts(n) elements, softmax's) the
// shift each block's were taken from.
template <bool kLog, bool kAdd, typename DType>
void SoftmaxRow(const DType* x, DType* y, index_t n, DType inv_t, DType* scratch,
                DType* block_shift) {
  if (kLog) {
    const ShiftedSum<DType> s = RowShiftedSum<false, DType>(x, n, inv_t, nullptr, nullptr);
    const DType log_sum = std::log(s.sum);
    vec::ForEach<DType>(n, [&](index_t i, auto tag) {
      using P = vec::PacketOf<decltype(tag)>;
      vec::Store<kAdd>(
          y + i, (P::LoadUnAligned(x + i) - P::Fill(s.shift)) * P::Fill(inv_t) - P::Fill(log_sum));
    });
    return;
  }
  DType* e = kAdd ? scratch : y;
  const ShiftedSum<DType> s = RowShiftedSum<true>(x, n, inv_t, e, block_shift);
  constexpr index_t kBlock = RowBlock<DType>();
  const bool blocks = RowBlockShifts<DType>(n) > 0;
  for (index_t b = 0, begin = 0; begin < n; ++b, begin += kBlock) {
    // The block's exponentials, taken from its own shift, scaled to the row's.
    const DType scale = (blocks ? std::exp((block_shift[b] - s.shift) * inv_t) : DType(1)) / s.sum;
    const DType* eb = e + begin;
    DType* yb = y + begin;
    vec::ForEach<DType>(std::min(kBlock, n - begin), [&](index_t i, auto tag) {
      using P = vec::PacketOf<decltype(tag)>;
      vec::Store<kAdd>(yb + i, P::LoadUnAligned(eb + i) * P::Fill(scale));
    });
  }
}

// Columns [k0, k1) of one outer slice, normalized down the axis (n rows `inner` apart).
// max and sum are per-column scratch of k1 - k0 elements.
template <bool kLog, bool kAdd, typename DType>
void SoftmaxColumns(const DType* x, DType* y, const AxisView& v, index_t k0, index_t k1,
                    DType inv_t, DType* max, DType* sum) {
  const index_t width = k1 - k0;
  std::fill(max, max + width, -std::numeric_limits<DType>::infinity());
  std::fill(sum, sum + width, DType(0));
  // The shift per column: the maximum, or for a negative temperature the minimum (the
  // maximum of -x, negated).
  const DType sign = inv_t < 0 ? DType(-1) : DType(1);
  for (index_t j = 0; j < v.n; ++j) {
    const DType* row = x + j * v.inner + k0;
    vec::ForEach<DType>(width, [&](index_t k, auto tag) {
      using P = vec::PacketOf<decltype(tag)>;
      Max(P::LoadUnAligned(max + k), P::LoadUnAligned(row + k) * P::Fill(sign))
          .StoreUnAligned(max + k);
    });
  }
  for (index_t k = 0; k < width; ++k) max[k] *= sign;
  // exp((x - max) * inv_t) for row j, column k.
  auto shifted_exp = [&](index_t j, index_t k, auto tag) {
    using P = vec::PacketOf<decltype(tag)>;
    return Exp((P::LoadUnAligned(x + j * v.inner + k0 + k) - P::LoadUnAligned(max + k)) *
               P::Fill(inv_t));
  };
  for (index_t j = 0; j < v.n; ++j) {
    vec::ForEach<DType>(width, [&](index_t k, auto tag) {
      using P = vec::PacketOf<decltype(tag)>;
      (P::LoadUnAligned(sum + k) + shifted_exp(j, k, tag)).StoreUnAligned(sum + k);
    });
  }
  for (index_t k = 0; k < width; ++k) sum[k] = kLog ? std::log(sum[k]) : DType(1) / sum[k];
  for (index_t j = 0; j < v.n; ++j) {
    DType* out = y + j * v.inner + k0;
    vec::ForEach<DType>(width, [&](index_t k, auto tag) {
      using P = vec::PacketOf<decltype(tag)>;
      if (kLog) {
        const P shifted = (P::LoadUnAligned(x + j * v.inner + k0 + k) - P::LoadUnAligned(max + k)) *
                          P::Fill(inv_t);
        vec::Store<kAdd>(out + k, shifted - P::LoadUnAligned(sum + k));
      } else {
        vec::Store<kAdd>(out + k, shifted_exp(j, k, tag) * P::LoadUnAligned(sum + k));
      }
    });
  }
}

// softmax with use_length: each line's valid prefix normalized, the rest 0. Rows (the last
// axis) run SoftmaxRow on the prefix; other axes run the strided line kernel.
template <typename DType, typename LType>
void MaskedSoftmax(const DType* x, const LType* length, DType* y, const AxisView& v,
                   DType inv_t, OpReqType req) {
  if (v.inner != 1) {
    OPS_REQ_SWITCH(req, kReq, {
      Kernel<masked_softmax_line<kReq>, cpu>::LaunchItems(nullptr, v.outer * v.inner, 4 * v.n,
                                                          v, x, length, inv_t, y);
    });
    return;
  }
  vec::WithReq(req, [&](auto add) {
    constexpr bool kAdd = decltype(add)::value;
    ParallelRows(v.outer, v.n, [&](index_t begin, index_t end) {
      std::vector<DType> scratch(kAdd ? v.n : 0), block_shift(RowBlockShifts<DType>(v.n));
      for (index_t r = begin; r < end; ++r) {
        const index_t valid = ClampedLength(length[r], v.n);
        DType* row = y + r * v.n;
        if (valid > 0) {
          SoftmaxRow<false, kAdd>(x + r * v.n, row, valid, inv_t, scratch.data(),
                                  block_shift.data());
        }
        if (!kAdd) std::fill(row + valid, row + v.n, DType(0));
      }
    });
  });
}

template <bool kLog>
void SoftmaxCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const SoftmaxParam& param = GetParam<SoftmaxParam>(attrs);
  const AxisView v = ViewAround(in[0].shape_, param.axis);
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    if (param.use_length) {  // softmax alone (the parser refuses it for log_softmax)
      WithIndexType(in[1].type_flag_, [&](auto length_tag) {
        using LType = typename decltype(length_tag)::type;
        MaskedSoftmax(in[0].dptr<DType>(), in[1].dptr<LType>(), out[0].dptr<DType>(), v,
                      DType(1) / static_cast<DType>(param.temperature.value_or(1.0)), req[0]);
      });
      return;
    }
    const DType inv_t = DType(1) / static_cast<DType>(param.temperature.value_or(1.0));
    const DType* x = in[0].dptr<DType>();
    DType* y = out[0].dptr<DType>();
    vec::WithReq(req[0], [&](auto add) {
      constexpr bool kAdd = decltype(add)::value;
      if (v.inner == 1) {
        ParallelRows(v.outer, v.n, [&](index_t begin, index_t end) {
          std::vector<DType> scratch(kAdd ? v.n : 0);
          std::vector<DType> block_shift(kLog ? 0 : RowBlockShifts<DType>(v.n));
          for (index_t r = begin; r < end; ++r) {
            SoftmaxRow<kLog, kAdd>(x + r * v.n, y + r * v.n, v.n, inv_t, scratch.data(),
                                   block_shift.data());
          }
        });
        return;
      }
      ForEachColumnBlock(v, [&](index_t o, index_t k0, index_t k1) {
        DType max[kColumnBlock], sum[kColumnBlock];
        const index_t slice = o * v.n * v.inner;
        SoftmaxColumns<kLog, kAdd>(x + slice, y + slice, v, k0, k1, inv_t, max, sum);
      });
    });
  });
}

// Inputs: out_grad, y. softmax: dx = y * (g - sum(g * y)) / T;
// log_softmax: dx = (g - exp(y) * sum(g)) / T. (With use_length, y is 0 past each line's
// length, so the same formula gives dx = 0 there; the length gets a zero gradient.)
template <bool kLog, bool kAdd, typename DType>
void SoftmaxBackwardRow(const DType* g, const DType* y, DType* dx, index_t n, DType inv_t) {
  const DType dot = vec::Sum<DType>(n, [&](index_t i, auto tag) {
    using P = vec::PacketOf<decltype(tag)>;
    return kLog ? P::LoadUnAligned(g + i) : P::LoadUnAligned(g + i) * P::LoadUnAligned(y + i);
  });
  vec::ForEach<DType>(n, [&](index_t i, auto tag) {
    using P = vec::PacketOf<decltype(tag)>;
    const P gi = P::LoadUnAligned(g + i), yi = P::LoadUnAligned(y + i);
    const P grad = kLog ? gi - Exp(yi) * P::Fill(dot) : yi * (gi - P::Fill(dot));
    vec::Store<kAdd>(dx + i, grad * P::Fill(inv_t));
  });
}

template <bool kLog, bool kAdd, typename DType>
void SoftmaxBackwardColumns(const DType* g, const DType* y, DType* dx, const AxisView& v,
                            index_t k0, index_t k1, DType inv_t, DType* dot) {
  const index_t width = k1 - k0;
  std::fill(dot, dot + width, DType(0));
  for (index_t j = 0; j < v.n; ++j) {
    const index_t row = j * v.inner + k0;
    vec::ForEach<DType>(width, [&](index_t k, auto tag) {
      using P = vec::PacketOf<decltype(tag)>;
      const P gi = P::LoadUnAligned(g + row + k);
      (P::LoadUnAligned(dot + k) + (kLog ? gi : gi * P::LoadUnAligned(y + row + k)))
          .StoreUnAligned(dot + k);
    });
  }
  for (index_t j = 0; j < v.n; ++j) {
    const index_t row = j * v.inner + k0;
    vec::ForEach<DType>(width, [&](index_t k, auto tag) {
      using P = vec::PacketOf<decltype(tag)>;
      const P gi = P::LoadUnAligned(g + row + k), yi = P::LoadUnAligned(y + row + k);
      const P d = P::LoadUnAligned(dot + k);
      vec::Store<kAdd>(dx + row + k, (kLog ? gi - Exp(yi) * d : yi * (gi - d)) * P::Fill(inv_t));
    });
  }
}

template <bool kLog>
void SoftmaxBackwardCompute(const NodeAttrs& attrs, const OpContext&,
                            const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                            const std::vector<TBlob>& out) {
  const SoftmaxParam& param = GetParam<SoftmaxParam>(attrs);
  const AxisView v = ViewAround(in[0].shape_, param.axis);
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    const DType inv_t = DType(1) / static_cast<DType>(param.temperature.value_or(1.0));
    const DType* g = in[0].dptr<DType>();
    const DType* y = in[1].dptr<DType>();
    DType* dx = out[0].dptr<DType>();
    vec::WithReq(req[0], [&](auto add) {
      constexpr bool kAdd = decltype(add)::value;
      if (v.inner == 1) {
        ParallelRows(v.outer, v.n, [&](index_t begin, index_t end) {
          for (index_t r = begin; r < end; ++r) {
            const index_t at = r * v.n;
            SoftmaxBackwardRow<kLog, kAdd>(g + at, y + at, dx + at, v.n, inv_t);
          }
        });
        return;
      }
      ForEachColumnBlock(v, [&](index_t o, index_t k0, index_t k1) {
        DType dot[kColumnBlock];
        const index_t slice = o * v.n * v.inner;
        SoftmaxBackwardColumns<kLog, kAdd>(g + slice, y + slice, dx + slice, v, k0, k1, inv_t,
                                           dot);
      });
    });
  });
  if (out.size() > 1) ZeroLengthGradient<cpu>(nullptr, out[1], req[1]);
}

void DefineSoftmax(const std::string& name, const std::string& description, bool log) {
  const std::string backward = "_backward_" + name;
  RegisterOp(name)
      .describe(description)
      .set_num_inputs(NumInputs)
      .set_num_outputs(1)
      .add_argument("data", "NDArray-or-Symbol", "The input array.")
      .add_argument("length", "NDArray-or-Symbol", "softmax with use_length: the lengths.")
      .add_arguments(SoftmaxParam::__FIELDS__())
      .set_attr_parser(ParseSoftmax)
      .set_attr<FListInputNames>("FListInputNames", InputNames)
      .set_attr<FInferShape>("FInferShape", SoftmaxShape)
      .set_attr<FInferType>("FInferType", SoftmaxType)
      .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace)
      .set_attr<FCompute>("FCompute<cpu>",
                          log ? FCompute(ForwardInComputeType<cpu, SoftmaxCompute<true>>)
                              : FCompute(ForwardInComputeType<cpu, SoftmaxCompute<false>>))
      .set_attr<FGradient>("FGradient", FGradient{backward, false, true});
  RegisterOp(backward)
      .describe("Gradient of " + name + ".")
      .set_num_inputs(2)
      .set_num_outputs(NumInputs)
      .set_attr<bool>("TIsBackward", true)
      .set_attr_parser(ParseSoftmax)
      .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace)
      .set_attr<FCompute>(
          "FCompute<cpu>",
          log ? FCompute(BackwardInComputeType<cpu, SoftmaxBackwardCompute<true>>)
              : FCompute(BackwardInComputeType<cpu, SoftmaxBackwardCompute<false>>));
}

// ---- softmax_cross_entropy(data (batch, classes), label (batch,)) -> (1,):
// the sum over the batch of -log softmax(data)[label].

bool CrossEntropyShape(const NodeAttrs&, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  if (data.ndim() != 2) {
    std::ostringstream os;
    os << "data must be 2-d (batch, classes), got " << data;
    throw dmlc::Error(os.str());
  }
  AssignInputShape(in, 1, TShape{data[0]});
  AssignOutputShape(out, 0, TShape{1});
  return true;
}

// The class of row `row`; anything but an integer in [0, classes) is a dmlc::Error.
template <typename DType>
index_t LabelAt(const DType* label, index_t row, index_t classes) {
  const DType value = label[row];
  // Range first: converting NaN, an infinity or a huge value to an integer is undefined.
  if (!(value >= 0 && value < static_cast<DType>(classes)) ||
      static_cast<DType>(static_cast<index_t>(value)) != value) {
    std::ostringstream os;
    os << "label " << value << " of row " << row << " is not a class index in [0, " << classes
       << ")";
    throw dmlc::Error(os.str());
  }
  return static_cast<index_t>(value);
}

// log(sum(exp(row))), stably.
template <typename DType>
DType LogSumExp(const DType* row, index_t n) {
  const ShiftedSum<DType> s = RowShiftedSum<false, DType>(row, n, DType(1), nullptr, nullptr);
  return s.shift + std::log(s.sum);
}

void CrossEntropyCompute(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                         const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const index_t batch = in[0].shape_[0], classes = in[0].shape_[1];
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    const DType* x = in[0].dptr<DType>();
    const DType* label = in[1].dptr<DType>();
    // Per-row losses in the host's temporary space, summed in order: the result does not
    // depend on how rows might later be split among threads.
    auto losses = ctx.requested[0].get_space_typed<cpu, 1, DType>(Shape1(batch), nullptr);
    for (index_t r = 0; r < batch; ++r) {
      const DType* row = x + r * classes;
      losses[r] = LogSumExp(row, classes) - row[LabelAt(label, r, classes)];
    }
    DType total = 0;
    for (index_t r = 0; r < batch; ++r) total += losses[r];
    AssignValue(out[0].dptr<DType>(), req[0], total);
  });
}

// Inputs: out_grad (1,), data, label. Outputs: data_grad = g * (softmax(data) - onehot),
// label_grad = 0.
void CrossEntropyBackwardCompute(const NodeAttrs&, const OpContext&,
                                 const std::vector<TBlob>& in,
                                 const std::vector<OpReqType>& req,
                                 const std::vector<TBlob>& out) {
  const index_t batch = in[1].shape_[0], classes = in[1].shape_[1];
  MSHADOW_SGL_DBL_TYPE_SWITCH(in[1].type_flag_, DType, {
    const DType g = in[0].dptr<DType>()[0];
    const DType* x = in[1].dptr<DType>();
    const DType* label = in[2].dptr<DType>();
    DType* dx = out[0].dptr<DType>();
    // The labels checked before the threads start, so that an error leaves from this thread.
    std::vector<index_t> targets(batch);
    for (index_t r = 0; r < batch; ++r) targets[r] = LabelAt(label, r, classes);
    // Rows on the engine's threads, a packet at a time; the label's class apart, so that the
    // loops have no compare (one element at a time on one thread, this had run at 0.8 of
    // MXNet's speed at 2 threads).
    vec::WithReq(req[0], [&](auto add) {
      constexpr bool kAdd = decltype(add)::value;
      ParallelRows(batch, classes, [&](index_t begin, index_t end) {
        for (index_t r = begin; r < end; ++r) {
          const DType* row = x + r * classes;
          DType* d = dx + r * classes;
          const DType lse = LogSumExp(row, classes);
          const auto probabilities_times_g = [&](index_t from, index_t to) {
            vec::ForEach<DType>(to - from, [&](index_t k, auto tag) {
              using P = vec::PacketOf<decltype(tag)>;
              const P p = mshadow::packet::Exp(P::LoadUnAligned(row + from + k) - P::Fill(lse));
              vec::Store<kAdd>(d + from + k, P::Fill(g) * p);
            });
          };
          const index_t t = targets[r];
          probabilities_times_g(0, t);
          const DType at_label = g * (std::exp(row[t] - lse) - DType(1));
          d[t] = kAdd ? d[t] + at_label : at_label;
          probabilities_times_g(t + 1, classes);
        }
      });
    });
    // The loss is piecewise constant in the label: its gradient is zero (or unchanged).
    PrepareAccumulation<DType>(out[1], req[1]);
  });
}

const bool kRegistered = [] {
  DefineSoftmax("softmax",
                "Softmax along an axis: exp(x / T) / sum(exp(x / T)), T the temperature.",
                false);
  DefineSoftmax("log_softmax", "Log of softmax along an axis: x / T - log(sum(exp(x / T))).",
                true);
  DefineSoftmax("softmin",
                "Softmin along an axis: exp(-x / T) / sum(exp(-x / T)), T the temperature.", false);
  return true;
}();

}  // namespace

DMLC_REGISTER_PARAMETER(SoftmaxParam);

OPS_REGISTER_OP(softmax_cross_entropy)
    .describe("Cross entropy of softmax(data) against integer class labels, summed over the "
              "batch: sum_i -log(softmax(data[i])[label[i]]). data is (batch, classes), label "
              "is (batch,); the output has shape (1,).")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "Scores, (batch, classes).")
    .add_argument("label", "NDArray-or-Symbol", "Class indices, (batch,).")
    .set_attr<FInferShape>("FInferShape", CrossEntropyShape)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<2, 1>)
    .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace)
    .set_attr<FCompute>("FCompute<cpu>", CrossEntropyCompute)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_softmax_cross_entropy", true, false});

OPS_REGISTER_OP(_backward_softmax_cross_entropy)
    .describe("Gradient of softmax_cross_entropy.")
    .set_num_inputs(3)
    .set_num_outputs(2)
    .set_attr<bool>("TIsBackward", true)
    // The GPU's log_softmax of the data (the CPU needs none).
    .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace)
    .set_attr<FCompute>("FCompute<cpu>", CrossEntropyBackwardCompute);

}  // namespace softmax
}  // namespace ops
