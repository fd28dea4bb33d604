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
// A row an item (on the GPU a thread), computed in double, real and imaginary parts apart:
// lengths that are powers of two by radix-2 passes in place (decimation in frequency, leaving
// bit-reversed order, which the output is read in); lengths of 2^a 3^b 5^c by self-sorting
// (Stockham) passes of radix 4, 2, 3 and 5 between two buffers; any other length by Bluestein's
// chirp through power-of-two transforms of at least 2d - 1 points (a forward one, its product
// with the filter's, kept in the same bit-reversed order, and an inverse one by decimation in
// time). The tables (twiddles, chirp, the chirp filter's transform) are made on the host once
// per call. Rows go compute_size at a time, each with Plan::RowWork() doubles of work.
// fft.cc registers them with FCompute<cpu> and inference; fft.cu adds FCompute<gpu>.
#ifndef OPS_FFT_INL_H_
#define OPS_FFT_INL_H_

#include <algorithm>
#include <cmath>
#include <vector>

#include "mshadow/tensor.h"
#include "ops/host_values_on_device.h"
#include "ops/invoke.h"
#include "ops/kernel_launch.h"
#include "ops/kernel_util.h"
#include "ops/vector_loop.h"

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

// How a transform of length n is computed.
enum class Algorithm {
  kRadix2,      // n a power of two: radix-2 passes in place
  kMixedRadix,  // n = 2^a 3^b 5^c otherwise: self-sorting (Stockham) passes of radix 4, 2, 3, 5
  kBluestein,   // any other n: a convolution through power-of-two transforms of m >= 2n - 1
};

// The transform of length n and its tables, each a run of doubles, real parts then imaginary.
// kRadix2 and kBluestein: the twiddles exp(-2 pi i k / len) of every radix-2 pass of length
// len = 2, 4, ..., m, the pass's half = len / 2 of them from half - 1 (m - 1 in all, each part
// padded to m); then (kBluestein) the chirp exp(-pi i j^2 / n) for j < n and the transform of
// the chirp filter (m values, in bit-reversed order, as the forward passes leave a transform).
// kMixedRadix: exp(-2 pi i t / n) for t < n.
struct Plan {
  index_t n, m;  // m: the power-of-two length (kRadix2, kBluestein), n for kMixedRadix
  Algorithm algorithm;
  MSHADOW_XINLINE index_t ChirpAt() const { return 2 * m; }
  MSHADOW_XINLINE index_t FilterAt() const { return 2 * m + 2 * n; }
  MSHADOW_XINLINE index_t TableSize() const {
    return algorithm == Algorithm::kBluestein ? 4 * m + 2 * n : 2 * m;
  }
  // Doubles of work a row: its values, and kMixedRadix's second buffer.
  MSHADOW_XINLINE index_t RowWork() const {
    return algorithm == Algorithm::kMixedRadix ? 4 * m : 2 * m;
  }
};

// A transform's values: m real parts at re, m imaginary parts at im.
struct Split {
  double *re, *im;
};

// One pass of length len over the m values of a: decimation in frequency (forward: u + v,
// (u - v) w) or in time (inverse: u + v conj(w), u - v conj(w)), the pass's butterflies along
// each block independent: vectorized.
template <bool kForward>
MSHADOW_XINLINE void Pass(Split a, index_t m, index_t len, const double* tw_re,
                          const double* tw_im) {
  const index_t half = len / 2;
  const double *wr = tw_re + half - 1, *wi = tw_im + half - 1;
  for (index_t b = 0; b < m; b += len) {
    double *ur = a.re + b, *ui = a.im + b, *vr = ur + half, *vi = ui + half;
    OPS_SIMD_LOOP
    for (index_t k = 0; k < half; ++k) {
      if (kForward) {
        const double dr = ur[k] - vr[k], di = ui[k] - vi[k];
        ur[k] += vr[k], ui[k] += vi[k];
        vr[k] = dr * wr[k] - di * wi[k], vi[k] = dr * wi[k] + di * wr[k];
      } else {
        const double tr = vr[k] * wr[k] + vi[k] * wi[k], ti = vi[k] * wr[k] - vr[k] * wi[k];
        vr[k] = ur[k] - tr, vi[k] = ui[k] - ti;
        ur[k] += tr, ui[k] += ti;
      }
    }
  }
}

// The passes of lengths 4 and 2 together over each block of 4 values (twiddles 1 and -i, or
// +i inverse): their butterflies are too few a block for Pass's vector loops.
template <bool kForward>
MSHADOW_XINLINE void ShortPasses(Split a, index_t m) {
  for (index_t b = 0; b < m; b += 4) {
    double *re = a.re + b, *im = a.im + b;
    if (kForward) {  // length 4, then 2
      const double r0 = re[0] + re[2], i0 = im[0] + im[2], r1 = re[1] + re[3], i1 = im[1] + im[3];
      const double r2 = re[0] - re[2], i2 = im[0] - im[2];
      const double r3 = im[1] - im[3], i3 = re[3] - re[1];  // (x1 - x3) (-i)
      re[0] = r0 + r1, im[0] = i0 + i1, re[1] = r0 - r1, im[1] = i0 - i1;
      re[2] = r2 + r3, im[2] = i2 + i3, re[3] = r2 - r3, im[3] = i2 - i3;
    } else {  // length 2, then 4
      const double r0 = re[0] + re[1], i0 = im[0] + im[1], r1 = re[0] - re[1], i1 = im[0] - im[1];
      const double r2 = re[2] + re[3], i2 = im[2] + im[3];
      const double r3 = im[3] - im[2], i3 = re[2] - re[3];  // (x2 - x3) (+i)
      re[0] = r0 + r2, im[0] = i0 + i2, re[2] = r0 - r2, im[2] = i0 - i2;
      re[1] = r1 + r3, im[1] = i1 + i3, re[3] = r1 - r3, im[3] = i1 - i3;
    }
  }
}

// The forward transform of the m values of a, in place, left in bit-reversed order:
// decimation in frequency, passes of length m down to 2.
MSHADOW_XINLINE void ForwardPasses(Split a, index_t m, const double* tw_re, const double* tw_im) {
  if (m < 4) {
    for (index_t len = m; len >= 2; len >>= 1) Pass<true>(a, m, len, tw_re, tw_im);
    return;
  }
  for (index_t len = m; len >= 8; len >>= 1) Pass<true>(a, m, len, tw_re, tw_im);
  ShortPasses<true>(a, m);
}

// The unnormalized inverse transform (exp(+2 pi i k j / m)) of m values in bit-reversed order,
// in place, left in natural order: decimation in time with the conjugate twiddles.
MSHADOW_XINLINE void InversePasses(Split a, index_t m, const double* tw_re, const double* tw_im) {
  if (m < 4) {
    for (index_t len = 2; len <= m; len <<= 1) Pass<false>(a, m, len, tw_re, tw_im);
    return;
  }
  ShortPasses<false>(a, m);
  for (index_t len = 8; len <= m; len <<= 1) Pass<false>(a, m, len, tw_re, tw_im);
}

// The DFT of the R values v (sign -1) in place: radix 2, 3, 4 and 5 written out.
template <int R>
MSHADOW_XINLINE void SmallTransform(double* vr, double* vi) {
  if constexpr (R == 2) {
    const double r = vr[0] - vr[1], i = vi[0] - vi[1];
    vr[0] += vr[1], vi[0] += vi[1], vr[1] = r, vi[1] = i;
  } else if constexpr (R == 4) {
    const double ar = vr[0] + vr[2], ai = vi[0] + vi[2], br = vr[0] - vr[2], bi = vi[0] - vi[2];
    const double cr = vr[1] + vr[3], ci = vi[1] + vi[3], dr = vr[1] - vr[3], di = vi[1] - vi[3];
    vr[0] = ar + cr, vi[0] = ai + ci, vr[2] = ar - cr, vi[2] = ai - ci;
    vr[1] = br + di, vi[1] = bi - dr, vr[3] = br - di, vi[3] = bi + dr;  // b -+ i d
  } else if constexpr (R == 3) {
    const double s = 0.86602540378443864676;  // sin(2 pi / 3)
    const double tr = vr[1] + vr[2], ti = vi[1] + vi[2];
    const double ur = vr[0] - 0.5 * tr, ui = vi[0] - 0.5 * ti;
    const double wr = s * (vi[1] - vi[2]), wi = -s * (vr[1] - vr[2]);  // -i s (v1 - v2)
    vr[0] += tr, vi[0] += ti;
    vr[1] = ur + wr, vi[1] = ui + wi, vr[2] = ur - wr, vi[2] = ui - wi;
  } else {
    static_assert(R == 5, "radix 2, 3, 4 or 5");
    const double c1 = 0.30901699437494742410, c2 = -0.80901699437494742410;  // cos(2, 4 pi / 5)
    const double s1 = 0.95105651629515357212, s2 = 0.58778525229247312917;   // sin(2, 4 pi / 5)
    const double t1r = vr[1] + vr[4], t1i = vi[1] + vi[4], t2r = vr[2] + vr[3], t2i = vi[2] + vi[3];
    const double t3r = vr[1] - vr[4], t3i = vi[1] - vi[4], t4r = vr[2] - vr[3], t4i = vi[2] - vi[3];
    const double a1r = vr[0] + c1 * t1r + c2 * t2r, a1i = vi[0] + c1 * t1i + c2 * t2i;
    const double a2r = vr[0] + c2 * t1r + c1 * t2r, a2i = vi[0] + c2 * t1i + c1 * t2i;
    const double b1r = s1 * t3r + s2 * t4r, b1i = s1 * t3i + s2 * t4i;
    const double b2r = s2 * t3r - s1 * t4r, b2i = s2 * t3i - s1 * t4i;
    vr[0] += t1r + t2r, vi[0] += t1i + t2i;
    vr[1] = a1r + b1i, vi[1] = a1i - b1r, vr[4] = a1r - b1i, vi[4] = a1i + b1r;  // a1 -+ i b1
    vr[2] = a2r + b2i, vi[2] = a2i - b2r, vr[3] = a2r - b2i, vi[3] = a2i + b2r;  // a2 -+ i b2
  }
}

// Butterfly j = g done + within of a self-sorting pass of radix R from x into y (see
// StockhamPass).
template <int R>
MSHADOW_XINLINE void StockhamButterfly(Split x, Split y, index_t g, index_t within,
                                       index_t butterflies, index_t done, index_t step,
                                       const double* tw_re, const double* tw_im) {
  const index_t j = g * done + within;
  double vr[R], vi[R];
  OPS_UNROLL_FULLY
  for (int r = 0; r < R; ++r) {
    const index_t t = r * within * step;
    const double xr = x.re[j + r * butterflies], xi = x.im[j + r * butterflies];
    vr[r] = xr * tw_re[t] - xi * tw_im[t], vi[r] = xr * tw_im[t] + xi * tw_re[t];
  }
  SmallTransform<R>(vr, vi);
  const index_t at = g * done * R + within;
  OPS_UNROLL_FULLY
  for (int r = 0; r < R; ++r) y.re[at + r * done] = vr[r], y.im[at + r * done] = vi[r];
}

// One self-sorting pass of radix R from x into y (n values each; `done` the length of the
// transforms already made, a product of the earlier radices): butterfly j = g done + within
// reads x at j + r n / R, twiddled by exp(-2 pi i r within / (done R)), and writes its R
// outputs to y from g done R + within, a `done` apart. The longer of the two loops is the inner
// one (contiguous reads either way), which the compiler vectorizes.
template <int R>
MSHADOW_XINLINE void StockhamPass(Split x, Split y, index_t n, index_t done, const double* tw_re,
                                  const double* tw_im) {
  const index_t butterflies = n / R, step = n / (done * R), groups = butterflies / done;
  if (done >= groups) {
    for (index_t g = 0; g < groups; ++g) {
      OPS_SIMD_LOOP
      for (index_t within = 0; within < done; ++within) {
        StockhamButterfly<R>(x, y, g, within, butterflies, done, step, tw_re, tw_im);
      }
    }
  } else {
    for (index_t within = 0; within < done; ++within) {
      OPS_SIMD_LOOP
      for (index_t g = 0; g < groups; ++g) {
        StockhamButterfly<R>(x, y, g, within, butterflies, done, step, tw_re, tw_im);
      }
    }
  }
}

// The next radix of the passes for the part `rest` of n not yet transformed: 4s, a 2, then 3s
// and 5s (n has no other factors).
MSHADOW_XINLINE int NextRadix(index_t rest) {
  return rest % 4 == 0 ? 4 : rest % 2 == 0 ? 2 : rest % 3 == 0 ? 3 : 5;
}

// The mixed-radix transform of the n values of a, natural order in and out; b is as much room
// again. Returns where the result is (a or b).
MSHADOW_XINLINE Split MixedRadixTransform(Split a, Split b, index_t n, const double* tables) {
  const double *tw_re = tables, *tw_im = tables + n;
  for (index_t done = 1; done < n;) {
    const int radix = NextRadix(n / done);
    switch (radix) {
      case 4:
        StockhamPass<4>(a, b, n, done, tw_re, tw_im);
        break;
      case 2:
        StockhamPass<2>(a, b, n, done, tw_re, tw_im);
        break;
      case 3:
        StockhamPass<3>(a, b, n, done, tw_re, tw_im);
        break;
      default:
        StockhamPass<5>(a, b, n, done, tw_re, tw_im);
        break;
    }
    done *= radix;
    const Split t = a;
    a = b, b = t;
  }
  return a;
}

// The forward transform (exp(-2 pi i k j / n)) of the n values of a (natural order, room for m),
// in place: in bit-reversed order for a power of two, in natural order after Bluestein's
// convolution (NextPosition walks either).
MSHADOW_XINLINE void ForwardTransform(Split a, const Plan& p, const double* tables) {
  const double *tw_re = tables, *tw_im = tables + p.m;
  if (p.algorithm == Algorithm::kRadix2) {
    ForwardPasses(a, p.m, tw_re, tw_im);
    return;
  }
  // X_k = w_k sum_j (x_j w_j) conj(w_{k-j}), w_j = exp(-pi i j^2 / n): a convolution with
  // the filter conj(w), through transforms of length m.
  const double *chirp_re = tables + p.ChirpAt(), *chirp_im = chirp_re + p.n;
  const double *filter_re = tables + p.FilterAt(), *filter_im = filter_re + p.m;
  OPS_SIMD_LOOP
  for (index_t j = 0; j < p.n; ++j) {
    const double re = a.re[j], im = a.im[j];
    a.re[j] = re * chirp_re[j] - im * chirp_im[j];
    a.im[j] = re * chirp_im[j] + im * chirp_re[j];
  }
  for (index_t j = p.n; j < p.m; ++j) a.re[j] = a.im[j] = 0.0;
  ForwardPasses(a, p.m, tw_re, tw_im);
  OPS_SIMD_LOOP
  for (index_t j = 0; j < p.m; ++j) {  // both in bit-reversed order
    const double re = a.re[j], im = a.im[j];
    a.re[j] = re * filter_re[j] - im * filter_im[j];
    a.im[j] = re * filter_im[j] + im * filter_re[j];
  }
  InversePasses(a, p.m, tw_re, tw_im);
  const double scale = 1.0 / static_cast<double>(p.m);
  OPS_SIMD_LOOP
  for (index_t k = 0; k < p.n; ++k) {
    const double re = a.re[k] * scale, im = a.im[k] * scale;
    a.re[k] = re * chirp_re[k] - im * chirp_im[k];
    a.im[k] = re * chirp_im[k] + im * chirp_re[k];
  }
}

// Where the transform left X_{k+1}, given where it left X_k: the next position in bit-reversed
// order (log2 m bits) after radix-2 passes, k + 1 otherwise.
MSHADOW_XINLINE index_t NextPosition(index_t at, const Plan& p) {
  if (p.algorithm != Algorithm::kRadix2) return at + 1;
  index_t bit = p.m >> 1;
  for (; at & bit; bit >>= 1) at ^= bit;
  return at ^ bit;
}

// How a row comes in and goes out.
enum class Direction {
  kForward,  // exp(-2 pi i k n / d): fft's forward, ifft's gradient
  kInverse,  // exp(+2 pi i k n / d), unnormalized: ifft's forward, fft's gradient
};

// Item (both devices): row r of a chunk: its n values, real (kComplexIn false) or complex
// interleaved, transformed in `direction` into work (2m doubles a row: m real parts, m
// imaginary parts), and written as complex values (kComplexOut) or their real parts.
template <bool kComplexIn, bool kComplexOut>
struct transform_row {
  template <typename DType>
  MSHADOW_XINLINE static void Map(index_t r, Plan p, const double* tables, const DType* in,
                                  DType* out, double* work, Direction direction, OpReqType req) {
    const index_t n = p.n;
    const DType* x = in + r * (kComplexIn ? 2 * n : n);
    double* w = work + r * p.RowWork();
    Split a{w, w + p.m};
    // The inverse transform is the conjugate of the forward transform of the conjugate.
    const double sign = direction == Direction::kInverse ? -1.0 : 1.0;
    for (index_t j = 0; j < n; ++j) {
      a.re[j] = static_cast<double>(kComplexIn ? x[2 * j] : x[j]);
      a.im[j] = kComplexIn ? sign * static_cast<double>(x[2 * j + 1]) : 0.0;
    }
    if (p.algorithm == Algorithm::kMixedRadix) {
      a = MixedRadixTransform(a, Split{w + 2 * p.m, w + 3 * p.m}, n, tables);
    } else {
      ForwardTransform(a, p, tables);
    }
    DType* y = out + r * (kComplexOut ? 2 * n : n);
    for (index_t k = 0, at = 0; k < n; ++k, at = NextPosition(at, p)) {
      if (kComplexOut) {
        AssignReq(y + 2 * k, static_cast<DType>(a.re[at]), req);
        AssignReq(y + 2 * k + 1, static_cast<DType>(sign * a.im[at]), req);
      } else {
        AssignReq(y + k, static_cast<DType>(a.re[at]), req);
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
          .get_space_typed<xpu, 1, double>(mshadow::Shape1(p.TableSize() + chunk * p.RowWork()), s)
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
