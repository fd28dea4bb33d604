// softplus_beta on the GPU: the same kernels (softplus_beta-inl.h), instantiated for the GPU
// and added to the operators softplus_beta.cc registers.
#include "ops/kernel_launch_gpu.cuh"
#include "softplus_beta-inl.h"

namespace example {

OPS_REGISTER_OP(softplus_beta)
    .set_attr<ops::FCompute>("FCompute<gpu>", SoftplusBetaCompute<mshadow::gpu>);
OPS_REGISTER_OP(_backward_softplus_beta)
    .set_attr<ops::FCompute>("FCompute<gpu>", SoftplusBetaBackwardCompute<mshadow::gpu>);

}  // namespace example
