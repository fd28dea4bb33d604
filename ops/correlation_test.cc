// Correlation: the definition written out as loops over zero-padded copies (which the Python
// suite also checks against MXNet 1.9.1 itself), products and absolute differences, strides,
// padding and wider windows, write modes, gradients, and the shapes and parameters it refuses.
#include <cmath>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/correlation-inl.h"
#include "ops/testing/op_test_util.h"

namespace ops {
namespace {

using ::testing::HasSubstr;
using testing::InputSpec;
using testing::OpCase;
using testing::Values;

struct Setting {
  int kernel, max_displacement, stride1, stride2, pad;
  bool multiply;
};

// The definition: windows of the zero-padded maps, the window at output (i, j) starting at
// (i, j) * stride1 + max_displacement, data2's displaced by (dy, dx) * stride2.
Values Reference(const Values& a, const Values& b, int n, int c, int h, int w, const Setting& s) {
  const int ph = h + 2 * s.pad, pw = w + 2 * s.pad;
  const auto padded = [&](const Values& x, int b_, int c_, int y, int x_) {
    y -= s.pad, x_ -= s.pad;
    return y < 0 || y >= h || x_ < 0 || x_ >= w ? 0.0 : x[((b_ * c + c_) * h + y) * w + x_];
  };
  const int border = s.max_displacement + (s.kernel - 1) / 2;
  const int oh = (ph - 2 * border + s.stride1 - 1) / s.stride1;
  const int ow = (pw - 2 * border + s.stride1 - 1) / s.stride1;
  const int r = s.max_displacement / s.stride2, grid = 2 * r + 1;
  Values out;
  for (int b_ = 0; b_ < n; ++b_) {
    for (int t = 0; t < grid * grid; ++t) {
      const int dy = (t / grid - r) * s.stride2, dx = (t % grid - r) * s.stride2;
      for (int i = 0; i < oh; ++i) {
        for (int j = 0; j < ow; ++j) {
          const int y1 = i * s.stride1 + s.max_displacement;
          const int x1 = j * s.stride1 + s.max_displacement;
          double sum = 0;
          for (int c_ = 0; c_ < c; ++c_) {
            for (int u = 0; u < s.kernel; ++u) {
              for (int v = 0; v < s.kernel; ++v) {
                const double p = padded(a, b_, c_, y1 + u, x1 + v);
                const double q = padded(b, b_, c_, y1 + dy + u, x1 + dx + v);
                sum += s.multiply ? p * q : std::fabs(p - q);
              }
            }
          }
          out.push_back(sum / (s.kernel * s.kernel * c));
        }
      }
    }
  }
  return out;
}

TEST(CorrelationTest, SettingsAgainstLoopsWithGradients) {
  const int n = 2, c = 3, h = 7, w = 8;
  for (const Setting& s : std::vector<Setting>{{1, 1, 1, 1, 0, true},
                                               {3, 2, 1, 1, 2, true},
                                               {1, 4, 2, 2, 4, true},
                                               {3, 1, 1, 1, 1, false},
                                               {1, 3, 3, 2, 1, true},
                                               {3, 2, 2, 1, 3, false}}) {
    const std::map<std::string, std::string> kw{
        {"kernel_size", std::to_string(s.kernel)},
        {"max_displacement", std::to_string(s.max_displacement)},
        {"stride1", std::to_string(s.stride1)},
        {"stride2", std::to_string(s.stride2)},
        {"pad_size", std::to_string(s.pad)},
        {"is_multiply", s.multiply ? "true" : "false"}};
    SCOPED_TRACE(kw.at("kernel_size") + " " + kw.at("max_displacement") + " " + kw.at("stride1") +
                 " " + kw.at("stride2") + " " + kw.at("pad_size") + " " + kw.at("is_multiply"));
    const OpCase op{
        "Correlation", kw, {InputSpec{TShape{n, c, h, w}}, InputSpec{TShape{n, c, h, w}}}};
    testing::CheckForward(op, [&](const std::vector<Values>& in) {
      return std::vector<Values>{Reference(in[0], in[1], n, c, h, w, s)};
    });
    testing::CheckWriteModes(op);
    testing::CheckGradient(op);
  }
}

// The GPU's items (an output element a thread; each input element gathering its gradient)
// run here on the CPU through Kernel<OP, cpu>, against the CPU's row kernels.
TEST(CorrelationTest, TheGpuItemsAgreeWithTheCpuPath) {
  const int n = 2, c = 3, h = 7, w = 8;
  for (const std::map<std::string, std::string>& kw :
       std::vector<std::map<std::string, std::string>>{
           {{"kernel_size", "3"}, {"max_displacement", "2"}, {"pad_size", "2"}},
           {{"max_displacement", "4"}, {"stride1", "2"}, {"stride2", "2"}, {"pad_size", "3"}},
           {{"kernel_size", "3"}, {"max_displacement", "1"}, {"is_multiply", "false"}}}) {
    const OpCase op{
        "Correlation", kw, {InputSpec{TShape{n, c, h, w}}, InputSpec{TShape{n, c, h, w}}}};
    const std::vector<CpuTensor> in = testing::MakeInputs(op, mshadow::kFloat64);
    const Values y = testing::ToValues(testing::Forward(op, in)[0].blob());
    Values og(y.size());
    for (size_t i = 0; i < og.size(); ++i) og[i] = std::cos(0.3 * static_cast<double>(i));
    const std::vector<CpuTensor> grads = testing::Backward(op, in, {og});
    const NodeAttrs attrs = ParseAttrs(Op::Get("Correlation"), kw);
    const correlation::CorrelationParam& param = GetParam<correlation::CorrelationParam>(attrs);
    const correlation::Geometry g = correlation::GeometryOf(param, in[0].shape(), in[1].shape());
    const double *a = in[0].data<double>(), *b = in[1].data<double>();
    Values gpu_y(y.size()), gpu_da(n * c * h * w), gpu_db(n * c * h * w);
    const auto run = [&](auto multiply) {
      constexpr bool kMultiply = decltype(multiply)::value;
      using correlation::correlate_grad;
      Kernel<correlation::correlate_element<kWriteTo, kMultiply>, cpu>::Launch(
          nullptr, static_cast<index_t>(y.size()), gpu_y.data(), a, b, g);
      Kernel<correlate_grad<kWriteTo, kMultiply, true>, cpu>::Launch(
          nullptr, static_cast<index_t>(gpu_da.size()), gpu_da.data(), og.data(), a, b, g);
      Kernel<correlate_grad<kWriteTo, kMultiply, false>, cpu>::Launch(
          nullptr, static_cast<index_t>(gpu_db.size()), gpu_db.data(), og.data(), a, b, g);
    };
    if (param.is_multiply) {
      run(std::true_type());
    } else {
      run(std::false_type());
    }
    testing::ExpectClose(y, gpu_y, 1e-12, 1e-12, "forward");
    testing::ExpectClose(testing::ToValues(grads[0].blob()), gpu_da, 1e-12, 1e-12, "data1");
    testing::ExpectClose(testing::ToValues(grads[1].blob()), gpu_db, 1e-12, 1e-12, "data2");
  }
}

TEST(CorrelationTest, BadShapesAndParametersAreNamed) {
  const auto error_of = [](const std::map<std::string, std::string>& kw, const TShape& a,
                           const TShape& b) {
    return testing::ErrorOf([&] {
      testing::InferOutputShapes({"Correlation", kw, {InputSpec{a}, InputSpec{b}}});
    });
  };
  const TShape maps{2, 3, 7, 8};
  EXPECT_THAT(error_of({}, maps, TShape{2, 3, 7, 9}),
              HasSubstr("data1 (2,3,7,8) and data2 (2,3,7,9) must be feature maps"));
  EXPECT_THAT(error_of({{"kernel_size", "2"}}, maps, maps), HasSubstr("kernel_size 2 must be odd"));
  EXPECT_THAT(error_of({{"max_displacement", "5"}}, maps, maps),
              HasSubstr("the displacements (max_displacement 5) and the window (kernel_size 1) "
                        "do not fit in the padded feature maps (7,8)"));
  EXPECT_THAT(testing::ErrorOf([] {
                ParseAttrs(Op::Get("Correlation"), {{"stride1", "0"}});
              }),
              HasSubstr("stride1"));
}

}  // namespace
}  // namespace ops
