// Crop: MXNet 1.9.1's printed values (h_w at an offset, centred, crop_like's size), a loop over
// the window as the reference, write modes, gradients (zeros for crop_like), and the windows
// and shapes it refuses.
#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mshadow/parallel.h"
#include "mshadow/streaming_stores.h"
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

TEST(CropTest, MxnetsValues) {
  const InputSpec images = InputSpec::WithValues(TShape{2, 1, 5, 6}, Ramp(60));
  const auto first_image = [](const Values& v, int h, int w) {
    return Values(v.begin(), v.begin() + h * w);
  };
  EXPECT_EQ(
      first_image(
          ForwardOf({"Crop", {{"num_args", "1"}, {"h_w", "(2,3)"}, {"offset", "(1,2)"}}, {images}}),
          2, 3),
      (Values{8, 9, 10, 14, 15, 16}));
  EXPECT_EQ(first_image(ForwardOf({"Crop",
                                   {{"num_args", "1"}, {"h_w", "(2,3)"}, {"center_crop", "true"}},
                                   {images}}),
                        2, 3),
            (Values{7, 8, 9, 13, 14, 15}));
  const InputSpec like{TShape{7, 7, 3, 2}};
  EXPECT_EQ(
      first_image(ForwardOf({"Crop", {{"num_args", "2"}, {"center_crop", "1"}}, {images, like}}), 3,
                  2),
      (Values{8, 9, 14, 15, 20, 21}));
  // With crop_like, h_w is ignored.
  EXPECT_EQ(first_image(ForwardOf({"Crop",
                                   {{"num_args", "2"}, {"h_w", "(1,1)"}, {"offset", "(2,4)"}},
                                   {images, like}}),
                        3, 2),
            (Values{16, 17, 22, 23, 28, 29}));
}

// The (height, width) window at (y, x) of each of `planes` (h, w) planes.
Values WindowOf(const Values& data, int planes, int h, int w, int y, int x, int height, int width) {
  Values out;
  for (int plane = 0; plane < planes; ++plane) {
    for (int r = 0; r < height; ++r) {
      for (int q = 0; q < width; ++q) out.push_back(data[(plane * h + y + r) * w + x + q]);
    }
  }
  return out;
}

// Every cut of (2, 3, 6, 7) images: values, write modes and gradients against the loops.
void CheckCutsAgainstLoops() {
  const int n = 2, c = 3, h = 6, w = 7;
  struct Cut {
    std::map<std::string, std::string> params;
    bool crop_like;
    int y, x, height, width;
  };
  const std::vector<Cut> cuts = {
      {{{"num_args", "1"}, {"h_w", "(4,3)"}, {"offset", "(2,4)"}}, false, 2, 4, 4, 3},
      {{{"num_args", "1"}, {"h_w", "(3,4)"}, {"center_crop", "1"}}, false, 1, 1, 3, 4},
      {{{"num_args", "2"}, {"offset", "(1,0)"}}, true, 1, 0, 5, 7},
      {{{"num_args", "2"}, {"center_crop", "1"}}, true, 0, 1, 6, 5},
  };
  for (const Cut& cut : cuts) {
    OpCase op{"Crop", cut.params, {InputSpec{TShape{n, c, h, w}}}};
    if (cut.crop_like) op.inputs.push_back(InputSpec{TShape{1, 1, cut.height, cut.width}});
    SCOPED_TRACE(cut.params.count("h_w") ? cut.params.at("h_w") : "crop_like");
    testing::CheckForward(op, [&](const std::vector<Values>& in) {
      return std::vector<Values>{WindowOf(in[0], n * c, h, w, cut.y, cut.x, cut.height, cut.width)};
    });
    testing::CheckWriteModes(op);
    testing::CheckGradient(op);
  }
}

TEST(CropTest, WindowsAgainstLoopsWithGradients) { CheckCutsAgainstLoops(); }

// The CPU streams large windows and gradients out (StreamsCopyOf): every output counted large.
TEST(CropTest, WindowsThroughStreamingStoresAgainstLoops) {
  mshadow::SetStreamingStoreMinBytes(1);
  CheckCutsAgainstLoops();
  mshadow::SetStreamingStoreMinBytes(0);
}

// Enough rows for two threads, the second starting inside a plane: its first row's place is
// divided out, the rest carried from row to row.
TEST(CropTest, RowsSharedBetweenThreads) {
  const int n = 3, c = 5, h = 66, w = 70;
  const OpCase op{"Crop",
                  {{"num_args", "1"}, {"h_w", "(61,64)"}, {"offset", "(2,3)"}},
                  {InputSpec{TShape{n, c, h, w}}}};
  mshadow::SetNumThreads(2);
  testing::CheckForward(op, [&](const std::vector<Values>& in) {
    return std::vector<Values>{WindowOf(in[0], n * c, h, w, 2, 3, 61, 64)};
  });
  const std::vector<CpuTensor> inputs = testing::MakeInputs(op, mshadow::kFloat64);
  Values og(n * c * 61 * 64);
  for (size_t i = 0; i < og.size(); ++i) og[i] = 1.0 + static_cast<double>(i);
  const Values two_threads = testing::ToValues(testing::Backward(op, inputs, {og})[0].blob());
  mshadow::SetNumThreads(1);
  const Values one_thread = testing::ToValues(testing::Backward(op, inputs, {og})[0].blob());
  mshadow::SetNumThreads(0);
  EXPECT_EQ(one_thread, two_threads);
  // Every output gradient element lands once, inside the window: the totals agree.
  double total = 0, og_total = 0;
  for (const double v : two_threads) total += v;
  for (const double v : og) og_total += v;
  EXPECT_EQ(total, og_total);
}

TEST(CropTest, BadWindowsAreNamed) {
  const auto error_of = [](const std::map<std::string, std::string>& kw,
                           std::vector<InputSpec> inputs) {
    return testing::ErrorOf([&] { testing::InferOutputShapes({"Crop", kw, inputs}); });
  };
  const InputSpec images{TShape{2, 1, 5, 6}};
  EXPECT_THAT(error_of({{"num_args", "1"}, {"h_w", "(2,3)"}, {"offset", "(4,2)"}}, {images}),
              HasSubstr("offset (4,2) puts the window (2,3) outside the images' height and "
                        "width (5,6); valid: (0...3, 0...3)"));
  EXPECT_THAT(error_of({{"num_args", "1"}}, {images}),
              HasSubstr("h_w (0,0) must be a height and a width of at least 1 (one input)"));
  EXPECT_THAT(error_of({{"num_args", "1"}, {"h_w", "(6,1)"}}, {images}),
              HasSubstr("the window (6,1) is larger than the images' height and width (5,6)"));
  EXPECT_THAT(error_of({{"num_args", "1"}, {"h_w", "(1,1)"}}, {InputSpec{TShape{2, 3, 4}}}),
              HasSubstr("data must be images (batch, channels, height, width), got (2,3,4)"));
  EXPECT_THAT(error_of({{"num_args", "2"}}, {images, InputSpec{TShape{3, 2}}}),
              HasSubstr("crop_like must have 4 axes"));
  EXPECT_THAT(testing::ErrorOf([] {
                ParseAttrs(Op::Get("Crop"), {{"num_args", "3"}});
              }),
              HasSubstr("num_args"));
}

}  // namespace
}  // namespace ops
