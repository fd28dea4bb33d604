// ops/broadcast-inl.h: what the CPU (broadcast.cc) and GPU (broadcast.cu) kernels of the
// broadcasting family share: its operators and their arithmetic functors.
#ifndef OPS_BROADCAST_INL_H_
#define OPS_BROADCAST_INL_H_

#include <string>

#include "ops/arithmetic_functors.h"
#include "ops/registration_util.h"

namespace ops {
namespace broadcast {

// Calls fn(TypeTag<OP>(), name, description) for each operator of the family.
template <typename Fn>
void ForEachBroadcast(Fn&& fn) {
  fn(TypeTag<arith::add>(), "broadcast_add", "lhs + rhs with broadcasting.");
  fn(TypeTag<arith::sub>(), "broadcast_sub", "lhs - rhs with broadcasting.");
  fn(TypeTag<arith::mul>(), "broadcast_mul", "lhs * rhs with broadcasting.");
  fn(TypeTag<arith::div>(), "broadcast_div", "lhs / rhs with broadcasting.");
  arith::ForEachMathOperation([&fn](auto op, const char* name, const char* description) {
    fn(op, std::string("broadcast_") + name, std::string(description) + ", with broadcasting.");
  });
}

}  // namespace broadcast
}  // namespace ops

#endif  // OPS_BROADCAST_INL_H_
