// Binary operators with NumPy broadcasting: broadcast_add, broadcast_sub, broadcast_mul,
// broadcast_div, and their backward operators, which sum gradients over broadcast axes. The
// CPU kernels are here; the GPU's are in broadcast.cu.
#include <string>

#include "ops/broadcast-inl.h"
#include "ops/kernel_util.h"
#include "ops/strided_loop.h"

namespace ops {
namespace broadcast {
namespace {

// NumPy's rule: align from the right; each pair of extents equal, or one of them 1.
bool BroadcastShape(const NodeAttrs&, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& lhs = (*in)[0];
  const TShape& rhs = (*in)[1];
  if (!ShapeIsKnown(lhs) || !ShapeIsKnown(rhs)) return false;
  const index_t ndim = std::max(lhs.ndim(), rhs.ndim());
  TShape result(ndim);
  for (index_t d = 0; d < ndim; ++d) {
    const index_t l = d < ndim - lhs.ndim() ? 1 : lhs[d - (ndim - lhs.ndim())];
    const index_t r = d < ndim - rhs.ndim() ? 1 : rhs[d - (ndim - rhs.ndim())];
    if (l != r && l != 1 && r != 1) {
      std::ostringstream os;
      os << "operands could not be broadcast together with shapes " << lhs << " " << rhs;
      throw dmlc::Error(os.str());
    }
    result[d] = l == 1 ? r : l;
  }
  AssignOutputShape(out, 0, result);
  return true;
}

template <typename OP>
void BroadcastCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const TShape& shape = out[0].shape_;
  const auto lhs_strides = BroadcastStrides(in[0].shape_, shape);
  const auto rhs_strides = BroadcastStrides(in[1].shape_, shape);
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    const DType* lhs = in[0].dptr<DType>();
    const DType* rhs = in[1].dptr<DType>();
    DType* y = out[0].dptr<DType>();
    ForEachStrided<2>(shape, {lhs_strides.data(), rhs_strides.data()},
                      [&](index_t i, const std::array<index_t, 2>& at) {
                        AssignValue(y + i, req[0], OP::forward::Map(lhs[at[0]], rhs[at[1]]));
                      });
  });
}

// Inputs: out_grad, lhs, rhs. Each input's gradient sums over the axes it was broadcast on.
template <typename OP>
void BroadcastBackwardCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                              const std::vector<OpReqType>& req,
                              const std::vector<TBlob>& out) {
  const TShape& shape = in[0].shape_;
  const auto lhs_strides = BroadcastStrides(in[1].shape_, shape);
  const auto rhs_strides = BroadcastStrides(in[2].shape_, shape);
  MSHADOW_SGL_DBL_TYPE_SWITCH(in[0].type_flag_, DType, {
    const bool want_lhs = PrepareAccumulation<DType>(out[0], req[0]);
    const bool want_rhs = PrepareAccumulation<DType>(out[1], req[1]);
    const DType* og = in[0].dptr<DType>();
    const DType* lhs = in[1].dptr<DType>();
    const DType* rhs = in[2].dptr<DType>();
    DType* lhs_grad = out[0].dptr<DType>();
    DType* rhs_grad = out[1].dptr<DType>();
    ForEachStrided<2>(shape, {lhs_strides.data(), rhs_strides.data()},
                      [&](index_t i, const std::array<index_t, 2>& at) {
                        const DType a = lhs[at[0]], b = rhs[at[1]];
                        if (want_lhs) lhs_grad[at[0]] += og[i] * OP::lhs_grad::Map(a, b);
                        if (want_rhs) rhs_grad[at[1]] += og[i] * OP::rhs_grad::Map(a, b);
                      });
  });
}

template <typename OP>
void DefineBroadcast(const std::string& name, const std::string& description) {
  const std::string backward = "_backward_" + name;
  Op& forward = RegisterOp(name)
                    .describe(description +
                              " Shapes broadcast as in NumPy: aligned from the last axis, each "
                              "pair of extents equal or one of them 1.")
                    .set_num_inputs(2)
                    .set_num_outputs(1)
                    .add_argument("lhs", "NDArray-or-Symbol", "First input.")
                    .add_argument("rhs", "NDArray-or-Symbol", "Second input.")
                    .set_attr<FInferShape>("FInferShape", BroadcastShape)
                    .set_attr<FInferType>("FInferType", ElemwiseRealType<2, 1>);
  forward.set_attr<FCompute>("FCompute<cpu>", FCompute(BroadcastCompute<OP>));
  forward.set_attr<FGradient>("FGradient", FGradient{backward, true, false});
  RegisterOp(backward)
      .describe("Gradient of " + name + ".")
      .set_num_inputs(3)
      .set_num_outputs(2)
      .set_attr<bool>("TIsBackward", true)
      .set_attr<FCompute>("FCompute<cpu>", FCompute(BroadcastBackwardCompute<OP>));
}

const bool kRegistered = [] {
  ForEachBroadcast([](auto op, const std::string& name, const std::string& description) {
    DefineBroadcast<typename decltype(op)::type>(name, description);
  });
  return true;
}();

}  // namespace
}  // namespace broadcast
}  // namespace ops
