// hard_sigmoid on the GPU: the same kernels (hard_sigmoid-inl.h), instantiated for the GPU
// and added to the operators hard_sigmoid.cc registers.
#include "ops/examples/hard_sigmoid-inl.h"
#include "ops/kernel_launch_gpu.cuh"

namespace ops {
namespace examples {

OPS_REGISTER_OP(hard_sigmoid).set_attr<FCompute>("FCompute<gpu>", HardSigmoidCompute<gpu>);
OPS_REGISTER_OP(_backward_hard_sigmoid)
    .set_attr<FCompute>("FCompute<gpu>", HardSigmoidBackwardCompute<gpu>);

}  // namespace examples
}  // namespace ops
