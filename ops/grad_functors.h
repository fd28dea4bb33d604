// ops/grad_functors.h: elementwise functors the operators need beyond mshadow::op: a few
// forward functions and the derivatives of the activations. Each derivative is written in
// terms of what the backward operator reads (the input x or the output y), as noted. Each
// also has a packet form (mshadow::packet::PacketOp, the same formula a packet at a time), so
// that `og * F<fn::relu_grad>(y)` runs on the engine's vector path and threads rather than
// one element at a time.
#ifndef OPS_GRAD_FUNCTORS_H_
#define OPS_GRAD_FUNCTORS_H_

#include <cmath>

#include "mshadow/macros.h"
#include "mshadow/packet-inl.h"

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

// The packet forms. SelectPositive is false for NaN, as `x > 0` is.
namespace mshadow {
namespace packet {

MSHADOW_DEFINE_PACKET_UNARY(ops::fn::softsign, x / (P::Fill(DType(1)) + Abs(x)))
MSHADOW_DEFINE_PACKET_UNARY(ops::fn::relu_grad,
                            SelectPositive(x, P::Fill(DType(1)), P::Fill(DType(0))))
MSHADOW_DEFINE_PACKET_UNARY(ops::fn::sigmoid_grad, x*(P::Fill(DType(1)) - x))
MSHADOW_DEFINE_PACKET_UNARY(ops::fn::tanh_grad, P::Fill(DType(1)) - x * x)
MSHADOW_DEFINE_PACKET_UNARY(ops::fn::softrelu_grad, Negate(Expm1(Negate(x))))
MSHADOW_DEFINE_PACKET_UNARY(ops::fn::softsign_grad,
                            P::Fill(DType(1)) /
                                ((P::Fill(DType(1)) + Abs(x)) * (P::Fill(DType(1)) + Abs(x))))
MSHADOW_DEFINE_PACKET_UNARY(ops::fn::log_grad, P::Fill(DType(1)) / x)
MSHADOW_DEFINE_PACKET_UNARY(ops::fn::sqrt_grad, P::Fill(DType(0.5)) / x)
MSHADOW_DEFINE_PACKET_UNARY(ops::fn::square_grad, P::Fill(DType(2)) * x)
MSHADOW_DEFINE_PACKET_UNARY(ops::fn::abs_grad,
                            SelectPositive(x, P::Fill(DType(1)),
                                           SelectPositive(Negate(x), P::Fill(DType(-1)),
                                                          P::Fill(DType(0)))))

}  // namespace packet
}  // namespace mshadow

#endif  // OPS_GRAD_FUNCTORS_H_
