// ops/testing/tap_pairs.h: the pairs of positions a 2-d strided layer's kernel taps join, for
// the direct-sum references of Convolution's and Deconvolution's gradients. A convolution's
// output (the smaller plane) reads its input (the larger) at small * stride - pad + tap per
// axis; a deconvolution's data (smaller) writes its output (larger) at the same places. The
// weight is (small channels, big channels, kernel, kernel) for both: a convolution's
// (filters, channels, ...) and a deconvolution's (channels, filters, ...).
#ifndef OPS_TESTING_TAP_PAIRS_H_
#define OPS_TESTING_TAP_PAIRS_H_

#include <cstddef>

#include "mshadow/tensor_blob.h"

namespace ops {
namespace testing {

// fn(small_at, big_at, weight_at), flat indices, for every image, pair of channels, position of
// the small planes (batch, small channels, h, w) and tap that lands inside the big planes
// (batch, big channels, h, w).
template <typename Fn>
void ForEachTapPair(const TShape& small, const TShape& big, int kernel, int stride, int pad,
                    Fn&& fn) {
  const int batch = small[0], small_channels = small[1], big_channels = big[1];
  const int sh = small[2], sw = small[3], bh = big[2], bw = big[3];
  for (int n = 0; n < batch; ++n) {
    for (int s = 0; s < small_channels; ++s) {
      for (int b = 0; b < big_channels; ++b) {
        for (int y = 0; y < sh; ++y) {
          for (int x = 0; x < sw; ++x) {
            const size_t small_at =
                ((static_cast<size_t>(n) * small_channels + s) * sh + y) * sw + x;
            for (int ky = 0; ky < kernel; ++ky) {
              for (int kx = 0; kx < kernel; ++kx) {
                const int by = y * stride - pad + ky, bx = x * stride - pad + kx;
                if (by < 0 || by >= bh || bx < 0 || bx >= bw) continue;
                fn(small_at, ((static_cast<size_t>(n) * big_channels + b) * bh + by) * bw + bx,
                   ((static_cast<size_t>(s) * big_channels + b) * kernel + ky) * kernel + kx);
              }
            }
          }
        }
      }
    }
  }
}

}  // namespace testing
}  // namespace ops

#endif  // OPS_TESTING_TAP_PAIRS_H_
