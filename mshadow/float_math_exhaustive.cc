// Every float, all 2^32 bit patterns, through the project's own float kernels (exp, tanh,
// expm1, sigmoid, softrelu) on every SIMD arch the build supports: the largest error in ULP
// against a double-precision reference, and where it occurs. Exits 1 if any exceeds 4 ULP. Too slow for the test suite
// (minutes per function); mshadow/packet_math_test.cc checks a dense sample of the same.
//
//   ./tools/bazel run //mshadow:float_math_exhaustive [-- expm1 softrelu]  # all, or those named
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "mshadow/parallel.h"
#include "mshadow/tensor.h"
#include "mshadow/ulp_error.h"

namespace mshadow {

// Expm1, which has no mshadow::op of its own, as an operator for F<>.
struct expm1_primitive {
  static float Map(float x) { return std::expm1(x); }
};
namespace packet {
MSHADOW_DEFINE_PACKET_UNARY(expm1_primitive, Expm1(x))
}  // namespace packet

namespace {

constexpr index_t kBlock = index_t{1} << 16;  // floats per work item
constexpr index_t kBlocks = (index_t{1} << 32) / kBlock;

struct Worst {
  double ulp = 0;
  float at = 0;
};

double SigmoidReference(double x) {
  const double t = std::exp(-std::fabs(x));
  return x >= 0 ? 1 / (1 + t) : t / (1 + t);
}
double SoftReLUReference(double x) { return (x > 0 ? x : 0) + std::log1p(std::exp(-std::fabs(x))); }

// The worst error of F<OP> on Arch over every float, the blocks spread over all threads.
template <packet::PacketArch Arch, typename OP>
Worst WorstOverAllFloats(double (*reference)(double)) {
  std::vector<Worst> per_block(kBlocks);
  ParallelFor(kBlocks, GetNumThreads(), [&](index_t block) {
    std::vector<float> in(kBlock), out(kBlock);
    for (index_t i = 0; i < kBlock; ++i) {
      const auto bits = static_cast<uint32_t>(block * kBlock + i);
      std::memcpy(&in[i], &bits, sizeof(bits));
    }
    Tensor<cpu, 1, float> src(in.data(), Shape1(kBlock)), dst(out.data(), Shape1(kBlock));
    expr::MapPacketPlan<sv::saveto>(dst, expr::MakePacketPlan<Arch>(expr::F<OP>(src).self()));
    Worst& worst = per_block[block];
    for (index_t i = 0; i < kBlock; ++i) {
      const double e = UlpError(out[i], reference(in[i]));
      if (e > worst.ulp) worst = {e, in[i]};
    }
  });
  return *std::max_element(per_block.begin(), per_block.end(),
                           [](const Worst& a, const Worst& b) { return a.ulp < b.ulp; });
}

// The functions named on the command line, or all of them.
bool Selected(const char* name, int argc, char** argv) {
  if (argc <= 1) return true;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], name) == 0) return true;
  }
  return false;
}

template <packet::PacketArch Arch>
bool CheckArch(const char* arch_name, int argc, char** argv) {
  struct Function {
    const char* name;
    Worst (*worst)(double (*)(double));
    double (*reference)(double);
  };
  const Function functions[] = {
      {"exp", WorstOverAllFloats<Arch, op::exp>, [](double x) { return std::exp(x); }},
      {"tanh", WorstOverAllFloats<Arch, op::tanh>, [](double x) { return std::tanh(x); }},
      {"expm1", WorstOverAllFloats<Arch, expm1_primitive>, [](double x) { return std::expm1(x); }},
      {"sigmoid", WorstOverAllFloats<Arch, op::sigmoid>, SigmoidReference},
      {"softrelu", WorstOverAllFloats<Arch, op::softrelu>, SoftReLUReference},
  };
  bool within_limit = true;
  for (const Function& f : functions) {
    if (!Selected(f.name, argc, argv)) continue;
    const Worst worst = f.worst(f.reference);
    std::printf("%-7s %-8s worst %.3f ULP at x = %.9g\n", arch_name, f.name, worst.ulp, worst.at);
    std::fflush(stdout);
    within_limit = within_limit && worst.ulp <= 4.0;
  }
  return within_limit;
}

}  // namespace
}  // namespace mshadow

int main(int argc, char** argv) {
  using mshadow::packet::kAVX2;
  using mshadow::packet::kAVX512;
  using mshadow::packet::kSSE2;
  bool ok = true;
#if MSHADOW_PACKET_HAS_SSE2
  ok = mshadow::CheckArch<kSSE2>("SSE2", argc, argv) && ok;
#endif
#if MSHADOW_PACKET_HAS_AVX2
  ok = mshadow::CheckArch<kAVX2>("AVX2", argc, argv) && ok;
#endif
#if MSHADOW_PACKET_HAS_AVX512
  ok = mshadow::CheckArch<kAVX512>("AVX512", argc, argv) && ok;
#endif
  std::printf(ok ? "all within 4 ULP\n" : "FAILED: above 4 ULP\n");
  return ok ? 0 : 1;
}
