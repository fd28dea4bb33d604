// _contrib_fft and _contrib_ifft(data, compute_size): discrete Fourier transforms of the last
// axis, and their backward operators. Plans, shapes and types here; the computation, for every
// device: fft-inl.h; FCompute<gpu>: fft.cu.
#include <cmath>
#include <sstream>
#include <vector>

#include "ops/fft-inl.h"
#include "ops/infer_util.h"

namespace ops {
namespace fft {

DMLC_REGISTER_PARAMETER(FFTParam);

namespace {

// Whether n's only prime factors are 2, 3 and 5.
bool HasSmallFactorsOnly(index_t n) {
  for (const index_t f : {2, 3, 5}) {
    while (n % f == 0) n /= f;
  }
  return n == 1;
}

}  // namespace

Plan PlanOf(index_t n, std::vector<double>* tables) {
  Plan p;
  p.n = n;
  p.m = n;
  const double pi = 3.14159265358979323846;
  if ((n & (n - 1)) == 0) {
    p.algorithm = Algorithm::kRadix2;
  } else if (HasSmallFactorsOnly(n)) {
    p.algorithm = Algorithm::kMixedRadix;
    tables->assign(static_cast<size_t>(p.TableSize()), 0.0);
    for (index_t t = 0; t < n; ++t) {
      const double angle = -2 * pi * static_cast<double>(t) / static_cast<double>(n);
      (*tables)[t] = std::cos(angle), (*tables)[n + t] = std::sin(angle);
    }
    return p;
  } else {
    p.algorithm = Algorithm::kBluestein;
    for (p.m = 1; p.m < 2 * n - 1;) p.m <<= 1;
  }
  tables->assign(static_cast<size_t>(p.TableSize()), 0.0);
  double *tw_re = tables->data(), *tw_im = tw_re + p.m;
  for (index_t half = 1; half < p.m; half <<= 1) {
    for (index_t k = 0; k < half; ++k) {
      const double angle = -pi * static_cast<double>(k) / static_cast<double>(half);
      tw_re[half - 1 + k] = std::cos(angle), tw_im[half - 1 + k] = std::sin(angle);
    }
  }
  if (p.algorithm == Algorithm::kRadix2) return p;
  double *chirp_re = tables->data() + p.ChirpAt(), *chirp_im = chirp_re + n;
  const Split filter{tables->data() + p.FilterAt(), tables->data() + p.FilterAt() + p.m};
  for (index_t j = 0; j < n; ++j) {
    // exp(-pi i j^2 / n) repeats every 2n of j^2: reduced first, the angle stays exact.
    const double angle = -pi * static_cast<double>(j * j % (2 * n)) / static_cast<double>(n);
    chirp_re[j] = std::cos(angle), chirp_im[j] = std::sin(angle);
    // The filter conj(w) at j and, wrapped around, at -j.
    filter.re[j] = chirp_re[j], filter.im[j] = -chirp_im[j];
    if (j > 0) filter.re[p.m - j] = filter.re[j], filter.im[p.m - j] = filter.im[j];
  }
  ForwardPasses(filter, p.m, tw_re, tw_im);
  return p;
}

namespace {

// fft: (..., d) -> (..., 2d), complex values interleaved.
bool FFTShape(const NodeAttrs& /*attrs*/, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  TShape y = data;
  y[y.ndim() - 1] *= 2;
  AssignOutputShape(out, 0, y);
  return true;
}

// ifft: (..., 2d) -> (..., d); the last axis holds whole complex values.
bool IFFTShape(const NodeAttrs& /*attrs*/, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& data = (*in)[0];
  if (!ShapeIsKnown(data)) return false;
  if (data[data.ndim() - 1] % 2 != 0) {
    std::ostringstream os;
    os << "_contrib_ifft: data " << data << " must have an even last axis: complex values, "
       << "(real, imaginary) pairs";
    throw dmlc::Error(os.str());
  }
  TShape y = data;
  y[y.ndim() - 1] /= 2;
  AssignOutputShape(out, 0, y);
  return true;
}

const bool kRegistered = [] {
  SetFFTCompute<cpu>();
  return true;
}();

}  // namespace

OPS_REGISTER_OP(_contrib_fft)
    .describe(
        "The discrete Fourier transform of each row (the last axis, d values) of real data: "
        "X_k = sum_n x_n exp(-2 pi i k n / d), a last axis of 2d with the complex values "
        "interleaved (real, imaginary). Any d: powers of two by radix-2 passes, products of 2, 3 "
        "and 5 by mixed-radix passes, others by Bluestein's algorithm; computed in double.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "Real rows (..., d).")
    .add_arguments(FFTParam::__FIELDS__())
    .set_attr_parser(ParamParser<FFTParam>)
    .set_attr<FInferShape>("FInferShape", FFTShape)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<1, 1>)
    .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace)  // tables and rows
    .set_attr<FGradient>("FGradient", FGradient{"_backward_contrib_fft", false, false});

OPS_REGISTER_OP(_backward_contrib_fft)
    .describe(
        "Gradient of _contrib_fft: the real part of the unnormalized inverse transform of the "
        "output gradient.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<FFTParam>)
    .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace);

OPS_REGISTER_OP(_contrib_ifft)
    .describe(
        "The real part of the unnormalized inverse discrete Fourier transform of each row of "
        "d complex values (a last axis of 2d, interleaved (real, imaginary)): "
        "sum_k z_k exp(2 pi i k n / d), not divided by d (as MXNet's); (..., d).")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "Complex rows (..., 2d), interleaved.")
    .add_arguments(FFTParam::__FIELDS__())
    .set_attr_parser(ParamParser<FFTParam>)
    .set_attr<FInferShape>("FInferShape", IFFTShape)
    .set_attr<FInferType>("FInferType", ElemwiseRealType<1, 1>)
    .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace)
    .set_attr<FGradient>("FGradient", FGradient{"_backward_contrib_ifft", false, false});

OPS_REGISTER_OP(_backward_contrib_ifft)
    .describe(
        "Gradient of _contrib_ifft: the forward transform of the output gradient, complex "
        "values interleaved.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr<bool>("TIsBackward", true)
    .set_attr_parser(ParamParser<FFTParam>)
    .set_attr<FResourceRequest>("FResourceRequest", RequestTempSpace);

}  // namespace fft
}  // namespace ops
