// mshadow/extension/take_grad.h: the gradient of take(): rows of the output gradient summed
// into the rows of the table they were taken from.
//
//   grad_table = take_grad(ids, grad_out, 50000);   // an expression; O(len(ids)) per element
//   AddTakeGrad(grad_table, ids, grad_out);         // grad_table[ids[i]] += grad_out[i]
//
// The expression fits anywhere an expression does but reads every index for every output
// element; AddTakeGrad makes one pass and is the one to use for large tables. The expression
// ignores indices outside [0, input_dim) (as mshadow's did); AddTakeGrad clips them, as
// take() does, so it is exactly take's gradient.
#ifndef MSHADOW_EXTENSION_TAKE_GRAD_H_
#define MSHADOW_EXTENSION_TAKE_GRAD_H_

#include <algorithm>

#include "mshadow/expr/make_tensor.h"
#include "mshadow/extension/index.h"
#include "mshadow/parallel.h"
#include "mshadow/tensor_core.h"
#include "mshadow/tensor_cpu-inl.h"

namespace mshadow {
namespace expr {

template <typename IndexExp, typename SrcExp, typename DType, typename IDType>
struct TakeGradExp
    : public MakeTensorExp<TakeGradExp<IndexExp, SrcExp, DType, IDType>, SrcExp, 2, DType> {
  const IndexExp& index_;
  const SrcExp& src_;
  index_t batch_;
  TakeGradExp(const IndexExp& index, const SrcExp& src, index_t input_dim)
      : index_(index), src_(src) {
    CHECK_GE(input_dim, 0) << "take_grad: input_dim must not be negative";
    const Shape<1> index_shape = ShapeCheck<1, IndexExp>::Check(index);
    const Shape<2> src_shape = ShapeCheck<2, SrcExp>::Check(src);
    CHECK_EQ(index_shape[0], src_shape[0])
        << "take_grad: " << index_shape << " indices for a gradient " << src_shape
        << "; one per row is needed";
    batch_ = index_shape[0];
    this->shape_ = Shape2(input_dim, src_shape[1]);
  }
};

// out[y][x] = sum over i with index[i] == y of src[i][x]; out has input_dim rows.
template <typename IndexExp, typename SrcExp, typename DType, typename IDType, int e1, int e2>
inline TakeGradExp<IndexExp, SrcExp, DType, IDType> take_grad(
    const Exp<IndexExp, IDType, e1>& index, const Exp<SrcExp, DType, e2>& src, index_t input_dim) {
  static_assert(ExpInfo<IndexExp>::kDim == 1 && ExpInfo<SrcExp>::kDim == 2,
                "take_grad(index, src, input_dim): index is 1-D, src 2-D");
  static_assert(SameDevice<SrcExp, IndexExp>(), "take_grad: both operands on one device");
  return TakeGradExp<IndexExp, SrcExp, DType, IDType>(index.self(), src.self(), input_dim);
}

template <typename IndexExp, typename SrcExp, typename DType, typename IDType>
class Plan<TakeGradExp<IndexExp, SrcExp, DType, IDType>, DType> {
 public:
  explicit Plan(const TakeGradExp<IndexExp, SrcExp, DType, IDType>& e)
      : index_(MakePlan(e.index_)),
        src_(MakePlan(e.src_)),
        batch_(e.batch_),
        input_dim_(e.shape_[0]) {}
  MSHADOW_XINLINE DType Eval(index_t y, index_t x) const {
    DType sum = DType(0);
    for (index_t i = 0; i < batch_; ++i) {
      if (IndexInRange(index_.Eval(0, i), input_dim_) == y) sum += src_.Eval(i, x);
    }
    return sum;
  }

 private:
  Plan<IndexExp, IDType> index_;
  Plan<SrcExp, DType> src_;
  index_t batch_, input_dim_;
};

}  // namespace expr

// dst[clip(index[i])] += src[i] for every i. Threads split the columns, so rows sharing an
// index never race and the sums come out the same on every thread count.
template <typename IndexType, typename DType>
inline void AddTakeGrad(Tensor<cpu, 2, DType> dst, const Tensor<cpu, 1, IndexType>& index,
                        const Tensor<cpu, 2, DType>& src) {
  CHECK_EQ(index.size(0), src.size(0))
      << "AddTakeGrad: " << index.shape_ << " indices for a gradient " << src.shape_;
  CHECK_EQ(dst.size(1), src.size(1)) << "AddTakeGrad: table " << dst.shape_ << " and gradient "
                                     << src.shape_ << " differ in width";
  if (index.size(0) == 0 || dst.size(1) == 0) return;
  CHECK_GT(dst.size(0), 0) << "AddTakeGrad: the table " << dst.shape_ << " has no rows";
  const index_t width = dst.size(1);
  constexpr index_t kColumnsPerPart = 256;
  const index_t parts = (width + kColumnsPerPart - 1) / kColumnsPerPart;
  ParallelFor(parts, ThreadsFor(index.size(0) * width, parts), [&](index_t part) {
    const index_t begin = part * kColumnsPerPart;
    const index_t end = std::min(width, begin + kColumnsPerPart);
    for (index_t i = 0; i < index.size(0); ++i) {
      DType* out = dst.dptr_ + expr::ClipIndex(index.dptr_[i], dst.size(0)) * dst.stride_;
      const DType* in = src.dptr_ + i * src.stride_;
      for (index_t x = begin; x < end; ++x) out[x] += in[x];
    }
  });
}

}  // namespace mshadow

#endif  // MSHADOW_EXTENSION_TAKE_GRAD_H_
