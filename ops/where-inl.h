// ops/where-inl.h: where(condition, x, y), x where the condition is nonzero and y elsewhere,
// with MXNet 1.9.1's shapes (a condition shaped like x, or one value per row: shape
// (x.shape[0],)), written once for every device. The gradient goes to x or y as the
// condition chose; the condition gets none. where.cc registers the CPU, where.cu adds
// FCompute<gpu>.
#ifndef OPS_WHERE_INL_H_
#define OPS_WHERE_INL_H_

#include <type_traits>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"

namespace ops {
namespace where {

// Element i's condition: element i / per_condition (1: same shape; the row size: one condition
// per row). Where the shapes are the same (kSameShape) no division: the loop is a vectorized
// select.
template <bool kSameShape, typename CType>
MSHADOW_XINLINE bool ConditionAt(const CType* cond, index_t i, index_t per_condition) {
  return cond[kSameShape ? i : i / per_condition] != CType(0);
}

template <bool kSameShape, int kReq>
struct where_kernel {
  static constexpr bool kSimdItems = true;  // item i writes out[i] only
  template <typename DType, typename CType>
  MSHADOW_XINLINE static void Map(index_t i, DType* out, const CType* cond, const DType* x,
                                  const DType* y, index_t per_condition) {
    AssignReq<kReq>(out + i, ConditionAt<kSameShape>(cond, i, per_condition) ? x[i] : y[i]);
  }
};

// The gradient of x (kTakeX) or of y: the output gradient where that operand was chosen.
template <bool kSameShape, bool kTakeX, int kReq>
struct where_grad_kernel {
  static constexpr bool kSimdItems = true;  // item i writes grad[i] only
  template <typename DType, typename CType>
  MSHADOW_XINLINE static void Map(index_t i, DType* grad, const DType* og, const CType* cond,
                                  index_t per_condition) {
    const bool chose_x = ConditionAt<kSameShape>(cond, i, per_condition);
    AssignReq<kReq>(grad + i, chose_x == kTakeX ? og[i] : DType(0));
  }
};

// fn(std::bool_constant<per_condition == 1>).
template <typename Fn>
void WithSameShape(index_t per_condition, Fn&& fn) {
  if (per_condition == 1) {
    fn(std::true_type());
  } else {
    fn(std::false_type());
  }
}

// x's elements per condition value; 1 where there is no value (x is empty then too).
inline index_t PerCondition(const TBlob& cond, const TBlob& x) {
  if (cond.shape_ == x.shape_ || cond.Size() == 0) return 1;
  return static_cast<index_t>(x.Size() / cond.Size());
}

// Inputs: condition, x, y.
template <typename xpu>
void WhereCompute(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const index_t per = PerCondition(in[0], in[1]);
  MSHADOW_SGL_DBL_TYPE_SWITCH(out[0].type_flag_, DType, {
    MSHADOW_SGL_DBL_TYPE_SWITCH(in[0].type_flag_, CType, {
      WithSameShape(per, [&](auto same) {
        OPS_REQ_SWITCH(req[0], Req, {
          Kernel<where_kernel<decltype(same)::value, Req>, xpu>::Launch(
              ctx.get_stream<xpu>(), out[0].Size(), out[0].dptr<DType>(), in[0].dptr<CType>(),
              in[1].dptr<DType>(), in[2].dptr<DType>(), per);
        });
      });
    });
  });
}

// Inputs: out_grad, condition, x, y. Outputs: condition_grad (zero), x_grad, y_grad.
template <typename xpu>
void WhereBackwardCompute(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                          const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  const index_t per = PerCondition(in[1], in[2]);
  MSHADOW_SGL_DBL_TYPE_SWITCH(in[0].type_flag_, DType, {
    MSHADOW_SGL_DBL_TYPE_SWITCH(in[1].type_flag_, CType, {
      const DType* og = in[0].dptr<DType>();
      const CType* cond = in[1].dptr<CType>();
      WithSameShape(per, [&](auto same) {
        constexpr bool kSame = decltype(same)::value;
        OPS_REQ_SWITCH(req[1], Req, {
          Kernel<where_grad_kernel<kSame, true, Req>, xpu>::Launch(
              s, out[1].Size(), out[1].dptr<DType>(), og, cond, per);
        });
        OPS_REQ_SWITCH(req[2], Req, {
          Kernel<where_grad_kernel<kSame, false, Req>, xpu>::Launch(
              s, out[2].Size(), out[2].dptr<DType>(), og, cond, per);
        });
      });
      if (req[0] == kWriteTo || req[0] == kWriteInplace) Flat<xpu, CType>(out[0], s) = CType(0);
    });
  });
}

// Adds FCompute<xpu> to where and _backward_where.
template <typename xpu>
void SetWhereCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("where").set_attr<FCompute>(attr_name, FCompute(WhereCompute<xpu>));
  RegisterOp("_backward_where").set_attr<FCompute>(attr_name, FCompute(WhereBackwardCompute<xpu>));
}

}  // namespace where
}  // namespace ops

#endif  // OPS_WHERE_INL_H_
