// softmax(axis, temperature), log_softmax(axis, temperature) and softmax_cross_entropy,
// with backward operators. Each works on (outer, n, inner) views of the input, n being the
// extent of the axis, and subtracts the maximum before exponentiating (no overflow).
#include <cmath>
#include <limits>

#include "ops/kernel_util.h"

namespace ops {
namespace {

struct SoftmaxParam : public dmlc::Parameter<SoftmaxParam> {
  int axis;
  dmlc::optional<double> temperature;
  DMLC_DECLARE_PARAMETER(SoftmaxParam) {
    DMLC_DECLARE_FIELD(axis).set_default(-1).describe("The axis to normalize along.");
    DMLC_DECLARE_FIELD(temperature)
        .set_default(dmlc::optional<double>())
        .describe("Divides the input by this first; None means 1.");
  }
};

void ParseSoftmax(NodeAttrs* attrs) {
  ParamParser<SoftmaxParam>(attrs);
  const auto& t = GetParam<SoftmaxParam>(*attrs).temperature;
  if (t.has_value() && !(*t > 0)) {
    throw dmlc::ParamError("temperature must be positive, got " + dmlc::NumberToString(*t));
  }
}

// The (outer, n, inner) view of `shape` around `axis`.
struct AxisView {
  index_t outer, n, inner;
};
AxisView ViewAround(const TShape& shape, int axis_param) {
  const int axis = NormalizeAxis(axis_param, static_cast<int>(shape.ndim()));
  const mshadow::Shape<3> s = shape.FlatTo3D(axis);
  return {s[0], s[1], s[2]};
}

bool SoftmaxShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  if (!ElemwiseShape<1, 1>(attrs, in, out)) return false;
  NormalizeAxis(GetParam<SoftmaxParam>(attrs).axis, static_cast<int>((*in)[0].ndim()));
  return true;
}

template <bool kLog>
void SoftmaxCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const SoftmaxParam& param = GetParam<SoftmaxParam>(attrs);
  const AxisView v = ViewAround(in[0].shape_, param.axis);
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    const DType inv_t = DType(1) / static_cast<DType>(param.temperature.value_or(1.0));
    const DType* x = in[0].dptr<DType>();
    DType* y = out[0].dptr<DType>();
    for (index_t o = 0; o < v.outer; ++o) {
      for (index_t k = 0; k < v.inner; ++k) {
        const index_t base = o * v.n * v.inner + k;
        DType max = -std::numeric_limits<DType>::infinity();
        for (index_t j = 0; j < v.n; ++j) max = std::max(max, x[base + j * v.inner]);
        DType sum = 0;
        for (index_t j = 0; j < v.n; ++j) sum += std::exp((x[base + j * v.inner] - max) * inv_t);
        const DType log_sum = std::log(sum);
        for (index_t j = 0; j < v.n; ++j) {
          const DType shifted = (x[base + j * v.inner] - max) * inv_t;
          AssignValue(y + base + j * v.inner, req[0],
                      kLog ? shifted - log_sum : std::exp(shifted) / sum);
        }
      }
    }
  });
}

// Inputs: out_grad, y. softmax: dx = y * (g - sum(g * y)) / T;
// log_softmax: dx = (g - exp(y) * sum(g)) / T.
template <bool kLog>
void SoftmaxBackwardCompute(const NodeAttrs& attrs, const OpContext&,
                            const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                            const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const SoftmaxParam& param = GetParam<SoftmaxParam>(attrs);
  const AxisView v = ViewAround(in[0].shape_, param.axis);
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    const DType inv_t = DType(1) / static_cast<DType>(param.temperature.value_or(1.0));
    const DType* g = in[0].dptr<DType>();
    const DType* y = in[1].dptr<DType>();
    DType* dx = out[0].dptr<DType>();
    for (index_t o = 0; o < v.outer; ++o) {
      for (index_t k = 0; k < v.inner; ++k) {
        const index_t base = o * v.n * v.inner + k;
        DType dot = 0;
        for (index_t j = 0; j < v.n; ++j) {
          const index_t at = base + j * v.inner;
          dot += kLog ? g[at] : g[at] * y[at];
        }
        for (index_t j = 0; j < v.n; ++j) {
          const index_t at = base + j * v.inner;
          const DType grad = kLog ? g[at] - std::exp(y[at]) * dot : y[at] * (g[at] - dot);
          AssignValue(dx + at, req[0], grad * inv_t);
        }
      }
    }
  });
}

void DefineSoftmax(const std::string& name, const std::string& description, bool log) {
  const std::string backward = "_backward_" + name;
  RegisterOp(name)
      .describe(description)
      .set_num_inputs(1)
      .set_num_outputs(1)
      .add_argument("data", "NDArray-or-Symbol", "The input array.")
      .add_arguments(SoftmaxParam::__FIELDS__())
      .set_attr_parser(ParseSoftmax)
      .set_attr<FInferShape>("FInferShape", SoftmaxShape)
      .set_attr<FInferType>("FInferType", ElemwiseRealType<1, 1>)
      .set_attr<FCompute>("FCompute<cpu>", log ? FCompute(SoftmaxCompute<true>)
                                               : FCompute(SoftmaxCompute<false>))
      .set_attr<FGradient>("FGradient", FGradient{backward, false, true});
  RegisterBackwardOp(backward, 2, 1)
      .describe("Gradient of " + name + ".")
      .set_attr_parser(ParseSoftmax)
      .set_attr<FCompute>("FCompute<cpu>", log ? FCompute(SoftmaxBackwardCompute<true>)
                                               : FCompute(SoftmaxBackwardCompute<false>));
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
  const index_t c = static_cast<index_t>(value);
  if (!(value >= 0 && value < classes) || static_cast<DType>(c) != value) {
    std::ostringstream os;
    os << "label " << value << " of row " << row << " is not a class index in [0, " << classes
       << ")";
    throw dmlc::Error(os.str());
  }
  return c;
}

// log(sum(exp(row))), stably.
template <typename DType>
DType LogSumExp(const DType* row, index_t n) {
  DType max = -std::numeric_limits<DType>::infinity();
  for (index_t j = 0; j < n; ++j) max = std::max(max, row[j]);
  DType sum = 0;
  for (index_t j = 0; j < n; ++j) sum += std::exp(row[j] - max);
  return max + std::log(sum);
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
    for (index_t r = 0; r < batch && req[0] != kNullOp; ++r) {
      const DType* row = x + r * classes;
      const DType lse = LogSumExp(row, classes);
      const index_t target = LabelAt(label, r, classes);
      for (index_t j = 0; j < classes; ++j) {
        const DType p = std::exp(row[j] - lse);
        AssignValue(dx + r * classes + j, req[0], g * (p - (j == target ? DType(1) : DType(0))));
      }
    }
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
    .set_attr<FCompute>("FCompute<cpu>", CrossEntropyBackwardCompute);

}  // namespace ops
