// opctl: the command-line host of this project.
//
// Until the operator layer lands (the registry and the registered operators), opctl runs an
// end-to-end tensor example: it fits a linear regression model by gradient descent, written
// with mshadow expressions (dot for the forward and backward passes, fused elementwise
// updates, sum_rows for the bias gradient), and prints the loss per epoch.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>

#include "dmlc/logging.h"
#include "mshadow/tensor.h"

namespace {

using mshadow::cpu;
using mshadow::index_t;
using mshadow::Shape1;
using mshadow::Shape2;
using mshadow::TensorContainer;
using mshadow::expr::dot;
using mshadow::expr::sum_rows;

template <int dim>
void FillUniform(mshadow::Tensor<cpu, dim, float> t, std::mt19937* gen) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  mshadow::Tensor<cpu, 2, float> m = t.FlatTo2D();
  for (index_t y = 0; y < m.size(0); ++y)
    for (index_t x = 0; x < m.size(1); ++x) m[y][x] = dist(*gen);
}

// Mean squared error of a prediction against targets.
float MeanSquaredError(const mshadow::Tensor<cpu, 2, float>& diff) {
  double total = 0;
  for (index_t y = 0; y < diff.size(0); ++y)
    for (index_t x = 0; x < diff.size(1); ++x) total += double(diff[y][x]) * diff[y][x];
  return static_cast<float>(total / (diff.size(0) * diff.size(1)));
}

int RunDemo() {
  const index_t samples = 1024, features = 64, outputs = 8;
  const int epochs = 10;
  const float learning_rate = 0.5f;
  std::mt19937 gen(42);

  // Synthetic data: y = x W* + b* + noise.
  TensorContainer<cpu, 2> x(Shape2(samples, features)), y(Shape2(samples, outputs));
  TensorContainer<cpu, 2> true_w(Shape2(features, outputs)), noise(Shape2(samples, outputs));
  FillUniform<2>(x, &gen);
  FillUniform<2>(true_w, &gen);
  FillUniform<2>(noise, &gen);
  y = dot(x, true_w);
  y += noise * 0.01f;

  // Model and buffers.
  TensorContainer<cpu, 2> w(Shape2(features, outputs), 0.0f), grad_w(Shape2(features, outputs));
  TensorContainer<cpu, 1> b(Shape1(outputs), 0.0f), grad_b(Shape1(outputs));
  TensorContainer<cpu, 2> pred(Shape2(samples, outputs)), diff(Shape2(samples, outputs));

  float first_loss = 0, loss = 0;
  for (int epoch = 1; epoch <= epochs; ++epoch) {
    const auto start = std::chrono::steady_clock::now();
    pred = dot(x, w);
    for (index_t i = 0; i < samples; ++i) pred[i] += b;
    diff = pred - y;
    loss = MeanSquaredError(diff);
    if (epoch == 1) first_loss = loss;
    // Gradient of the squared error summed over outputs and averaged over samples.
    const float scale = 2.0f / static_cast<float>(samples);
    grad_w = dot(x.T(), diff) * scale;
    grad_b = sum_rows(diff) * scale;
    w -= grad_w * learning_rate;
    b -= grad_b * learning_rate;
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("epoch %2d  loss=%.6f  samples/s=%.0f\n", epoch, loss, samples / seconds);
  }
  std::printf("loss fell from %.6f to %.6f (%.1fx)\n", first_loss, loss, first_loss / loss);
  if (!(loss < first_loss * 0.5f)) {
    std::fprintf(stderr, "opctl: training did not converge\n");
    return 1;
  }
  return 0;
}

void PrintUsage(std::FILE* out) {
  std::fprintf(out,
               "usage: opctl [demo]\n"
               "  demo   (default) fit a linear model with mshadow tensor expressions\n"
               "The operator commands (list, describe, run, bench) arrive with the operator "
               "layer.\n");
}

}  // namespace

int main(int argc, char** argv) {
  const std::string command = argc > 1 ? argv[1] : "demo";
  if (command == "-h" || command == "--help" || command == "help") {
    PrintUsage(stdout);
    return 0;
  }
  if (command != "demo" || argc > 2) {
    std::fprintf(stderr, "opctl: unknown command '%s'\n", argv[1]);
    PrintUsage(stderr);
    return 2;
  }
  try {
    return RunDemo();
  } catch (const dmlc::Error& e) {
    std::fprintf(stderr, "opctl: %s\n", e.what());
    return 1;
  }
}
