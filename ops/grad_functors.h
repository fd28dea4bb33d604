// ops/grad_functors.h: elementwise functors the operators need beyond mshadow::op: a few
// forward functions and the derivatives of the activations. Each derivative is written in
// terms of what the backward operator reads (the input x or the output y), as noted.
#ifndef OPS_GRAD_FUNCTORS_H_
#define OPS_GRAD_FUNCTORS_H_

#include <cmath>

#include "mshadow/macros.h"

namespace ops {
namespace fn {

// x / (1 + |x|)
struct softsign {
  template <typename DType>
  MSHADOW_XINLINE static DType Map(DType x) { return x / (DType(1) + std::fabs(x)); }
};

// The derivatives.
struct relu_grad {  // of y = max(x, 0), from y
  template <typename DType>
  MSHADOW_XINLINE static DType Map(DType y) { return y > DType(0) ? DType(1) : DType(0); }
};
struct sigmoid_grad {  // from y
  template <typename DType>
  MSHADOW_XINLINE static DType Map(DType y) { return y * (DType(1) - y); }
};
struct tanh_grad {  // from y
  template <typename DType>
  MSHADOW_XINLINE static DType Map(DType y) { return DType(1) - y * y; }
};
struct softrelu_grad {  // of log(1 + e^x), from y: 1 - e^-y == sigmoid(x)
  template <typename DType>
  MSHADOW_XINLINE static DType Map(DType y) { return -std::expm1(-y); }
};
struct softsign_grad {  // from x
  template <typename DType>
  MSHADOW_XINLINE static DType Map(DType x) {
    const DType d = DType(1) + std::fabs(x);
    return DType(1) / (d * d);
  }
};
struct log_grad {  // from x
  template <typename DType>
  MSHADOW_XINLINE static DType Map(DType x) { return DType(1) / x; }
};
struct sqrt_grad {  // from y
  template <typename DType>
  MSHADOW_XINLINE static DType Map(DType y) { return DType(0.5) / y; }
};
struct square_grad {  // from x
  template <typename DType>
  MSHADOW_XINLINE static DType Map(DType x) { return DType(2) * x; }
};
struct abs_grad {  // from x: the sign, 0 at 0
  template <typename DType>
  MSHADOW_XINLINE static DType Map(DType x) {
    return x > DType(0) ? DType(1) : (x < DType(0) ? DType(-1) : DType(0));
  }
};

}  // namespace fn
}  // namespace ops

#endif  // OPS_GRAD_FUNCTORS_H_
