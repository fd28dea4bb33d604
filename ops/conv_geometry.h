// ops/conv_geometry.h: the geometry of a convolution or pooling window over 1 to 3 spatial
// axes (extents, kernel, stride, dilation, padding), as plain data that kernels on either
// device take by value; and the checks that build it from an operator's parameters.
#ifndef OPS_CONV_GEOMETRY_H_
#define OPS_CONV_GEOMETRY_H_

#include <sstream>
#include <string>

#include "dmlc/logging.h"
#include "dmlc/optional.h"
#include "mshadow/base.h"
#include "mshadow/tensor_blob.h"

namespace ops {

using mshadow::index_t;
using mshadow::TShape;

// The geometry of one convolution (or pooling window): spatial rank 1 to 3, and per spatial
// axis the input and output extents, kernel, stride, dilation and padding. Plain data, passed
// to kernels by value.
struct ConvGeometry {
  static constexpr int kMaxSpatial = 3;
  int ndim = 0;
  index_t channels = 0;
  index_t in[kMaxSpatial] = {};
  index_t out[kMaxSpatial] = {};
  index_t kernel[kMaxSpatial] = {};
  index_t stride[kMaxSpatial] = {};
  index_t dilate[kMaxSpatial] = {};
  index_t pad[kMaxSpatial] = {};

  MSHADOW_XINLINE index_t InSize() const { return Product(in); }
  MSHADOW_XINLINE index_t OutSize() const { return Product(out); }
  MSHADOW_XINLINE index_t KernelSize() const { return Product(kernel); }
  // Rows of the column matrix.
  MSHADOW_XINLINE index_t ColRows() const { return channels * KernelSize(); }

 private:
  MSHADOW_XINLINE index_t Product(const index_t* extents) const {
    index_t size = 1;
    for (int a = 0; a < ndim; ++a) size *= extents[a];
    return size;
  }
};

// A per-axis parameter (stride, dilate, pad) for `ndim` spatial axes: () means `fill` on every
// axis; otherwise it must have ndim entries, each at least `lower_bound`. A dmlc::Error names
// the parameter and the value.
inline void ExpandSpatial(const TShape& given, int ndim, index_t fill, index_t lower_bound,
                          const char* name, index_t* values) {
  if (given.ndim() != 0 && given.ndim() != ndim) {
    std::ostringstream os;
    os << name << " " << given << " has " << given.ndim() << " entries but the kernel has " << ndim
       << " spatial axes";
    throw dmlc::Error(os.str());
  }
  for (int a = 0; a < ndim; ++a) {
    values[a] = given.ndim() == 0 ? fill : given[a];
    if (values[a] < lower_bound) {
      std::ostringstream os;
      os << name << " " << given << " has entry " << values[a] << " on axis " << a
         << "; each must be at least " << lower_bound;
      throw dmlc::Error(os.str());
    }
  }
}

// The layout parameter of Convolution, Deconvolution and Pooling (NCW 0, NCHW 1, NCDHW 2,
// NHWC 3, NDHWC 4): only the channel-first ones (or None) are supported.
inline void CheckChannelFirst(const dmlc::optional<int>& layout, const std::string& op) {
  if (layout.has_value() && layout.value() > 2) {
    throw dmlc::Error(op + " supports the channel-first layouts NCW, NCHW and NCDHW only");
  }
}

// Checks that `data` is (batch, channels, spatial...) for a kernel of `kernel.ndim()` (1 to 3)
// spatial axes, and fills ndim, channels, in and kernel.
inline void SetSpatialInput(const TShape& kernel, const TShape& data, const char* op,
                            ConvGeometry* g) {
  if (kernel.ndim() < 1 || kernel.ndim() > ConvGeometry::kMaxSpatial) {
    std::ostringstream os;
    os << op << " kernel " << kernel << " must have 1, 2 or 3 entries (width; height, width; "
       << "depth, height, width)";
    throw dmlc::Error(os.str());
  }
  g->ndim = kernel.ndim();
  if (data.ndim() != g->ndim + 2) {
    std::ostringstream os;
    os << op << " with a " << g->ndim << "-d kernel " << kernel << " takes data of rank "
       << g->ndim + 2 << " (batch, channel, "
       << (g->ndim == 1   ? "width"
           : g->ndim == 2 ? "height, width"
                          : "depth, height, width")
       << ") but the data is " << data;
    throw dmlc::Error(os.str());
  }
  g->channels = data[1];
  ExpandSpatial(kernel, g->ndim, 1, 1, "kernel", g->kernel);
  for (int a = 0; a < g->ndim; ++a) g->in[a] = data[2 + a];
}

// Sets g's output extents for a convolution window already described by `g` (in, kernel,
// stride, dilate, pad): (in + 2 * pad - dilate * (kernel - 1) - 1) / stride + 1 per axis. A
// dilated kernel larger than the padded input of `data` is a dmlc::Error.
inline void SetConvolutionOutput(const TShape& kernel, const TShape& data, ConvGeometry* g) {
  for (int a = 0; a < g->ndim; ++a) {
    const index_t span = g->dilate[a] * (g->kernel[a] - 1) + 1;
    const index_t padded = g->in[a] + 2 * g->pad[a];
    if (span > padded) {
      std::ostringstream os;
      os << "the kernel " << kernel << " (dilated extent " << span << " on spatial axis " << a
         << ") is larger than the padded input (" << padded << ") of data " << data;
      throw dmlc::Error(os.str());
    }
    g->out[a] = (padded - span) / g->stride[a] + 1;
  }
}

// Of `count` positions along an axis, position j reading input index first + j * step, the
// range [*begin, *end) of those whose index lies in [0, in), the input's (the others read
// padding): a window's taps that read input for one output, or the outputs one tap reads
// input for. The positions reading input are contiguous (the index is linear in j).
inline void PositionsReadingInput(index_t first, index_t step, index_t count, index_t in,
                                  index_t* begin, index_t* end) {
  const auto reads_input = [&](index_t j) {
    return first + j * step >= 0 && first + j * step < in;
  };
  *begin = 0, *end = count;
  while (*begin < *end && !reads_input(*begin)) ++*begin;
  while (*end > *begin && !reads_input(*end - 1)) --*end;
}

// Whether convolution g's data gradient is a convolution of its output gradient at stride 1:
// stride 1 and pad at most dilate * (kernel - 1) on every axis.
inline bool DataGradientIsConvolution(const ConvGeometry& g) {
  for (int a = 0; a < g.ndim; ++a) {
    if (g.stride[a] != 1 || g.pad[a] > g.dilate[a] * (g.kernel[a] - 1)) return false;
  }
  return true;
}

// That convolution (DataGradientIsConvolution): over the output gradient of g's `filters`
// channels, padded by dilate * (kernel - 1) - pad, onto g's input; its weight is
// FlippedWeight's.
inline ConvGeometry DataGradientGeometry(const ConvGeometry& g, index_t filters) {
  ConvGeometry gradient = g;
  gradient.channels = filters;
  for (int a = 0; a < g.ndim; ++a) {
    gradient.in[a] = g.out[a];
    gradient.out[a] = g.in[a];
    gradient.pad[a] = g.dilate[a] * (g.kernel[a] - 1) - g.pad[a];
  }
  return gradient;
}

// Convolution g's weight (filters, channels per group, kernel...) as the tile kernels'
// weight_at takes it: (group, filter, channel, tap), tap flat over the kernel's axes.
template <typename DType>
struct GroupedWeight {
  const DType* weight;
  index_t channels, filters, taps;  // per group of g, and g's kernel size

  GroupedWeight(const DType* w, const ConvGeometry& g, index_t groups, index_t all_filters)
      : weight(w),
        channels(g.channels / groups),
        filters(all_filters / groups),
        taps(g.KernelSize()) {}
  DType operator()(index_t group, index_t f, index_t c, index_t tap) const {
    return weight[((group * filters + f) * channels + c) * taps + tap];
  }
};

// The weight of DataGradientGeometry's convolution from g's: the kernels flipped on every
// axis, their channels and filters swapped, (group, channel, filter, tap).
template <typename DType>
struct FlippedWeight {
  GroupedWeight<DType> of;

  FlippedWeight(const DType* w, const ConvGeometry& g, index_t groups, index_t all_filters)
      : of(w, g, groups, all_filters) {}
  DType operator()(index_t group, index_t c, index_t f, index_t tap) const {
    return of(group, f, c, of.taps - 1 - tap);
  }
};

}  // namespace ops

#endif  // OPS_CONV_GEOMETRY_H_
