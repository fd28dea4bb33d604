// mshadow/macros.h: configuration and inlining macros shared by host and device code.
#ifndef MSHADOW_MACROS_H_
#define MSHADOW_MACROS_H_

#include <cstdint>

// Whether CUDA code is compiled in. Set by the build (--config=cuda); nvcc implies it.
#ifndef MSHADOW_USE_CUDA
#ifdef __CUDACC__
#define MSHADOW_USE_CUDA 1
#else
#define MSHADOW_USE_CUDA 0
#endif
#endif

// CBLAS (OpenBLAS) provides the CPU dot engine.
#ifndef MSHADOW_USE_CBLAS
#define MSHADOW_USE_CBLAS 1
#endif
#ifndef MSHADOW_USE_MKL
#define MSHADOW_USE_MKL 0
#endif

// Callable from host and device; always inlined (expression plans rely on it for speed).
#ifdef __CUDACC__
#define MSHADOW_XINLINE inline __attribute__((always_inline)) __device__ __host__
#define MSHADOW_DEVICE __device__
#else
#define MSHADOW_XINLINE inline __attribute__((always_inline))
#define MSHADOW_DEVICE
#endif
// Host-only, always inlined.
#define MSHADOW_CINLINE inline __attribute__((always_inline))
#define MSHADOW_FORCE_INLINE inline __attribute__((always_inline))
#define MSHADOW_NO_INLINE __attribute__((noinline))
// For a lambda that must inline into the loop calling it: `[&](index_t i)
// MSHADOW_CINLINE_LAMBDA { ... }`. Empty under nvcc, whose front end takes no attributes there.
#ifdef __CUDACC__
#define MSHADOW_CINLINE_LAMBDA
#else
#define MSHADOW_CINLINE_LAMBDA __attribute__((always_inline))
#endif

// The default data type of Tensor (`Tensor<cpu, 2>` is a float tensor).
#ifndef MSHADOW_DEFAULT_DTYPE
#define MSHADOW_DEFAULT_DTYPE = ::mshadow::default_real_t
#endif

// Pad allocations so that rows start on aligned addresses (see AllocSpace).
#ifndef MSHADOW_ALLOC_PAD
#define MSHADOW_ALLOC_PAD true
#endif
#ifndef MSHADOW_MIN_PAD_RATIO
#define MSHADOW_MIN_PAD_RATIO 2
#endif

// The original checked this to choose 64-bit sizes; here sizes are always 64-bit.
#ifndef MSHADOW_INT64_TENSOR_SIZE
#define MSHADOW_INT64_TENSOR_SIZE 1
#endif

namespace mshadow {

// Element counts and indices. Signed and 64-bit: counts beyond 2^32 elements work, and
// `i >= 0` loops and differences do not wrap around.
using index_t = int64_t;
// Loop index for OpenMP loops (signed, as OpenMP requires).
using openmp_index_t = int64_t;
// The default floating point type.
using default_real_t = float;

}  // namespace mshadow

#endif  // MSHADOW_MACROS_H_
