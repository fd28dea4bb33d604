// ops/fft-inl.h: MXNet 1.9.1's _contrib_fft and _contrib_ifft (MXNet runs them on the GPU
// only, through cuFFT) and their backward operators, written once for every device.
//
// fft: each row x (the last axis, d values) of real data to its discrete Fourier transform
// X_k = sum_n x_n exp(-2 pi i k n / d), the complex values interleaved (re, im) along a last
// axis of 2d. ifft: each row of d interleaved complex values z to the real part of its
// unnormalized inverse transform, sum_k z_k exp(2 pi i k n / d) (not divided by d, as
// MXNet's). Their gradients are the same transforms the other way: fft's the real part of the
// unnormalized inverse transform of the output gradient, ifft's the forward transform of its
// output gradient.
//
// A row an item (on the GPU a thread), computed in double: lengths that are powers of two by
// radix-2 passes in place, others by Bluestein's chirp through a power-of-two transform of at
// least 2d - 1 points. The tables (twiddles, chirp, the chirp filter's transform) are made on
// the host once per call. Rows go compute_size at a time, each with 2m doubles of work (m the
// power-of-two length).
// fft.cc registers them with FCompute<cpu> and inference; fft.cu adds FCompute<gpu>.
#ifndef OPS_FFT_INL_H_
#define OPS_FFT_INL_H_

#include <cmath>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/host_values_on_device.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"

namespace ops {
namespace fft {

struct FFTParam : public dmlc::Parameter<FFTParam> {
  int compute_size;
  DMLC_DECLARE_PARAMETER(FFTParam) {
    DMLC_DECLARE_FIELD(compute_size)
        .set_default(128)
        .set_lower_bound(1)
        .describe("Rows transformed at a time (their work space: 16 bytes a point each).");
  }
};

// The transform of length n: m = n for a power of two, else the power of two at least 2n - 1
// of Bluestein's convolution. Its tables, complex values interleaved in one array of doubles:
// the twiddles exp(-2 pi i k / m) for k < m / 2, then (Bluestein only) the chirp
// exp(-pi i j^2 / n) for j < n and the transform of the chirp filter (m values).
struct Plan {
  index_t n, m;
  bool bluestein;
  MSHADOW_XINLINE index_t TwiddleAt() const { return 0; }
  MSHADOW_XINLINE index_t ChirpAt() const { return m; }  // m / 2 complex values before
  MSHADOW_XINLINE index_t FilterAt() const { return m + 2 * n; }
  MSHADOW_XINLINE index_t TableSize() const { return bluestein ? m + 2 * n + 2 * m : m; }
};

// The power-of-two transform of the m complex values at a (interleaved), in place:
// bit-reversed order, then log2(m) passes of butterflies.
MSHADOW_XINLINE void PowerOfTwoTransform(double* a, index_t m, const double* twiddle) {
  for (index_t i = 1, j = 0; i < m; ++i) {
    index_t bit = m >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      const double re = a[2 * i], im = a[2 * i + 1];
      a[2 * i] = a[2 * j], a[2 * i + 1] = a[2 * j + 1];
      a[2 * j] = re, a[2 * j + 1] = im;
    }
  }
  for (index_t len = 2; len <= m; len <<= 1) {
    const index_t half = len / 2, step = m / len;
    for (index_t start = 0; start < m; start += len) {
      for (index_t k = 0; k < half; ++k) {
        const double wr = twiddle[2 * k * step], wi = twiddle[2 * k * step + 1];
        double* u = a + 2 * (start + k);
        double* v = a + 2 * (start + k + half);
        const double tr = v[0] * wr - v[1] * wi, ti = v[0] * wi + v[1] * wr;
        v[0] = u[0] - tr, v[1] = u[1] - ti;
        u[0] += tr, u[1] += ti;
      }
    }
  }
}

// The forward transform (exp(-2 pi i k j / n)) of the n values at a, in place; a holds m
// complex values of room.
MSHADOW_XINLINE void ForwardTransform(double* a, const Plan& p, const double* tables) {
  const double* twiddle = tables + p.TwiddleAt();
  if (!p.bluestein) {
    PowerOfTwoTransform(a, p.m, twiddle);
    return;
  }
  // X_k = w_k sum_j (x_j w_j) conj(w_{k-j}), w_j = exp(-pi i j^2 / n): a convolution with
  // the filter conj(w), through transforms of length m.
  const double* chirp = tables + p.ChirpAt();
  const double* filter = tables + p.FilterAt();
  for (index_t j = 0; j < p.n; ++j) {
    const double re = a[2 * j], im = a[2 * j + 1], wr = chirp[2 * j], wi = chirp[2 * j + 1];
    a[2 * j] = re * wr - im * wi;
    a[2 * j + 1] = re * wi + im * wr;
  }
  for (index_t j = 2 * p.n; j < 2 * p.m; ++j) a[j] = 0.0;
  PowerOfTwoTransform(a, p.m, twiddle);
  // Times the filter's transform, conjugated: the inverse transform is the conjugate of the
  // forward transform of the conjugate.
  for (index_t j = 0; j < p.m; ++j) {
    const double re = a[2 * j], im = a[2 * j + 1];
    const double fr = filter[2 * j], fi = filter[2 * j + 1];
    a[2 * j] = re * fr - im * fi, a[2 * j + 1] = -(re * fi + im * fr);
  }
  PowerOfTwoTransform(a, p.m, twiddle);
  const double scale = 1.0 / static_cast<double>(p.m);
  for (index_t k = 0; k < p.n; ++k) {
    const double re = a[2 * k] * scale, im = -a[2 * k + 1] * scale;
    const double wr = chirp[2 * k], wi = chirp[2 * k + 1];
    a[2 * k] = re * wr - im * wi, a[2 * k + 1] = re * wi + im * wr;
  }
}

// How a row comes in and goes out.
enum class Direction {
  kForward,  // exp(-2 pi i k n / d): fft's forward, ifft's gradient
  kInverse,  // exp(+2 pi i k n / d), unnormalized: ifft's forward, fft's gradient
};

// Item (both devices): row r of a chunk: its n values, real (kComplexIn false) or complex
// interleaved, transformed in `direction` into work (2m doubles a row), and written as complex
// values (kComplexOut) or their real parts.
template <bool kComplexIn, bool kComplexOut>
struct transform_row {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t r, Plan p, const double* tables, const DType* in,
                                  DType* out, double* work, Direction direction, OpReqType req) {
    const index_t n = p.n;
    const DType* x = in + r * (kComplexIn ? 2 * n : n);
    double* a = work + r * 2 * p.m;
    // The inverse transform is the conjugate of the forward transform of the conjugate.
    const double sign = direction == Direction::kInverse ? -1.0 : 1.0;
    for (index_t j = 0; j < n; ++j) {
      a[2 * j] = static_cast<double>(kComplexIn ? x[2 * j] : x[j]);
      a[2 * j + 1] = kComplexIn ? sign * static_cast<double>(x[2 * j + 1]) : 0.0;
    }
    ForwardTransform(a, p, tables);
    DType* y = out + r * (kComplexOut ? 2 * n : n);
    for (index_t k = 0; k < n; ++k) {
      if (kComplexOut) {
        AssignReq(y + 2 * k, static_cast<DType>(a[2 * k]), req);
        AssignReq(y + 2 * k + 1, static_cast<DType>(sign * a[2 * k + 1]), req);
      } else {
        AssignReq(y + k, static_cast<DType>(a[2 * k]), req);
      }
    }
  }
};

// The plan and tables of length n (made on the host).
Plan PlanOf(index_t n, std::vector<double>* tables);

// Transforms the rows of `in` (rows x n, complex interleaved when kComplexIn) into `out`.
template <typename xpu, bool kComplexIn, bool kComplexOut>
void TransformRows(const OpContext& ctx, const TBlob& in, const TBlob& out, OpReqType req,
                   index_t n, Direction direction, int compute_size) {
  if (req == kNullOp || n == 0) return;
  mshadow::Stream<xpu>* s = ctx.get_stream<xpu>();
  std::vector<double> host_tables;
  const Plan p = PlanOf(n, &host_tables);
  const index_t rows = static_cast<index_t>(out.Size()) / (kComplexOut ? 2 * n : n);
  const index_t chunk = std::min<index_t>(compute_size, rows);
  double* space =
      ctx.requested[0]
          .get_space_typed<xpu, 1, double>(mshadow::Shape1(p.TableSize() + chunk * 2 * p.m), s)
          .dptr_;
  const double* tables = HostValuesOnDevice<xpu>(host_tables.data(), p.TableSize(), space, s);
  double* work = space + p.TableSize();
  MSHADOW_SGL_DBL_TYPE_SWITCH(out.type_flag_, DType, {
    const DType* x = in.dptr<DType>();
    DType* y = out.dptr<DType>();
    for (index_t first = 0; first < rows; first += chunk) {
      const index_t count = std::min(chunk, rows - first);
      Kernel<transform_row<kComplexIn, kComplexOut>, xpu>::LaunchItems(
          s, count, p.m * 40, p, tables, x + first * (kComplexIn ? 2 * n : n),
          y + first * (kComplexOut ? 2 * n : n), work, direction, req);
    }
  });
}

// fft, and ifft's gradient: real rows (..., d) to their forward transforms (..., 2d).
template <typename xpu>
void RealToComplex(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  TransformRows<xpu, false, true>(ctx, in[0], out[0], req[0], in[0].shape_[in[0].ndim() - 1],
                                  Direction::kForward, GetParam<FFTParam>(attrs).compute_size);
}

// ifft, and fft's gradient: complex rows (..., 2d) to the real parts of their unnormalized
// inverse transforms (..., d).
template <typename xpu>
void ComplexToReal(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  TransformRows<xpu, true, false>(ctx, in[0], out[0], req[0], out[0].shape_[out[0].ndim() - 1],
                                  Direction::kInverse, GetParam<FFTParam>(attrs).compute_size);
}

// Adds FCompute<xpu> to _contrib_fft, _contrib_ifft and their backward operators.
template <typename xpu>
void SetFFTCompute() {
  const char* attr_name = ComputeAttrName<xpu>();
  RegisterOp("_contrib_fft").set_attr<FCompute>(attr_name, FCompute(RealToComplex<xpu>));
  RegisterOp("_backward_contrib_fft").set_attr<FCompute>(attr_name, FCompute(ComplexToReal<xpu>));
  RegisterOp("_contrib_ifft").set_attr<FCompute>(attr_name, FCompute(ComplexToReal<xpu>));
  RegisterOp("_backward_contrib_ifft").set_attr<FCompute>(attr_name, FCompute(RealToComplex<xpu>));
}

}  // namespace fft
}  // namespace ops

#endif  // OPS_FFT_INL_H_
