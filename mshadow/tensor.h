// mshadow/tensor.h: everything a user of mshadow had: Tensor, the expression engine, the CPU
// backend, the BLAS dot engine, TensorContainer, the extensions (broadcast, pool, take,
// unpack_patch2col, ...), Softmax/SoftmaxGrad and Random; and, compiled by nvcc, the GPU
// backend (mshadow/tensor_gpu-inl.h).
//
//   #include "mshadow/tensor.h"
//   using namespace mshadow;
//   using namespace mshadow::expr;
//
//   InitTensorEngine<cpu>();
//   TensorContainer<cpu, 2> a(Shape2(2, 3), 1.0f), b(Shape2(3, 4), 2.0f), c(Shape2(2, 4));
//   c = dot(a, b) * 0.5f;          // one sgemm
//   c += F<op::plus>(c, c) * 2.0f; // one fused loop, no temporaries
//   TensorContainer<cpu, 1> col_sums(Shape1(4));
//   col_sums = sum_rows(c);
//   ShutdownTensorEngine<cpu>();
#ifndef MSHADOW_TENSOR_H_
#define MSHADOW_TENSOR_H_

#include "mshadow/base.h"
#include "mshadow/dot_engine.h"
#include "mshadow/expr_engine-inl.h"
#include "mshadow/expression.h"
#include "mshadow/extension.h"
#include "mshadow/random.h"
#include "mshadow/tensor_alloc.h"
#include "mshadow/tensor_container.h"
#include "mshadow/tensor_core.h"
#include "mshadow/tensor_cpu-inl.h"
#include "mshadow/tensor_softmax_cpu-inl.h"

// In CUDA translation units, the GPU backend too (its target: //mshadow:cuda).
#if MSHADOW_USE_CUDA && defined(__CUDACC__)
#include "mshadow/tensor_gpu-inl.h"
#endif

#endif  // MSHADOW_TENSOR_H_
