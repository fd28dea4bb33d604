// im2col and col2im: MXNet 1.9.1's printed values, a loop over every block and tap as the
// reference on 1-, 2- and 3-d windows (strides, dilation, padding), col2im as im2col's adjoint,
// write modes, gradients, and the shapes they refuse.
#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/testing/op_test_util.h"
#include "ops/testing/sample_values.h"

namespace ops {
namespace {

using testing::ForwardOf;
using ::testing::HasSubstr;
using testing::InputSpec;
using testing::OpCase;
using testing::Ramp;
using testing::Values;

TEST(SlidingBlocksTest, MxnetsValues) {
  const std::map<std::string, std::string> window{
      {"kernel", "(2,2)"}, {"stride", "(1,2)"}, {"pad", "(1,0)"}};
  const OpCase im2col{"im2col", window, {InputSpec::WithValues(TShape{2, 2, 3, 4}, Ramp(48))}};
  EXPECT_EQ(testing::InferOutputShapes(im2col)[0], (TShape{2, 8, 8}));
  const Values columns = ForwardOf(im2col);
  EXPECT_EQ(Values(columns.begin(), columns.begin() + 24),
            (Values{0, 0, 0, 2, 4, 6, 8, 10, 0, 0, 1, 3, 5, 7, 9, 11, 0, 2, 4, 6, 8, 10, 0, 0}));
  std::map<std::string, std::string> to_image = window;
  to_image["output_size"] = "(3,4)";
  const OpCase col2im{
      "col2im", to_image, {InputSpec::WithValues(TShape{1, 4, 8}, Values(32, 1.0))}};
  EXPECT_EQ(ForwardOf(col2im), Values(12, 2.0));
}

// Image element (c, x...) read by window position o and kernel tap k of an image of spatial
// extents `in`, or -1 in the padding; every axis at once, row-major.
struct Window {
  std::vector<int> in, kernel, stride, dilate, pad;
  int channels;

  std::vector<int> Out() const {
    std::vector<int> out;
    for (size_t a = 0; a < in.size(); ++a) {
      out.push_back((in[a] + 2 * pad[a] - dilate[a] * (kernel[a] - 1) - 1) / stride[a] + 1);
    }
    return out;
  }
  static int Product(const std::vector<int>& v) {
    int p = 1;
    for (const int x : v) p *= x;
    return p;
  }
  // The image offset (within one image) of column element (row, position), or -1.
  int ImageOffset(int row, int position) const {
    const int taps = Product(kernel);
    int c = row / taps, k = row % taps, o = position, offset = 0;
    const std::vector<int> out = Out();
    std::vector<int> tap(in.size()), at(in.size());
    for (int a = static_cast<int>(in.size()) - 1; a >= 0; --a) {
      tap[a] = k % kernel[a], k /= kernel[a];
      at[a] = o % out[a], o /= out[a];
    }
    offset = c;
    for (size_t a = 0; a < in.size(); ++a) {
      const int x = at[a] * stride[a] - pad[a] + tap[a] * dilate[a];
      if (x < 0 || x >= in[a]) return -1;
      offset = offset * in[a] + x;
    }
    return offset;
  }
  std::map<std::string, std::string> Params() const {
    const auto tuple = [](const std::vector<int>& v) {
      std::string s = "(";
      for (const int x : v) s += std::to_string(x) + ",";
      return s + ")";
    };
    return {{"kernel", tuple(kernel)},
            {"stride", tuple(stride)},
            {"dilate", tuple(dilate)},
            {"pad", tuple(pad)},
            {"output_size", tuple(in)}};
  }
};

TEST(SlidingBlocksTest, EveryWindowAgainstLoopsWithGradients) {
  const int batch = 2;
  const std::vector<Window> windows = {
      {{9}, {3}, {2}, {1}, {1}, 3},
      {{5, 6}, {3, 2}, {1, 1}, {1, 2}, {1, 0}, 2},
      {{6, 7}, {2, 3}, {2, 3}, {1, 1}, {0, 2}, 2},
      {{4, 3, 5}, {2, 2, 3}, {1, 2, 1}, {2, 1, 1}, {0, 1, 1}, 2},
  };
  for (const Window& w : windows) {
    std::map<std::string, std::string> im2col_params = w.Params();
    im2col_params.erase("output_size");
    const int rows = w.channels * Window::Product(w.kernel), positions = Window::Product(w.Out());
    const int image_size = w.channels * Window::Product(w.in);
    std::vector<index_t> image_dims{batch, w.channels};
    image_dims.insert(image_dims.end(), w.in.begin(), w.in.end());
    const OpCase im2col{
        "im2col", im2col_params, {InputSpec{TShape(image_dims.begin(), image_dims.end())}}};
    SCOPED_TRACE(im2col_params["kernel"] + " stride " + im2col_params["stride"]);
    testing::CheckForward(im2col, [&](const std::vector<Values>& in) {
      Values out;
      for (int n = 0; n < batch; ++n) {
        for (int r = 0; r < rows; ++r) {
          for (int o = 0; o < positions; ++o) {
            const int at = w.ImageOffset(r, o);
            out.push_back(at < 0 ? 0.0 : in[0][n * image_size + at]);
          }
        }
      }
      return std::vector<Values>{out};
    });
    const OpCase col2im{"col2im", w.Params(), {InputSpec{TShape{batch, rows, positions}}}};
    testing::CheckForward(col2im, [&](const std::vector<Values>& in) {
      Values out(batch * image_size, 0.0);
      for (int n = 0; n < batch; ++n) {
        for (int r = 0; r < rows; ++r) {
          for (int o = 0; o < positions; ++o) {
            const int at = w.ImageOffset(r, o);
            if (at >= 0) out[n * image_size + at] += in[0][(n * rows + r) * positions + o];
          }
        }
      }
      return std::vector<Values>{out};
    });
    for (const OpCase& c : {im2col, col2im}) {
      testing::CheckWriteModes(c);
      testing::CheckGradient(c);
    }
  }
}

TEST(SlidingBlocksTest, BadShapesAreNamed) {
  const auto error_of = [](const std::string& op, const TShape& shape,
                           const std::map<std::string, std::string>& kw) {
    return testing::ErrorOf([&] { testing::InferOutputShapes({op, kw, {InputSpec{shape}}}); });
  };
  EXPECT_THAT(error_of("im2col", TShape{1, 2, 3, 4}, {{"kernel", "(5,5)"}}),
              HasSubstr("the kernel (5,5) (dilated extent 5 on spatial axis 0) is larger than "
                        "the padded image (3) of (1,2,3,4)"));
  EXPECT_THAT(error_of("im2col", TShape{1, 2, 3}, {{"kernel", "(2,2)"}}),
              HasSubstr("takes data of rank 4 (batch, channel, height, width)"));
  EXPECT_THAT(error_of("im2col", TShape{1, 2, 3, 4}, {{"kernel", "(2,2)"}, {"stride", "(0,1)"}}),
              HasSubstr("stride (0,1) has entry 0 on axis 0; each must be at least 1"));
  EXPECT_THAT(
      error_of("col2im", TShape{1, 4, 9}, {{"kernel", "(2,2)"}, {"output_size", "(3,4)"}}),
      HasSubstr("data has 9 blocks (axis 2) but the window takes 6 positions over output_size "
                "(3,4)"));
  EXPECT_THAT(
      error_of("col2im", TShape{1, 6, 6}, {{"kernel", "(2,2)"}, {"output_size", "(3,4)"}}),
      HasSubstr("data's axis 1, 6, must be the channels times the kernel's taps ((2,2): 4)"));
  EXPECT_THAT(error_of("col2im", TShape{1, 4, 6}, {{"kernel", "(2,2)"}, {"output_size", "(3,)"}}),
              HasSubstr("output_size (3,) must have an entry per axis of the kernel (2,2)"));
  EXPECT_THAT(error_of("col2im", TShape{4, 6}, {{"kernel", "(2,2)"}, {"output_size", "(3,4)"}}),
              HasSubstr("data must be columns (batch, channels * kernel taps, blocks), got (4,6)"));
}

}  // namespace
}  // namespace ops
