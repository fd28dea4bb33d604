// mshadow/cpu/blas_core.h: which of OpenBLAS's kernel sets (its "core") the CPU dot engine
// runs on, and the one correction this library makes to OpenBLAS's choice.
//
// OpenBLAS built for many CPUs (DYNAMIC_ARCH, as Debian's is) picks its kernels by the CPU's
// model number, and takes a model it does not know for a Prescott: SSE3 kernels, sgemm at a
// sixth of its AVX-512 speed (OpenBLAS 0.3.21 on an Emerald Rapids Xeon, family 6 model 207;
// docs/benchmarks.md, seventy-fifth session). When this library is loaded and OpenBLAS has
// fallen back so, it has OpenBLAS choose again by name the widest kernels the CPU runs
// (Cooperlake for AVX-512 with BF16, SkylakeX for AVX-512, Haswell for AVX2 with FMA), through
// OpenBLAS's own selection. It changes nothing where OpenBLAS knew the CPU, where
// OPENBLAS_CORETYPE is set (set it, to Prescott even, to keep OpenBLAS's own choice), or where
// OpenBLAS is not a DYNAMIC_ARCH build. The choice is made while the library's static objects
// are constructed, before any call of its own reaches BLAS: a host that loads the library
// while its other threads call the same OpenBLAS should set OPENBLAS_CORETYPE.
//
//   const mshadow::BlasCore core = mshadow::OpenBlasCore();
//   // core.detected == "Prescott", core.running == "Cooperlake" on such a Xeon
#ifndef MSHADOW_CPU_BLAS_CORE_H_
#define MSHADOW_CPU_BLAS_CORE_H_

#include <string>

namespace mshadow {

struct BlasCore {
  std::string detected;  // OpenBLAS's core when the library was loaded
  std::string running;   // its core now
};

BlasCore OpenBlasCore();

}  // namespace mshadow

#endif  // MSHADOW_CPU_BLAS_CORE_H_
