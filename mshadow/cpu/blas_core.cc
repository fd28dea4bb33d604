// mshadow/cpu/blas_core.cc: OpenBLAS's core chosen again where it took this CPU for a
// Prescott (blas_core.h says when and why).
#include "mshadow/cpu/blas_core.h"

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

BlasCore ChooseCore() {
  BlasCore core;
  core.detected = openblas_get_corename();
  const char* widest = WidestCore();
  if (core.detected == "Prescott" && widest != nullptr &&
      std::getenv("OPENBLAS_CORETYPE") == nullptr && gotoblas_dynamic_init != nullptr &&
      gotoblas_dynamic_quit != nullptr) {
    // OpenBLAS reads the name from its environment variable when it selects; the variable
    // is removed again so that the host's environment is as it was.
    setenv("OPENBLAS_CORETYPE", widest, 0);
    gotoblas_dynamic_quit();
    gotoblas_dynamic_init();
    unsetenv("OPENBLAS_CORETYPE");
  }
  core.running = openblas_get_corename();
  return core;
}

const BlasCore& Chosen() {
  static const BlasCore core = ChooseCore();
  return core;
}

// Chosen with the library's static objects: before main, or when a host loads the shared
// library.
const bool kChosenAtLoad = (Chosen(), true);

}  // namespace

BlasCore OpenBlasCore() { return BlasCore{Chosen().detected, openblas_get_corename()}; }

}  // namespace mshadow
