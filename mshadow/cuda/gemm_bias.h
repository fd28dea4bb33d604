// mshadow/cuda/gemm_bias.h: C = op(A) op(B) + bias in one cuBLASLt call (the bias epilogue),
// column-major as BLASEngine: bias[i] is added to row i of the m x n C, so for a row-major
// product (a fully connected layer's batch x hidden output, seen by cuBLAS as its transpose)
// it is the per-column bias.
//
//   if (!cuda::GemmBias(stream, transa, transb, m, n, k, A, lda, B, ldb, bias, C, ldc)) {
//     ... no fused kernel for these shapes or alignments: bias rows, then gemm with beta = 1
//   }
//
// A separate bias pass costs a launch and a pass over C, which for a layer-sized product is a
// large share of the gemm itself. The matrix layouts and the algorithm cuBLASLt's heuristic
// picks are kept per shape, type, device and pointer alignment: the heuristic costs far more
// host time than the call, and a layer asks for the same shape again and again. float32
// computes in full float32 (no TF32); half_t and bf16_t accumulate in float32.
#ifndef MSHADOW_CUDA_GEMM_BIAS_H_
#define MSHADOW_CUDA_GEMM_BIAS_H_

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>

#include "mshadow/base.h"
#include "mshadow/cuda/check.h"
#include "mshadow/cuda/scratch_pool.h"
#include "mshadow/cuda/stream.h"

namespace mshadow {
namespace cuda {

// The cuBLASLt types of one element type: storage, compute, and the type of alpha and beta.
template <typename DType>
struct LtTypes;
template <>
struct LtTypes<float> {
  static constexpr cudaDataType_t kData = CUDA_R_32F, kScale = CUDA_R_32F;
  static constexpr cublasComputeType_t kCompute = CUBLAS_COMPUTE_32F;
  using Scale = float;
};
template <>
struct LtTypes<double> {
  static constexpr cudaDataType_t kData = CUDA_R_64F, kScale = CUDA_R_64F;
  static constexpr cublasComputeType_t kCompute = CUBLAS_COMPUTE_64F;
  using Scale = double;
};
template <>
struct LtTypes<half::half_t> {
  static constexpr cudaDataType_t kData = CUDA_R_16F, kScale = CUDA_R_32F;
  static constexpr cublasComputeType_t kCompute = CUBLAS_COMPUTE_32F;
  using Scale = float;
};
template <>
struct LtTypes<bfloat::bf16_t> {
  static constexpr cudaDataType_t kData = CUDA_R_16BF, kScale = CUDA_R_32F;
  static constexpr cublasComputeType_t kCompute = CUBLAS_COMPUTE_32F;
  using Scale = float;
};

// One cuBLASLt handle per device for the process (not bound to a stream: the stream is an
// argument of each matmul).
inline cublasLtHandle_t LtHandle() {
  constexpr int kMaxDevices = 64;
  static std::once_flag once[kMaxDevices];
  static cublasLtHandle_t handles[kMaxDevices] = {};
  int device = 0;
  MSHADOW_CUDA_CALL(cudaGetDevice(&device));
  if (device < 0 || device >= kMaxDevices) throw dmlc::Error("LtHandle: device out of range");
  std::call_once(once[device], [&] { MSHADOW_CUBLAS_CALL(cublasLtCreate(&handles[device])); });
  return handles[device];
}

// Owns one cuBLASLt descriptor.
template <typename T, cublasStatus_t (*Destroy)(T)>
struct LtObject {
  T value = nullptr;
  LtObject() = default;
  LtObject(const LtObject&) = delete;
  LtObject& operator=(const LtObject&) = delete;
  ~LtObject() {
    if (value != nullptr) Destroy(value);
  }
};
using LtMatmulDesc = LtObject<cublasLtMatmulDesc_t, cublasLtMatmulDescDestroy>;
using LtLayout = LtObject<cublasLtMatrixLayout_t, cublasLtMatrixLayoutDestroy>;
using LtPreference = LtObject<cublasLtMatmulPreference_t, cublasLtMatmulPreferenceDestroy>;

// The most workspace an algorithm may ask for, as cuBLAS allows itself on Hopper: the fast
// kernels for layer-sized products split the inner dimension and need a few MiB (limited to
// 4 MiB, the heuristic's best choice took a third longer than cublasSgemm; docs/benchmarks.md).
// A call takes what its algorithm needs from the stream-ordered scratch pool.
constexpr size_t kGemmBiasWorkspace = size_t{32} << 20;

// The operation (transposes, bias epilogue) of a GemmBias call; the bias pointer is set per call.
template <typename DType>
inline void MakeGemmBiasDesc(bool transa, bool transb, LtMatmulDesc* desc) {
  using T = LtTypes<DType>;
  MSHADOW_CUBLAS_CALL(cublasLtMatmulDescCreate(&desc->value, T::kCompute, T::kScale));
  const cublasOperation_t op_a = transa ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_b = transb ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_BIAS;
  MSHADOW_CUBLAS_CALL(cublasLtMatmulDescSetAttribute(desc->value, CUBLASLT_MATMUL_DESC_TRANSA,
                                                     &op_a, sizeof(op_a)));
  MSHADOW_CUBLAS_CALL(cublasLtMatmulDescSetAttribute(desc->value, CUBLASLT_MATMUL_DESC_TRANSB,
                                                     &op_b, sizeof(op_b)));
  MSHADOW_CUBLAS_CALL(cublasLtMatmulDescSetAttribute(desc->value, CUBLASLT_MATMUL_DESC_EPILOGUE,
                                                     &epilogue, sizeof(epilogue)));
}

// The layouts and algorithm of one GemmBias shape; `supported` false where the heuristic
// found no algorithm.
struct GemmBiasPlan {
  LtLayout a, b, c;
  cublasLtMatmulAlgo_t algo{};
  size_t workspace = 0;  // bytes the algorithm needs
  bool supported = false;
};

// Key: device, element type, transposes, m, n, k, leading dimensions, pointer alignment.
using GemmBiasKey = std::tuple<int, int, bool, bool, int, int, int, int, int, int, int>;

// The plan of one shape on `device`, made on its first call.
template <typename DType>
inline std::shared_ptr<const GemmBiasPlan> FindGemmBiasPlan(int device, bool transa, bool transb,
                                                            int m, int n, int k, int lda, int ldb,
                                                            int ldc, uint32_t alignment) {
  const GemmBiasKey key(device, static_cast<int>(LtTypes<DType>::kData), transa, transb, m, n, k,
                        lda, ldb, ldc, static_cast<int>(alignment));
  static std::mutex mutex;
  static std::map<GemmBiasKey, std::shared_ptr<const GemmBiasPlan>> plans;
  std::lock_guard<std::mutex> lock(mutex);
  auto found = plans.find(key);
  if (found != plans.end()) return found->second;

  using T = LtTypes<DType>;
  auto plan = std::make_shared<GemmBiasPlan>();
  // Stored (before the transposes) A is m x k or k x m, B k x n or n x k, column-major.
  MSHADOW_CUBLAS_CALL(
      cublasLtMatrixLayoutCreate(&plan->a.value, T::kData, transa ? k : m, transa ? m : k, lda));
  MSHADOW_CUBLAS_CALL(
      cublasLtMatrixLayoutCreate(&plan->b.value, T::kData, transb ? n : k, transb ? k : n, ldb));
  MSHADOW_CUBLAS_CALL(cublasLtMatrixLayoutCreate(&plan->c.value, T::kData, m, n, ldc));
  LtMatmulDesc desc;
  MakeGemmBiasDesc<DType>(transa, transb, &desc);
  LtPreference preference;
  MSHADOW_CUBLAS_CALL(cublasLtMatmulPreferenceCreate(&preference.value));
  const size_t workspace = kGemmBiasWorkspace;
  MSHADOW_CUBLAS_CALL(cublasLtMatmulPreferenceSetAttribute(
      preference.value, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace, sizeof(workspace)));
  for (const auto attribute :
       {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES}) {
    MSHADOW_CUBLAS_CALL(cublasLtMatmulPreferenceSetAttribute(preference.value, attribute,
                                                             &alignment, sizeof(alignment)));
  }
  cublasLtMatmulHeuristicResult_t result{};
  int returned = 0;
  const cublasStatus_t status = cublasLtMatmulAlgoGetHeuristic(
      LtHandle(), desc.value, plan->a.value, plan->b.value, plan->c.value, plan->c.value,
      preference.value, 1, &result, &returned);
  if (status == CUBLAS_STATUS_SUCCESS && returned > 0) {
    plan->algo = result.algo;
    plan->workspace = result.workspaceSize;
    plan->supported = true;
  } else if (status != CUBLAS_STATUS_SUCCESS && status != CUBLAS_STATUS_NOT_SUPPORTED) {
    ThrowBlasError(status, "cublasLtMatmulAlgoGetHeuristic");
  }
  plans.emplace(key, plan);
  return plan;
}

// The largest power of two up to 256 that every pointer is a multiple of.
inline uint32_t CommonAlignment(std::initializer_list<const void*> pointers) {
  uintptr_t bits = 256;
  for (const void* p : pointers) bits |= reinterpret_cast<uintptr_t>(p);
  return static_cast<uint32_t>(bits & (~bits + 1));
}

// C (m x n, column-major) = op(A) op(B) + bias (length m, added to every column), on the
// stream. Returns false, having done nothing, where cuBLASLt has no kernel for the case.
template <typename DType>
inline bool GemmBias(Stream<gpu>* stream, bool transa, bool transb, int m, int n, int k,
                     const DType* A, int lda, const DType* B, int ldb, const DType* bias, DType* C,
                     int ldc) {
  if (m <= 0 || n <= 0 || k <= 0) return false;
  int device = 0;
  MSHADOW_CUDA_CALL(cudaGetDevice(&device));
  const uint32_t alignment = CommonAlignment({A, B, C, bias});
  const auto plan =
      FindGemmBiasPlan<DType>(device, transa, transb, m, n, k, lda, ldb, ldc, alignment);
  if (!plan->supported) return false;

  LtMatmulDesc desc;
  MakeGemmBiasDesc<DType>(transa, transb, &desc);
  MSHADOW_CUBLAS_CALL(cublasLtMatmulDescSetAttribute(desc.value, CUBLASLT_MATMUL_DESC_BIAS_POINTER,
                                                     &bias, sizeof(bias)));
  const cudaStream_t s = Stream<gpu>::GetStream(stream);
  void* workspace = nullptr;
  if (plan->workspace > 0) {
    MSHADOW_CUDA_CALL(cudaMallocFromPoolAsync(&workspace, plan->workspace, ScratchPool(), s));
  }
  const typename LtTypes<DType>::Scale alpha = 1, beta = 0;
  const cublasStatus_t status = cublasLtMatmul(
      LtHandle(), desc.value, &alpha, A, plan->a.value, B, plan->b.value, &beta, C, plan->c.value,
      C, plan->c.value, &plan->algo, workspace, plan->workspace, s);
  if (workspace != nullptr) cudaFreeAsync(workspace, s);
  if (status == CUBLAS_STATUS_NOT_SUPPORTED) return false;
  if (status != CUBLAS_STATUS_SUCCESS) ThrowBlasError(status, "cublasLtMatmul (bias epilogue)");
  return true;
}

}  // namespace cuda
}  // namespace mshadow

#endif  // MSHADOW_CUDA_GEMM_BIAS_H_
