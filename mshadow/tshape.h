// mshadow/tshape.h: `TShape`, a shape whose rank is known only at run time.
//
//   TShape s = {2, 3, 4};            // or TShape(Shape3(2, 3, 4)), or TShape(3) == (1,1,1)
//   s.ndim();                        // 3
//   s.Size();                        // 24
//   s.FlatTo2D();                    // Shape<2> (6,4)
//   s.get<3>();                      // Shape<3>; get<2>() throws dmlc::Error (rank 3, not 2)
//   std::cout << s;                  // (2,3,4); one dimension prints as (5,)
//   std::istringstream("(3, 4L, 5)") >> s;   // (3,4,5)
//
// Up to kStackCache dimensions live inside the object; more go to the heap. Dimensions are
// `index_t` and may be negative or zero: operator parameters use them as markers (MXNet's
// Reshape takes (0,-1)); a rank-0 TShape is MXNet's "shape not known yet".
//
// Differences from mshadow, on purpose: Size() and ProdShape() return index_t and throw
// dmlc::Error when the product overflows; index and axis arguments are range-checked
// (operator[] in debug builds only); a moved-from TShape is empty (rank 0); `>>` and Load()
// leave the shape unchanged when they fail; Load() never allocates more than the stream
// actually holds; '[' ']' parse like '(' ')'.
#ifndef MSHADOW_TSHAPE_H_
#define MSHADOW_TSHAPE_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <istream>
#include <ostream>
#include <string_view>
#include <vector>

#include "dmlc/logging.h"
#include "mshadow/macros.h"
#include "mshadow/shape.h"

namespace mshadow {

class TShape;
std::ostream& operator<<(std::ostream& os, const TShape& shape);

class TShape {
 public:
  // Dimensions stored inside the object before the heap is used.
  static constexpr index_t kStackCache = 4;

  // Rank 0: no dimensions.
  TShape() = default;
  // Rank `ndim`, every dimension 1.
  explicit TShape(index_t ndim) {
    CHECK_GE(ndim, 0) << "TShape rank must be non-negative";
    SetDim(ndim);
    std::fill_n(data(), ndim_, index_t{1});
  }
  TShape(std::initializer_list<index_t> dims) { CopyFrom(dims.begin(), dims.end()); }
  template <typename RandomAccessIterator>
  TShape(RandomAccessIterator begin, RandomAccessIterator end) {
    CopyFrom(begin, end);
  }
  template <int dim>
  TShape(const Shape<dim>& s) {  // NOLINT(runtime/explicit): a Shape is a TShape
    CopyFrom(s.shape_, s.shape_ + dim);
  }
  TShape(const TShape& s) { CopyFrom(s.begin(), s.end()); }
  TShape(TShape&& s) noexcept { TakeFrom(&s); }
  ~TShape() { delete[] data_heap_; }

  TShape& operator=(const TShape& shape) {
    if (this != &shape) CopyFrom(shape.begin(), shape.end());
    return *this;
  }
  TShape& operator=(TShape&& shape) noexcept {
    if (this != &shape) {
      delete[] data_heap_;
      data_heap_ = nullptr;
      num_heap_allocated_ = 0;
      TakeFrom(&shape);
    }
    return *this;
  }
  TShape& operator=(const std::vector<index_t>& shape) {
    CopyFrom(shape.begin(), shape.end());
    return *this;
  }
  template <int dim>
  TShape& operator=(const Shape<dim>& shape) {
    CopyFrom(shape.shape_, shape.shape_ + dim);
    return *this;
  }

  // Replaces the dimensions with [begin, end).
  template <typename RandomAccessIterator>
  void CopyFrom(RandomAccessIterator begin, RandomAccessIterator end) {
    SetDim(static_cast<index_t>(end - begin));
    std::copy(begin, end, data());
  }

  index_t* data() { return ndim_ <= kStackCache ? data_stack_ : data_heap_; }
  const index_t* data() const { return ndim_ <= kStackCache ? data_stack_ : data_heap_; }
  const index_t* begin() const { return data(); }
  const index_t* end() const { return data() + ndim_; }
  index_t* begin() { return data(); }
  index_t* end() { return data() + ndim_; }

  index_t ndim() const { return ndim_; }

  index_t& operator[](index_t i) {
    DCHECK(0 <= i && i < ndim_) << "dimension " << i << " of a rank-" << ndim_ << " shape";
    return data()[i];
  }
  const index_t& operator[](index_t i) const {
    DCHECK(0 <= i && i < ndim_) << "dimension " << i << " of a rank-" << ndim_ << " shape";
    return data()[i];
  }

  bool operator==(const TShape& s) const {
    return ndim_ == s.ndim_ && std::equal(begin(), end(), s.begin());
  }
  bool operator!=(const TShape& s) const { return !(*this == s); }
  template <int dim>
  bool operator==(const Shape<dim>& s) const {
    return ndim_ == dim && std::equal(begin(), end(), s.shape_);
  }
  template <int dim>
  bool operator!=(const Shape<dim>& s) const {
    return !(*this == s);
  }

  // The number of elements: the product of all dimensions (1 for rank 0). Throws
  // dmlc::Error if the product does not fit in index_t.
  index_t Size() const { return ProdShape(0, static_cast<int>(ndim_)); }

  // The product of dimensions [dimstart, dimend); throws on overflow or a bad range.
  index_t ProdShape(int dimstart, int dimend) const {
    CHECK(0 <= dimstart && dimstart <= dimend && dimend <= ndim_)
        << "ProdShape(" << dimstart << ", " << dimend << ") of " << *this
        << ": need 0 <= dimstart <= dimend <= " << ndim_;
    index_t product = 1;
    const index_t* d = data();
    for (int i = dimstart; i < dimend; ++i) {
      if (__builtin_mul_overflow(product, d[i], &product)) {
        LOG(FATAL) << "the number of elements of shape " << *this << " overflows index_t";
      }
    }
    return product;
  }

  // (a, b, ..., y, z) -> (a*b*...*y, z); rank 0 gives (0,0).
  Shape<2> FlatTo2D() const {
    if (ndim_ == 0) return Shape2(0, 0);
    return Shape2(ProdShape(0, static_cast<int>(ndim_) - 1), data()[ndim_ - 1]);
  }

  // Three groups: dimensions before axis_begin, [axis_begin, axis_end], after axis_end.
  // Rank 0 gives (0,0,0).
  Shape<3> FlatTo3D(index_t axis_begin, index_t axis_end) const {
    CHECK(axis_end >= axis_begin) << "FlatTo3D: axis_end " << axis_end << " < axis_begin "
                                  << axis_begin;
    if (ndim_ == 0) return Shape3(0, 0, 0);
    CHECK(axis_begin >= 0 && axis_end < ndim_)
        << "FlatTo3D(" << axis_begin << ", " << axis_end << ") of " << *this
        << ": axes must lie in [0, " << ndim_ << ")";
    const int b = static_cast<int>(axis_begin);
    const int e = static_cast<int>(axis_end);
    return Shape3(ProdShape(0, b), ProdShape(b, e + 1), ProdShape(e + 1, static_cast<int>(ndim_)));
  }
  Shape<3> FlatTo3D(index_t axis) const { return FlatTo3D(axis, axis); }

  // The static-rank shape; a different rank is a dmlc::Error.
  template <int dim>
  Shape<dim> get() const {
    CHECK_EQ(dim, ndim_) << "dimension do not match target dimension " << dim << " vs "
                         << ndim_ << ": shape " << *this << " asked for as Shape<" << dim
                         << ">";
    Shape<dim> s;
    std::copy(begin(), end(), s.shape_);
    return s;
  }

  // Binary form: the rank as index_t, then each dimension. `TStream` has
  // `void Write(const void*, size_t)` / `size_t Read(void*, size_t)`, as dmlc::Stream.
  template <typename TStream>
  void Save(TStream* strm) const {
    strm->Write(&ndim_, sizeof(ndim_));
    strm->Write(data(), sizeof(index_t) * static_cast<size_t>(ndim_));
  }

  // Reads what Save wrote. Returns false, leaving the shape unchanged, when the stream ends
  // early or holds a negative rank; memory grows only as dimensions actually arrive.
  template <typename TStream>
  bool Load(TStream* strm) {
    index_t ndim = 0;
    if (strm->Read(&ndim, sizeof(ndim)) != sizeof(ndim) || ndim < 0) return false;
    std::vector<index_t> dims;
    constexpr index_t kChunk = 256;
    while (static_cast<index_t>(dims.size()) < ndim) {
      const size_t count =
          static_cast<size_t>(std::min(kChunk, ndim - static_cast<index_t>(dims.size())));
      const size_t have = dims.size();
      dims.resize(have + count);
      const size_t bytes = sizeof(index_t) * count;
      if (strm->Read(dims.data() + have, bytes) != bytes) return false;
    }
    CopyFrom(dims.begin(), dims.end());
    return true;
  }

 private:
  void SetDim(index_t dim) {
    if (dim > kStackCache && dim > num_heap_allocated_) {
      index_t* heap = new index_t[static_cast<size_t>(dim)];
      delete[] data_heap_;
      data_heap_ = heap;
      num_heap_allocated_ = dim;
    }
    ndim_ = dim;
  }

  // Takes `s`'s dimensions (its heap block, if any) and leaves `s` empty.
  void TakeFrom(TShape* s) {
    ndim_ = s->ndim_;
    num_heap_allocated_ = s->num_heap_allocated_;
    data_heap_ = s->data_heap_;
    std::copy(s->data_stack_, s->data_stack_ + kStackCache, data_stack_);
    s->ndim_ = 0;
    s->num_heap_allocated_ = 0;
    s->data_heap_ = nullptr;
  }

  index_t ndim_ = 0;
  index_t num_heap_allocated_ = 0;
  index_t data_stack_[kStackCache] = {};
  index_t* data_heap_ = nullptr;
};

// Python tuple syntax: (2,3), (5,) for one dimension, () for rank 0.
inline std::ostream& operator<<(std::ostream& os, const TShape& shape) {
  os << '(';
  for (index_t i = 0; i < shape.ndim(); ++i) {
    if (i != 0) os << ',';
    os << shape[i];
  }
  if (shape.ndim() == 1) os << ',';
  return os << ')';
}

// Parses a whole shape from text: a bare integer ("3" is (3,)) or a tuple in parentheses or
// brackets, items separated by commas, each an optionally signed integer with an optional
// Python-2 'L' suffix, one trailing comma allowed: "(3,5)", "(3 , 5)", "(3, 4L, 5)", "(3,)",
// "()". Surrounding whitespace is ignored; anything else is an error. Returns false (and
// leaves *out unchanged) on error.
bool ParseTShape(std::string_view text, TShape* out);

// Reads one shape in the syntax of ParseTShape, leaving what follows it in the stream. On
// malformed input the stream fails and `shape` keeps its value.
std::istream& operator>>(std::istream& is, TShape& shape);

}  // namespace mshadow

#endif  // MSHADOW_TSHAPE_H_
