// ops/linalg_lapack_gpu.h: `Lapack<gpu, float|double>`, the GPU's side of ops/linalg_lapack.h:
// the same functions with the same row-major meaning, through cuBLAS (triangular products,
// LU factorization and inversion, batched) and cuSOLVER (Cholesky, eigen- and QR
// factorization, a matrix at a time). Built with --config=cuda only.
//
// Workspaces, LAPACK's info words and cuBLAS's pointer arrays live in stream-ordered device
// memory (cudaMallocAsync) for the call. Where an info word can report bad input (a matrix that
// is not positive definite), the call waits for the stream and reads it, so that the error is
// a dmlc::Error like the CPU's, raised by the operator that met it.
#ifndef OPS_LINALG_LAPACK_GPU_H_
#define OPS_LINALG_LAPACK_GPU_H_

#include <vector>

#include "mshadow/tensor.h"
#include "ops/linalg_lapack.h"

namespace ops {
namespace linalg {

template <typename DType>
struct Lapack<mshadow::gpu, DType> {
  using Batch = mshadow::Tensor<mshadow::gpu, 3, DType>;
  using Stream = mshadow::Stream<mshadow::gpu>;

  static void Trmm(Stream* s, const Batch& a, const Batch& b, bool rightside, bool lower,
                   bool transpose, DType alpha);
  static void Trsm(Stream* s, const Batch& a, const Batch& b, bool rightside, bool lower,
                   bool transpose, DType alpha);
  static void Syrk(Stream* s, const Batch& a, const Batch& c, bool transpose, DType alpha);
  static void Potrf(Stream* s, const Batch& a);
  static void Potri(Stream* s, const Batch& a);
  static std::vector<int> Getrf(Stream* s, const Batch& a,
                                const mshadow::Tensor<mshadow::gpu, 2, int>& pivots);
  static void Getri(Stream* s, const Batch& lu, const mshadow::Tensor<mshadow::gpu, 2, int>& pivots,
                    const Batch& inverse);
  static void Syevd(Stream* s, const Batch& a, const mshadow::Tensor<mshadow::gpu, 2, DType>& w);
  static void Geqrf(Stream* s, const Batch& a, const mshadow::Tensor<mshadow::gpu, 2, DType>& tau);
  static void Orgqr(Stream* s, const Batch& a, const mshadow::Tensor<mshadow::gpu, 2, DType>& tau);
};

extern template struct Lapack<mshadow::gpu, float>;
extern template struct Lapack<mshadow::gpu, double>;

}  // namespace linalg
}  // namespace ops

#endif  // OPS_LINALG_LAPACK_GPU_H_
