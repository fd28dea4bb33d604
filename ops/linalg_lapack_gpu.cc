// Lapack<gpu, DType> (ops/linalg_lapack_gpu.h): cuBLAS and cuSOLVER on row-major batches.
//
// Both libraries are column-major and see a row-major matrix as its transpose, as LAPACK does
// on the CPU: a product b = op(a) b becomes b^T = b^T op(a)^T, the side and the triangle swap
// and the transposition stays; a row-major lower triangle is cuSOLVER's upper one.
#include "ops/linalg_lapack_gpu.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <string>
#include <vector>

#include "mshadow/cuda/check.h"
#include "mshadow/cuda/stream.h"

namespace ops {
namespace linalg {
namespace {

using mshadow::gpu;
using mshadow::index_t;

[[noreturn]] void ThrowSolverError(cusolverStatus_t status, const char* call) {
  throw dmlc::Error(std::string(call) + ": cuSOLVER status " + std::to_string(status));
}

#define OPS_CUSOLVER_CALL(call)                           \
  do {                                                    \
    const cusolverStatus_t ops_cusolver_status = (call);  \
    if (ops_cusolver_status != CUSOLVER_STATUS_SUCCESS) { \
      ThrowSolverError(ops_cusolver_status, #call);       \
    }                                                     \
  } while (0)

// This host thread's cuSOLVER handle, set to the call's stream (a handle serves one thread).
cusolverDnHandle_t SolverHandle(cudaStream_t stream) {
  struct Handle {
    cusolverDnHandle_t handle = nullptr;
    ~Handle() {
      if (handle != nullptr) cusolverDnDestroy(handle);
    }
  };
  thread_local Handle h;
  if (h.handle == nullptr) OPS_CUSOLVER_CALL(cusolverDnCreate(&h.handle));
  OPS_CUSOLVER_CALL(cusolverDnSetStream(h.handle, stream));
  return h.handle;
}

// Device memory for one call, ordered on its stream: freed after the work queued before.
template <typename T>
class StreamBuffer {
 public:
  StreamBuffer(size_t count, cudaStream_t stream) : stream_(stream) {
    if (count > 0) {
      MSHADOW_CUDA_CALL(
          cudaMallocAsync(reinterpret_cast<void**>(&data_), count * sizeof(T), stream));
    }
  }
  ~StreamBuffer() {
    if (data_ != nullptr) cudaFreeAsync(data_, stream_);
  }
  StreamBuffer(StreamBuffer&& other) noexcept : data_(other.data_), stream_(other.stream_) {
    other.data_ = nullptr;
  }
  StreamBuffer(const StreamBuffer&) = delete;
  StreamBuffer& operator=(const StreamBuffer&) = delete;
  T* get() const { return data_; }

 private:
  T* data_ = nullptr;
  cudaStream_t stream_;
};

// Waits for the stream and returns the info words (one per matrix).
std::vector<int> ReadInfo(const StreamBuffer<int>& info, index_t count, cudaStream_t stream) {
  std::vector<int> host(count);
  if (count == 0) return host;
  MSHADOW_CUDA_CALL(cudaMemcpyAsync(host.data(), info.get(), count * sizeof(int),
                                    cudaMemcpyDeviceToHost, stream));
  MSHADOW_CUDA_CALL(cudaStreamSynchronize(stream));
  return host;
}

// The device pointers of every matrix of a batch, for cuBLAS's batched calls.
template <typename DType>
StreamBuffer<DType*> MatrixPointers(DType* base, index_t count, index_t matrix_size,
                                    cudaStream_t stream) {
  std::vector<DType*> host(count);
  for (index_t i = 0; i < count; ++i) host[i] = base + i * matrix_size;
  StreamBuffer<DType*> device(count, stream);
  if (count > 0) {
    // From pageable memory: the call returns once the host array has been staged.
    MSHADOW_CUDA_CALL(cudaMemcpyAsync(device.get(), host.data(), count * sizeof(DType*),
                                      cudaMemcpyHostToDevice, stream));
  }
  return device;
}

int Int(index_t v) { return LapackInt(v, "matrix extent"); }
int Ld(index_t v) { return v == 0 ? 1 : Int(v); }

template <typename DType>
struct Functions;

template <>
struct Functions<float> {
  static constexpr auto trmm = cublasStrmm;
  static constexpr auto trsm = cublasStrsm;
  static constexpr auto syrk = cublasSsyrk;
  static constexpr auto getrf_batched = cublasSgetrfBatched;
  static constexpr auto getri_batched = cublasSgetriBatched;
  static constexpr auto potrf_size = cusolverDnSpotrf_bufferSize;
  static constexpr auto potrf = cusolverDnSpotrf;
  static constexpr auto potri_size = cusolverDnSpotri_bufferSize;
  static constexpr auto potri = cusolverDnSpotri;
  static constexpr auto syevd_size = cusolverDnSsyevd_bufferSize;
  static constexpr auto syevd = cusolverDnSsyevd;
  static constexpr auto geqrf_size = cusolverDnSgeqrf_bufferSize;
  static constexpr auto geqrf = cusolverDnSgeqrf;
  static constexpr auto orgqr_size = cusolverDnSorgqr_bufferSize;
  static constexpr auto orgqr = cusolverDnSorgqr;
};

template <>
struct Functions<double> {
  static constexpr auto trmm = cublasDtrmm;
  static constexpr auto trsm = cublasDtrsm;
  static constexpr auto syrk = cublasDsyrk;
  static constexpr auto getrf_batched = cublasDgetrfBatched;
  static constexpr auto getri_batched = cublasDgetriBatched;
  static constexpr auto potrf_size = cusolverDnDpotrf_bufferSize;
  static constexpr auto potrf = cusolverDnDpotrf;
  static constexpr auto potri_size = cusolverDnDpotri_bufferSize;
  static constexpr auto potri = cusolverDnDpotri;
  static constexpr auto syevd_size = cusolverDnDsyevd_bufferSize;
  static constexpr auto syevd = cusolverDnDsyevd;
  static constexpr auto geqrf_size = cusolverDnDgeqrf_bufferSize;
  static constexpr auto geqrf = cusolverDnDgeqrf;
  static constexpr auto orgqr_size = cusolverDnDorgqr_bufferSize;
  static constexpr auto orgqr = cusolverDnDorgqr;
};

cublasSideMode_t SwappedSide(bool rightside) {
  return rightside ? CUBLAS_SIDE_LEFT : CUBLAS_SIDE_RIGHT;
}
cublasFillMode_t SwappedFill(bool lower) {
  return lower ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
}
cublasOperation_t Op(bool transpose) { return transpose ? CUBLAS_OP_T : CUBLAS_OP_N; }

}  // namespace

template <typename DType>
void Lapack<gpu, DType>::Trmm(Stream* s, const Batch& a, const Batch& b, bool rightside, bool lower,
                              bool transpose, DType alpha) {
  cublasHandle_t handle = Stream::GetBlasHandle(s);
  for (index_t i = 0; i < a.size(0); ++i) {
    // cuBLAS's trmm writes a third matrix; b given twice makes it BLAS's in-place one.
    MSHADOW_CUBLAS_CALL(Functions<DType>::trmm(
        handle, SwappedSide(rightside), SwappedFill(lower), Op(transpose), CUBLAS_DIAG_NON_UNIT,
        Int(b.size(2)), Int(b.size(1)), &alpha, a[i].dptr_, Ld(a.size(2)), b[i].dptr_,
        Ld(b.size(2)), b[i].dptr_, Ld(b.size(2))));
  }
}

template <typename DType>
void Lapack<gpu, DType>::Trsm(Stream* s, const Batch& a, const Batch& b, bool rightside, bool lower,
                              bool transpose, DType alpha) {
  cublasHandle_t handle = Stream::GetBlasHandle(s);
  for (index_t i = 0; i < a.size(0); ++i) {
    MSHADOW_CUBLAS_CALL(Functions<DType>::trsm(handle, SwappedSide(rightside), SwappedFill(lower),
                                               Op(transpose), CUBLAS_DIAG_NON_UNIT, Int(b.size(2)),
                                               Int(b.size(1)), &alpha, a[i].dptr_, Ld(a.size(2)),
                                               b[i].dptr_, Ld(b.size(2))));
  }
}

template <typename DType>
void Lapack<gpu, DType>::Syrk(Stream* s, const Batch& a, const Batch& c, bool transpose,
                              DType alpha) {
  // Row-major c = a a^T is x^T x for x the column-major view of a (so the transposition
  // flips); c's lower triangle is the view's upper one.
  cublasHandle_t handle = Stream::GetBlasHandle(s);
  const DType zero(0);
  const int k = Int(transpose ? a.size(1) : a.size(2));
  for (index_t i = 0; i < a.size(0); ++i) {
    MSHADOW_CUBLAS_CALL(Functions<DType>::syrk(handle, CUBLAS_FILL_MODE_UPPER, Op(!transpose),
                                               Int(c.size(1)), k, &alpha, a[i].dptr_, Ld(a.size(2)),
                                               &zero, c[i].dptr_, Ld(c.size(2))));
  }
}

template <typename DType>
void Lapack<gpu, DType>::Potrf(Stream* s, const Batch& a) {
  const cudaStream_t stream = Stream::GetStream(s);
  cusolverDnHandle_t handle = SolverHandle(stream);
  const int n = Int(a.size(1)), ld = Ld(a.size(1));
  int size = 0;
  OPS_CUSOLVER_CALL(
      Functions<DType>::potrf_size(handle, CUBLAS_FILL_MODE_UPPER, n, a.dptr_, ld, &size));
  StreamBuffer<DType> work(size, stream);
  StreamBuffer<int> info(a.size(0), stream);
  for (index_t i = 0; i < a.size(0); ++i) {
    OPS_CUSOLVER_CALL(Functions<DType>::potrf(handle, CUBLAS_FILL_MODE_UPPER, n, a[i].dptr_, ld,
                                              work.get(), size, info.get() + i));
  }
  const std::vector<int> infos = ReadInfo(info, a.size(0), stream);
  for (index_t i = 0; i < a.size(0); ++i) {
    if (infos[i] > 0) ThrowNotPositiveDefinite(i, infos[i]);
  }
}

template <typename DType>
void Lapack<gpu, DType>::Potri(Stream* s, const Batch& a) {
  const cudaStream_t stream = Stream::GetStream(s);
  cusolverDnHandle_t handle = SolverHandle(stream);
  const int n = Int(a.size(1)), ld = Ld(a.size(1));
  int size = 0;
  OPS_CUSOLVER_CALL(
      Functions<DType>::potri_size(handle, CUBLAS_FILL_MODE_UPPER, n, a.dptr_, ld, &size));
  StreamBuffer<DType> work(size, stream);
  StreamBuffer<int> info(a.size(0), stream);
  for (index_t i = 0; i < a.size(0); ++i) {
    OPS_CUSOLVER_CALL(Functions<DType>::potri(handle, CUBLAS_FILL_MODE_UPPER, n, a[i].dptr_, ld,
                                              work.get(), size, info.get() + i));
  }
  const std::vector<int> infos = ReadInfo(info, a.size(0), stream);
  for (index_t i = 0; i < a.size(0); ++i) {
    if (infos[i] > 0) ThrowBadMatrix(i, "has a zero on its diagonal: (L L^T) is singular");
  }
}

template <typename DType>
std::vector<int> Lapack<gpu, DType>::Getrf(Stream* s, const Batch& a,
                                           const mshadow::Tensor<gpu, 2, int>& pivots) {
  const cudaStream_t stream = Stream::GetStream(s);
  const index_t count = a.size(0), n = a.size(1);
  StreamBuffer<DType*> matrices = MatrixPointers(a.dptr_, count, n * n, stream);
  StreamBuffer<int> info(count, stream);
  if (count > 0) {
    MSHADOW_CUBLAS_CALL(Functions<DType>::getrf_batched(Stream::GetBlasHandle(s), Int(n),
                                                        matrices.get(), Ld(n), pivots.dptr_,
                                                        info.get(), Int(count)));
  }
  return ReadInfo(info, count, stream);
}

template <typename DType>
void Lapack<gpu, DType>::Getri(Stream* s, const Batch& lu,
                               const mshadow::Tensor<gpu, 2, int>& pivots, const Batch& inverse) {
  const cudaStream_t stream = Stream::GetStream(s);
  const index_t count = lu.size(0), n = lu.size(1);
  if (count == 0) return;
  StreamBuffer<DType*> factors = MatrixPointers(lu.dptr_, count, n * n, stream);
  StreamBuffer<DType*> inverses = MatrixPointers(inverse.dptr_, count, n * n, stream);
  StreamBuffer<int> info(count, stream);
  MSHADOW_CUBLAS_CALL(Functions<DType>::getri_batched(
      Stream::GetBlasHandle(s), Int(n), const_cast<const DType**>(factors.get()), Ld(n),
      pivots.dptr_, inverses.get(), Ld(n), info.get(), Int(count)));
}

template <typename DType>
void Lapack<gpu, DType>::Syevd(Stream* s, const Batch& a, const mshadow::Tensor<gpu, 2, DType>& w) {
  const cudaStream_t stream = Stream::GetStream(s);
  cusolverDnHandle_t handle = SolverHandle(stream);
  const int n = Int(a.size(1)), ld = Ld(a.size(1));
  int size = 0;
  OPS_CUSOLVER_CALL(Functions<DType>::syevd_size(
      handle, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_UPPER, n, a.dptr_, ld, w.dptr_, &size));
  StreamBuffer<DType> work(size, stream);
  StreamBuffer<int> info(a.size(0), stream);
  for (index_t i = 0; i < a.size(0); ++i) {
    OPS_CUSOLVER_CALL(Functions<DType>::syevd(handle, CUSOLVER_EIG_MODE_VECTOR,
                                              CUBLAS_FILL_MODE_UPPER, n, a[i].dptr_, ld, w[i].dptr_,
                                              work.get(), size, info.get() + i));
  }
  const std::vector<int> infos = ReadInfo(info, a.size(0), stream);
  for (index_t i = 0; i < a.size(0); ++i) {
    if (infos[i] > 0) ThrowBadMatrix(i, "has eigenvalues that did not converge");
  }
}

template <typename DType>
void Lapack<gpu, DType>::Geqrf(Stream* s, const Batch& a,
                               const mshadow::Tensor<gpu, 2, DType>& tau) {
  const cudaStream_t stream = Stream::GetStream(s);
  cusolverDnHandle_t handle = SolverHandle(stream);
  const int rows = Int(a.size(2)), columns = Int(a.size(1)), ld = Ld(a.size(2));
  int size = 0;
  OPS_CUSOLVER_CALL(Functions<DType>::geqrf_size(handle, rows, columns, a.dptr_, ld, &size));
  StreamBuffer<DType> work(size, stream);
  StreamBuffer<int> info(a.size(0), stream);
  for (index_t i = 0; i < a.size(0); ++i) {
    OPS_CUSOLVER_CALL(Functions<DType>::geqrf(handle, rows, columns, a[i].dptr_, ld, tau[i].dptr_,
                                              work.get(), size, info.get() + i));
  }
}

template <typename DType>
void Lapack<gpu, DType>::Orgqr(Stream* s, const Batch& a,
                               const mshadow::Tensor<gpu, 2, DType>& tau) {
  const cudaStream_t stream = Stream::GetStream(s);
  cusolverDnHandle_t handle = SolverHandle(stream);
  const int rows = Int(a.size(2)), columns = Int(a.size(1)), ld = Ld(a.size(2));
  int size = 0;
  OPS_CUSOLVER_CALL(
      Functions<DType>::orgqr_size(handle, rows, columns, columns, a.dptr_, ld, tau.dptr_, &size));
  StreamBuffer<DType> work(size, stream);
  StreamBuffer<int> info(a.size(0), stream);
  for (index_t i = 0; i < a.size(0); ++i) {
    OPS_CUSOLVER_CALL(Functions<DType>::orgqr(handle, rows, columns, columns, a[i].dptr_, ld,
                                              tau[i].dptr_, work.get(), size, info.get() + i));
  }
}

template struct Lapack<gpu, float>;
template struct Lapack<gpu, double>;

}  // namespace linalg
}  // namespace ops
