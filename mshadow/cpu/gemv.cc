// mshadow/cpu/gemv.cc: the loops of gemv::RowDots and gemv::RowCombination (gemv.h), in the
// build's widest packets.
#include "mshadow/cpu/gemv.h"

#include <algorithm>
#include <type_traits>

#include "mshadow/packet-inl.h"
#include "mshadow/parallel.h"

namespace mshadow {
namespace gemv {
namespace {

template <typename DType>
using Full = packet::Packet<DType, MSHADOW_DEFAULT_PACKET>;

// The fewest multiply-adds a thread is given: below this, waking a worker costs more than
// the work it takes over.
constexpr index_t kMinMultiplyAddsPerThread = 32768;

// c + a * b, fused where the packet has a fused multiply-add (float's do).
template <typename P>
MSHADOW_CINLINE P MultiplyAdd(P a, P b, P c) {
  if constexpr (std::is_same_v<P, Full<float>> && MSHADOW_DEFAULT_PACKET != packet::kPlain) {
    return MulAdd(a, b, c);
  } else {
    return a * b + c;
  }
}

// alpha * sum + beta * y, with y not read where beta is 0.
template <typename DType>
MSHADOW_CINLINE DType Combine(DType alpha, DType sum, DType beta, const DType& y) {
  return beta == DType(0) ? alpha * sum : alpha * sum + beta * y;
}

// y = beta * y (zero where beta is 0): the whole product where alpha is 0 or the sums are
// empty.
template <typename DType>
inline void ScaleOnly(index_t n, DType beta, DType* y, index_t incy) {
  for (index_t i = 0; i < n; ++i) y[i * incy] = beta == DType(0) ? DType(0) : beta * y[i * incy];
}

// The dots of kRows rows of a (row stride lda) with x. Two accumulators a row, so that
// kRows * 2 multiply-add chains are in flight; every row is summed the same way whatever
// kRows is (the sums of a thread's last rows match a whole group's).
template <int kRows, typename DType>
MSHADOW_CINLINE void DotsOfRows(index_t cols, const DType* a, index_t lda, const DType* x,
                                DType sums[kRows]) {
  using P = Full<DType>;
  constexpr index_t kLanes = P::kSize;
  P acc[kRows][2];
  for (int r = 0; r < kRows; ++r) acc[r][0] = acc[r][1] = P::Fill(DType(0));
  index_t k = 0;
  for (; k + 2 * kLanes <= cols; k += 2 * kLanes) {
    const P x0 = P::LoadUnAligned(x + k), x1 = P::LoadUnAligned(x + k + kLanes);
    for (int r = 0; r < kRows; ++r) {
      const DType* row = a + r * lda + k;
      acc[r][0] = MultiplyAdd(P::LoadUnAligned(row), x0, acc[r][0]);
      acc[r][1] = MultiplyAdd(P::LoadUnAligned(row + kLanes), x1, acc[r][1]);
    }
  }
  if (k + kLanes <= cols) {
    const P x0 = P::LoadUnAligned(x + k);
    for (int r = 0; r < kRows; ++r) {
      acc[r][0] = MultiplyAdd(P::LoadUnAligned(a + r * lda + k), x0, acc[r][0]);
    }
    k += kLanes;
  }
  for (int r = 0; r < kRows; ++r) {
    DType sum = (acc[r][0] + acc[r][1]).Sum();
    for (index_t t = k; t < cols; ++t) sum += a[r * lda + t] * x[t];
    sums[r] = sum;
  }
}

// Columns [begin, end) of RowCombination, a block of kBlock columns at a time: the block's
// sums stay in the L1 cache while four rows at a time are added to them, each element's
// terms in the order of the rows.
template <typename DType>
void CombineColumns(index_t rows, index_t begin, index_t end, DType alpha, const DType* a,
                    index_t lda, const DType* x, index_t incx, DType beta, DType* y) {
  using P = Full<DType>;
  constexpr index_t kLanes = P::kSize;
  constexpr index_t kBlock = 4096 / sizeof(DType);
  alignas(64) DType sums[kBlock];
  for (index_t j0 = begin; j0 < end; j0 += kBlock) {
    const index_t width = std::min(kBlock, end - j0);
    const index_t packed = width / kLanes * kLanes;
    std::fill(sums, sums + width, DType(0));
    index_t i = 0;
    for (; i + 4 <= rows; i += 4) {
      const DType* row = a + i * lda + j0;
      const P x0 = P::Fill(x[i * incx]), x1 = P::Fill(x[(i + 1) * incx]);
      const P x2 = P::Fill(x[(i + 2) * incx]), x3 = P::Fill(x[(i + 3) * incx]);
      for (index_t j = 0; j < packed; j += kLanes) {
        P s = P::Load(sums + j);
        s = MultiplyAdd(P::LoadUnAligned(row + j), x0, s);
        s = MultiplyAdd(P::LoadUnAligned(row + lda + j), x1, s);
        s = MultiplyAdd(P::LoadUnAligned(row + 2 * lda + j), x2, s);
        s = MultiplyAdd(P::LoadUnAligned(row + 3 * lda + j), x3, s);
        s.Store(sums + j);
      }
    }
    for (; i < rows; ++i) {
      const DType* row = a + i * lda + j0;
      const P xi = P::Fill(x[i * incx]);
      for (index_t j = 0; j < packed; j += kLanes) {
        MultiplyAdd(P::LoadUnAligned(row + j), xi, P::Load(sums + j)).Store(sums + j);
      }
    }
    // The columns past the last whole packet (only at the end of the matrix: the threads'
    // columns start at multiples of a packet).
    for (index_t j = packed; j < width; ++j) {
      for (index_t r = 0; r < rows; ++r) sums[j] += a[r * lda + j0 + j] * x[r * incx];
    }
    for (index_t j = 0; j < width; ++j) y[j0 + j] = Combine(alpha, sums[j], beta, y[j0 + j]);
  }
}

}  // namespace

template <typename DType>
void RowDots(index_t rows, index_t cols, DType alpha, const DType* a, index_t lda, const DType* x,
             DType beta, DType* y, index_t incy) {
  if (rows <= 0) return;
  if (alpha == DType(0) || cols <= 0) return ScaleOnly(rows, beta, y, incy);
  constexpr int kRows = 4;
  const auto run = [&](index_t begin, index_t end) {
    DType sums[kRows];
    index_t i = begin;
    for (; i + kRows <= end; i += kRows) {
      DotsOfRows<kRows>(cols, a + i * lda, lda, x, sums);
      for (int r = 0; r < kRows; ++r) {
        y[(i + r) * incy] = Combine(alpha, sums[r], beta, y[(i + r) * incy]);
      }
    }
    for (; i < end; ++i) {
      DotsOfRows<1>(cols, a + i * lda, lda, x, sums);
      y[i * incy] = Combine(alpha, sums[0], beta, y[i * incy]);
    }
  };
  const index_t threads = std::min<index_t>(
      {GetNumThreads(), rows * cols / kMinMultiplyAddsPerThread, (rows + kRows - 1) / kRows});
  if (threads <= 1) return run(0, rows);
  // Each thread's rows, a multiple of kRows but the last's.
  const index_t groups = (rows + kRows - 1) / kRows;
  ParallelFor(threads, static_cast<int>(threads), [&](index_t part) {
    run(std::min(rows, groups * part / threads * kRows),
        std::min(rows, groups * (part + 1) / threads * kRows));
  });
}

template <typename DType>
void RowCombination(index_t rows, index_t cols, DType alpha, const DType* a, index_t lda,
                    const DType* x, index_t incx, DType beta, DType* y) {
  if (cols <= 0) return;
  if (alpha == DType(0) || rows <= 0) return ScaleOnly(cols, beta, y, index_t{1});
  constexpr index_t kLanes = Full<DType>::kSize;
  const index_t packets = (cols + kLanes - 1) / kLanes;
  const index_t threads =
      std::min<index_t>({GetNumThreads(), rows * cols / kMinMultiplyAddsPerThread, packets});
  if (threads <= 1) return CombineColumns(rows, 0, cols, alpha, a, lda, x, incx, beta, y);
  ParallelFor(threads, static_cast<int>(threads), [&](index_t part) {
    CombineColumns(rows, std::min(cols, packets * part / threads * kLanes),
                   std::min(cols, packets * (part + 1) / threads * kLanes), alpha, a, lda, x, incx,
                   beta, y);
  });
}

template void RowDots<float>(index_t, index_t, float, const float*, index_t, const float*, float,
                             float*, index_t);
template void RowDots<double>(index_t, index_t, double, const double*, index_t, const double*,
                              double, double*, index_t);
template void RowCombination<float>(index_t, index_t, float, const float*, index_t, const float*,
                                    index_t, float, float*);
template void RowCombination<double>(index_t, index_t, double, const double*, index_t,
                                     const double*, index_t, double, double*);

}  // namespace gemv
}  // namespace mshadow
