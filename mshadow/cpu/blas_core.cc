// mshadow/cpu/blas_core.cc: OpenBLAS's kernel set (its "core") chosen again where OpenBLAS took
// this CPU for a Prescott. Nothing to call: a static object does it when the library is
// loaded, before any call of its own reaches BLAS.
//
// OpenBLAS built for many CPUs (DYNAMIC_ARCH, as Debian's is) picks its kernels by the CPU's
// model number, and takes a model it does not know for a Prescott: SSE3 kernels, sgemm at a
// sixth of its AVX-512 speed (OpenBLAS 0.3.21 on an Emerald Rapids Xeon, family 6 model 207;
// docs/benchmarks.md, seventy-fifth session). Where it has fallen back so, it is made to
// choose again, by its own selection, the widest kernels the CPU runs: Cooperlake (AVX-512
// with BF16), SkylakeX (AVX-512) or Haswell (AVX2 with FMA). Nothing changes where OpenBLAS
// knew the CPU, where OPENBLAS_CORETYPE is set (set it, to Prescott even, to keep OpenBLAS's
// own choice) or where OpenBLAS is not a DYNAMIC_ARCH build. A host that loads the library
// while its other threads call the same OpenBLAS should set OPENBLAS_CORETYPE: the choice
// replaces OpenBLAS's kernel table.
#include <cstdlib>
#include <string>

// OpenBLAS's: every build has the first; DYNAMIC_ARCH builds the other two (weak: absent
// elsewhere).
extern "C" {
char* openblas_get_corename(void);
void gotoblas_dynamic_init(void) __attribute__((weak));
void gotoblas_dynamic_quit(void) __attribute__((weak));
}

namespace mshadow {
namespace {

// The name of the widest OpenBLAS core this CPU (and its operating system) runs, or null.
const char* WidestCore() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq")) {
    return __builtin_cpu_supports("avx512bf16") ? "Cooperlake" : "SkylakeX";
  }
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "Haswell";
  return nullptr;
}

bool ChooseCoreAgain() {
  const char* widest = WidestCore();
  if (std::string(openblas_get_corename()) != "Prescott" || widest == nullptr ||
      std::getenv("OPENBLAS_CORETYPE") != nullptr || gotoblas_dynamic_init == nullptr ||
      gotoblas_dynamic_quit == nullptr) {
    return false;
  }
  // OpenBLAS reads the name from its environment variable when it selects; the variable is
  // removed again so that the host's environment is as it was.
  setenv("OPENBLAS_CORETYPE", widest, 0);
  gotoblas_dynamic_quit();
  gotoblas_dynamic_init();
  unsetenv("OPENBLAS_CORETYPE");
  return true;
}

const bool kChosenAgain = ChooseCoreAgain();

}  // namespace
}  // namespace mshadow
