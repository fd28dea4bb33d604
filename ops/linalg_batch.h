// ops/linalg_batch.h: what the linear-algebra families (linalg_triangular, linalg_lu,
// linalg_orthogonal) share: blobs of shape (..., rows, columns) as batches of row-major
// matrices, results written as OpReqType says, the operator's scratch in typed pieces, and the
// element kernels that mirror or mask triangles, for every device.
#ifndef OPS_LINALG_BATCH_H_
#define OPS_LINALG_BATCH_H_

#include <initializer_list>
#include <string>
#include <type_traits>
#include <vector>

#include "mshadow/tensor.h"
#include "mshadow/tensor_container.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"
#include "ops/linalg_lapack.h"

namespace ops {
namespace linalg {

// A blob of n >= 2 axes as (the product of all but the last two, rows, columns).
template <typename xpu, typename DType>
Tensor<xpu, 3, DType> MatrixBatch(const TBlob& blob, mshadow::Stream<xpu>* s) {
  const TShape& shape = blob.shape_;
  const int ndim = static_cast<int>(shape.ndim());
  return blob.get_with_shape<xpu, 3, DType>(
      mshadow::Shape3(shape.ProdShape(0, ndim - 2), shape[ndim - 2], shape[ndim - 1]), s);
}

// A shape of matrices: at least two axes, the last two a matrix's rows and columns.
inline void CheckMatrices(const TShape& shape, const char* name) {
  if (shape.ndim() < 2) {
    throw dmlc::Error(std::string(name) + " must have at least two axes (matrices), got " +
                      ShapeText(shape));
  }
}

// Square matrices: the last two axes equal.
inline void CheckSquare(const TShape& shape, const char* name) {
  CheckMatrices(shape, name);
  const int ndim = static_cast<int>(shape.ndim());
  if (shape[ndim - 2] != shape[ndim - 1]) {
    throw dmlc::Error(std::string(name) + " must be square matrices (the last two axes), got " +
                      ShapeText(shape));
  }
}

// Square A (..., n, n) -> an output of A's shape (potrf, potri, inverse).
inline bool SquareShape(const NodeAttrs&, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& a = (*in)[0];
  if (!ShapeIsKnown(a)) return false;
  CheckSquare(a, "A");
  AssignOutputShape(out, 0, a);
  return true;
}

// Where an output's result is computed: the output itself when `req` overwrites it, else (kAddTo,
// or kNullOp for an output computed beside another) a buffer of its own; Commit() then adds
// the buffer for kAddTo.
template <typename xpu, typename DType>
class Result {
 public:
  // The result starts as a copy of `initial` (of out's size): what LAPACK works on in place.
  Result(const TBlob& out, OpReqType req, mshadow::Stream<xpu>* s, const TBlob& initial)
      : Result(out, req, s) {
    mshadow::Copy(flat(), Flat<xpu, DType>(initial, s), s);
  }
  Result(const TBlob& out, OpReqType req, mshadow::Stream<xpu>* s) : out_(out), req_(req), s_(s) {
    if (req == kAddTo || req == kNullOp) {
      buffer_.set_stream(s);
      buffer_.Resize(mshadow::Shape1(out.shape_.Size()));
      data_ = TBlob(buffer_.dptr_, out.shape_, out.dev_mask_, out.type_flag_);
    } else {
      data_ = out;
    }
  }
  Tensor<xpu, 3, DType> matrices() const { return MatrixBatch<xpu, DType>(data_, s_); }
  Tensor<xpu, 1, DType> flat() const { return Flat<xpu, DType>(data_, s_); }
  void Commit() {
    if (req_ == kAddTo) Assign(Flat<xpu, DType>(out_, s_), kAddTo, flat());
  }

 private:
  TBlob out_, data_;
  OpReqType req_;
  mshadow::Stream<xpu>* s_;
  mshadow::TensorContainer<xpu, 1, DType> buffer_;
};

// Pieces of the operator's temporary space (its first requested resource), taken in one
// request: piece i holds sizes[i] DTypes, each 64-byte aligned.
template <typename xpu, typename DType>
std::vector<DType*> TempPieces(const OpContext& ctx, mshadow::Stream<xpu>* s,
                               std::initializer_list<index_t> sizes) {
  constexpr index_t kAlign = 64 / sizeof(DType);
  std::vector<index_t> offsets;
  index_t total = 0;
  for (const index_t size : sizes) {
    offsets.push_back(total);
    total += (size + kAlign - 1) / kAlign * kAlign;
  }
  DType* base = static_cast<DType*>(TempBytes(ctx, total * sizeof(DType), s));
  std::vector<DType*> pieces;
  for (const index_t offset : offsets) pieces.push_back(base + offset);
  return pieces;
}

// The DTypes that hold `count` ints (LU pivots in a piece of TempPieces).
template <typename DType>
constexpr index_t IntSlots(index_t count) {
  return (count * static_cast<index_t>(sizeof(int)) + sizeof(DType) - 1) / sizeof(DType);
}

// A batch of `count` matrices of rows x columns at `data`.
template <typename xpu, typename DType>
Tensor<xpu, 3, DType> BatchAt(DType* data, index_t count, index_t rows, index_t columns,
                              mshadow::Stream<xpu>* s) {
  return Tensor<xpu, 3, DType>(data, mshadow::Shape3(count, rows, columns), s);
}

// Element functions over every element of a batch of n x n matrices: Element(b, row, column,
// n, a, args...) for element (row, column) of matrix b of the batch at a (row-major).
//
// The upper triangle becomes the lower one's mirror image: a symmetric matrix from the lower
// triangle that LAPACK wrote.
struct mirror_lower {
  template <typename DType>
  MSHADOW_XINLINE static void Element(index_t b, index_t row, index_t column, index_t n, DType* a) {
    DType* m = a + b * n * n;
    if (column > row) m[row * n + column] = m[column * n + row];
  }
};

// The triangle not kept (the upper one with `lower`, else the lower one) becomes zero: a
// factor's unused half, or a gradient with respect to a triangular matrix.
struct keep_triangle {
  template <typename DType>
  MSHADOW_XINLINE static void Element(index_t b, index_t row, index_t column, index_t n, DType* a,
                                      bool lower) {
    if (lower ? column > row : column < row) a[(b * n + row) * n + column] = DType(0);
  }
};

// GPU item: element i of the batch.
template <typename Functor>
struct matrix_element {
  template <typename... Args>
  MSHADOW_XINLINE static void Map(index_t i, index_t n, Args... args) {
    const index_t within = i % (n * n);
    Functor::Element(i / (n * n), within / n, within % n, n, args...);
  }
};

// CPU item: row r of the batch, its columns in turn (an element's three divisions had cost
// more than syrk's products for 32 x 32 matrices; docs/benchmarks.md).
template <typename Functor>
struct matrix_row {
  template <typename... Args>
  static void Map(index_t r, index_t n, Args... args) {
    const index_t b = r / n, row = r % n;
    for (index_t column = 0; column < n; ++column) Functor::Element(b, row, column, n, args...);
  }
};

template <typename Functor, typename xpu, typename DType, typename... Args>
void ForEachMatrixElement(mshadow::Stream<xpu>* s, const Tensor<xpu, 3, DType>& a, Args... args) {
  const index_t n = a.size(1);
  if constexpr (std::is_same_v<xpu, mshadow::cpu>) {
    Kernel<matrix_row<Functor>, xpu>::LaunchItems(s, a.size(0) * n, n, n, a.dptr_, args...);
  } else {
    Kernel<matrix_element<Functor>, xpu>::Launch(s, a.shape_.Size(), n, a.dptr_, args...);
  }
}

}  // namespace linalg
}  // namespace ops

#endif  // OPS_LINALG_BATCH_H_
