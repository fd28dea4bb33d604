// mshadow/shape.h: `Shape<dim>`, the static-rank shape of a tensor or expression.
//
//   Shape<5> s = Shape5(3, 4, 5, 6, 7);
//   s.Slice<2, 5>()   // (5,6,7)
//   s.FlatTo2D()      // (360,7): all leading dimensions folded into rows
//   std::cout << s;   // (3,4,5,6,7); a 1-D shape prints as (3,), a Python tuple
//
// Shape lives in the base target (not in tensor.h as in mshadow) because the expression
// engine's shape checks need it, and the tensor target sits above the expression target.
#ifndef MSHADOW_SHAPE_H_
#define MSHADOW_SHAPE_H_

#include <ostream>

#include "dmlc/logging.h"
#include "mshadow/layout.h"
#include "mshadow/macros.h"

namespace mshadow {

template <int dimension>
struct Shape {
  static_assert(dimension >= 0, "Shape dimension must be non-negative");
  static constexpr int kDimension = dimension;
  // Rank of the shape of one row (`operator[]` of a tensor).
  static constexpr int kSubdim = dimension - 1;

  // Extents, highest dimension first; the last one is contiguous in memory.
  // Zero-initialized so that a default shape never holds garbage.
  index_t shape_[dimension > 0 ? dimension : 1] = {};

  Shape() = default;

  MSHADOW_XINLINE index_t& operator[](index_t idx) { return shape_[idx]; }
  MSHADOW_XINLINE const index_t& operator[](index_t idx) const { return shape_[idx]; }

  MSHADOW_XINLINE bool operator==(const Shape<kDimension>& s) const {
    for (int i = 0; i < kDimension; ++i) {
      if (s.shape_[i] != shape_[i]) return false;
    }
    return true;
  }
  MSHADOW_XINLINE bool operator!=(const Shape<kDimension>& s) const { return !(*this == s); }

  // Number of elements: the product of all extents (1 for a 0-D shape).
  MSHADOW_XINLINE index_t Size() const { return ProdShape(0, kDimension); }

  // (5,3,6) -> (90,)
  MSHADOW_XINLINE Shape<1> FlatTo1D() const {
    Shape<1> s;
    s[0] = Size();
    return s;
  }

  // (5,3,6) -> (15,6): the lowest dimension stays (it is the contiguous one and may carry a
  // stride); everything above it becomes rows. This is how 2-D kernels see any tensor.
  MSHADOW_XINLINE Shape<2> FlatTo2D() const {
    Shape<2> s;
    s.shape_[1] = kDimension > 0 ? shape_[kDimension - 1] : 1;
    s.shape_[0] = ProdShape(0, kDimension - 1);
    return s;
  }

  // Product of extents in [dimstart, dimend).
  MSHADOW_XINLINE index_t ProdShape(int dimstart, int dimend) const {
    index_t num = 1;
    for (int i = dimstart; i < dimend; ++i) num *= shape_[i];
    return num;
  }

  // (3,2,6,4) -> (2,6,4): the shape of one row, `tensor[i]`.
  MSHADOW_XINLINE Shape<kSubdim> SubShape() const {
    static_assert(kDimension > 0, "SubShape of a 0-D shape");
    Shape<kSubdim> s;
    for (int i = 0; i < kSubdim; ++i) s.shape_[i] = shape_[i + 1];
    return s;
  }

  // Extents in [dimstart, dimend): Shape5(3,4,5,6,7).Slice<2,5>() == (5,6,7).
  template <int dimstart, int dimend>
  MSHADOW_XINLINE Shape<dimend - dimstart> Slice() const {
    static_assert(0 <= dimstart && dimstart <= dimend && dimend <= kDimension,
                  "Slice<dimstart, dimend> must satisfy 0 <= dimstart <= dimend <= dim");
    Shape<dimend - dimstart> s;
    for (int i = dimstart; i < dimend; ++i) s[i - dimstart] = shape_[i];
    return s;
  }
};

MSHADOW_XINLINE Shape<0> Shape0() { return Shape<0>(); }
MSHADOW_XINLINE Shape<1> Shape1(index_t s0) {
  Shape<1> s;
  s[0] = s0;
  return s;
}
MSHADOW_XINLINE Shape<2> Shape2(index_t s0, index_t s1) {
  Shape<2> s;
  s[0] = s0;
  s[1] = s1;
  return s;
}
MSHADOW_XINLINE Shape<3> Shape3(index_t s0, index_t s1, index_t s2) {
  Shape<3> s;
  s[0] = s0;
  s[1] = s1;
  s[2] = s2;
  return s;
}
MSHADOW_XINLINE Shape<4> Shape4(index_t s0, index_t s1, index_t s2, index_t s3) {
  Shape<4> s;
  s[0] = s0;
  s[1] = s1;
  s[2] = s2;
  s[3] = s3;
  return s;
}
MSHADOW_XINLINE Shape<5> Shape5(index_t s0, index_t s1, index_t s2, index_t s3, index_t s4) {
  Shape<5> s;
  s[0] = s0;
  s[1] = s1;
  s[2] = s2;
  s[3] = s3;
  s[4] = s4;
  return s;
}

// Python tuple syntax: (2,3) and (5,) for one dimension.
template <int ndim>
inline std::ostream& operator<<(std::ostream& os, const Shape<ndim>& shape) {
  os << '(';
  for (int i = 0; i < ndim; ++i) {
    if (i != 0) os << ',';
    os << shape[i];
  }
  if (ndim == 1) os << ',';
  os << ')';
  return os;
}

namespace detail {

// For each axis in canonical order (N, C, then spatial axes in order), where it sits in a
// shape of the given layout. Returns false for a layout of another rank.
template <int ndim>
inline bool LayoutAxes(int layout, int (&axes)[ndim]) {
  // Each row: layout, then the position of N, C, spatial... in that layout.
  static constexpr int kTable[][6] = {
      {kNCW, 0, 1, 2},          {kNWC, 0, 2, 1},          {kCWN, 2, 0, 1},
      {kNCHW, 0, 1, 2, 3},      {kNHWC, 0, 3, 1, 2},      {kCHWN, 3, 0, 1, 2},
      {kNCDHW, 0, 1, 2, 3, 4},  {kNDHWC, 0, 4, 1, 2, 3},  {kCDHWN, 4, 0, 1, 2, 3},
  };
  const int first = ndim == 3 ? 0 : ndim == 4 ? 3 : 6;
  for (int row = first; row < first + 3; ++row) {
    if (kTable[row][0] != layout) continue;
    for (int i = 0; i < ndim; ++i) axes[i] = kTable[row][i + 1];
    return true;
  }
  return false;
}

template <int ndim>
inline Shape<ndim> ConvertLayoutImpl(const Shape<ndim>& src, int src_layout, int dst_layout,
                                     const char* valid) {
  int src_axes[ndim], dst_axes[ndim];
  CHECK(LayoutAxes(src_layout, src_axes))
      << "invalid source layout " << LayoutName(src_layout) << " (" << src_layout << ") for a "
      << ndim << "-d shape; valid: " << valid;
  CHECK(LayoutAxes(dst_layout, dst_axes))
      << "invalid target layout " << LayoutName(dst_layout) << " (" << dst_layout << ") for a "
      << ndim << "-d shape; valid: " << valid;
  Shape<ndim> dst;
  for (int i = 0; i < ndim; ++i) dst[dst_axes[i]] = src[src_axes[i]];
  return dst;
}

}  // namespace detail

// Reorders a shape given in `src_layout` into `dst_layout`, e.g. NCHW (2,3,5,7) -> NHWC
// (2,5,7,3). A layout of the wrong rank is a dmlc::Error.
inline Shape<3> ConvertLayout(const Shape<3>& src, int src_layout, int dst_layout) {
  return detail::ConvertLayoutImpl(src, src_layout, dst_layout, "NCW, NWC, CWN");
}
inline Shape<4> ConvertLayout(const Shape<4>& src, int src_layout, int dst_layout) {
  return detail::ConvertLayoutImpl(src, src_layout, dst_layout, "NCHW, NHWC, CHWN");
}
inline Shape<5> ConvertLayout(const Shape<5>& src, int src_layout, int dst_layout) {
  return detail::ConvertLayoutImpl(src, src_layout, dst_layout, "NCDHW, NDHWC, CDHWN");
}

}  // namespace mshadow

#endif  // MSHADOW_SHAPE_H_
