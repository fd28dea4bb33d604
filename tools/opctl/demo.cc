// opctl demo [mlp]: what a host framework does with this library, end to end. It trains a
// 64-128-10 multilayer perceptron on a synthetic classification set generated here, through
// registered operators only: FullyConnected, Activation and softmax_cross_entropy forward,
// their backward operators (found through FGradient), and sgd_update.
#include <algorithm>
#include <chrono>
#include <map>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>

#include "ops/imperative.h"
#include "tools/opctl/commands.h"
#include "tools/opctl/demo_util.h"

namespace opctl {
namespace {

using mshadow::index_t;

using ops::CpuTensor;
using ops::TBlob;
using mshadow::TShape;

constexpr index_t kFeatures = 64, kHidden = 128, kClasses = 10;
constexpr index_t kSamples = 4096, kBatch = 64;
constexpr int kEpochs = 10;
constexpr float kLearningRate = 0.1f;

// Ten Gaussian clusters in 64 dimensions; labels are the cluster indices.
void MakeDataset(const CpuTensor& x, const CpuTensor& y, std::mt19937* rng) {
  std::normal_distribution<float> noise(0.0f, 1.0f);
  CpuTensor centers(TShape{kClasses, kFeatures}, mshadow::kFloat32);
  FillUniform(centers, 1.0f, rng);
  for (index_t i = 0; i < kSamples; ++i) {
    const index_t label = static_cast<index_t>((*rng)() % kClasses);
    y.data<float>()[i] = static_cast<float>(label);
    for (index_t j = 0; j < kFeatures; ++j) {
      x.data<float>()[i * kFeatures + j] =
          centers.data<float>()[label * kFeatures + j] + 2.5f * noise(*rng);
    }
  }
}

// Rows [begin, begin + kBatch) of a tensor.
TBlob BatchRows(const CpuTensor& t, index_t begin) { return Rows(t, begin, kBatch); }

}  // namespace

int DemoMlp() {
  std::mt19937 rng(2026);
  CpuTensor x(TShape{kSamples, kFeatures}, mshadow::kFloat32), y(TShape{kSamples}, mshadow::kFloat32);
  MakeDataset(x, y, &rng);

  // Parameters, Glorot-uniform initialized, and their gradients.
  CpuTensor w1(TShape{kHidden, kFeatures}, mshadow::kFloat32), b1(TShape{kHidden}, mshadow::kFloat32);
  CpuTensor w2(TShape{kClasses, kHidden}, mshadow::kFloat32), b2(TShape{kClasses}, mshadow::kFloat32);
  FillUniform(w1, std::sqrt(6.0f / (kFeatures + kHidden)), &rng);
  FillUniform(w2, std::sqrt(6.0f / (kHidden + kClasses)), &rng);
  CpuTensor dw1(w1.shape(), mshadow::kFloat32), db1(b1.shape(), mshadow::kFloat32);
  CpuTensor dw2(w2.shape(), mshadow::kFloat32), db2(b2.shape(), mshadow::kFloat32);

  // Activations and their gradients for one batch.
  CpuTensor h1(TShape{kBatch, kHidden}, mshadow::kFloat32), a1(h1.shape(), mshadow::kFloat32);
  CpuTensor logits(TShape{kBatch, kClasses}, mshadow::kFloat32), loss(TShape{1}, mshadow::kFloat32);
  CpuTensor dlogits(logits.shape(), mshadow::kFloat32), dlabel(TShape{kBatch}, mshadow::kFloat32);
  CpuTensor da1(a1.shape(), mshadow::kFloat32), dh1(h1.shape(), mshadow::kFloat32);
  CpuTensor dx(TShape{kBatch, kFeatures}, mshadow::kFloat32);
  CpuTensor dloss(TShape{1}, mshadow::kFloat32);
  dloss.data<float>()[0] = 1.0f / kBatch;  // the mean loss over the batch

  const Layer fc1("FullyConnected", {{"num_hidden", std::to_string(kHidden)}});
  const Layer relu("Activation", {{"act_type", "relu"}});
  const Layer fc2("FullyConnected", {{"num_hidden", std::to_string(kClasses)}});
  const Layer cross_entropy("softmax_cross_entropy", {});
  const Layer fc1_grad = fc1.Backward(), relu_grad = relu.Backward(), fc2_grad = fc2.Backward();
  const Layer cross_entropy_grad = cross_entropy.Backward();
  const Layer sgd("sgd_update", {{"lr", std::to_string(kLearningRate)}});

  std::printf("training a %lld-%lld-%lld MLP on %lld samples, batch %lld, through registered "
              "operators\n",
              static_cast<long long>(kFeatures), static_cast<long long>(kHidden),
              static_cast<long long>(kClasses), static_cast<long long>(kSamples),
              static_cast<long long>(kBatch));
  double first_loss = 0, last_loss = 0;
  for (int epoch = 1; epoch <= kEpochs; ++epoch) {
    const auto start = std::chrono::steady_clock::now();
    double loss_sum = 0;
    index_t correct = 0;
    for (index_t begin = 0; begin + kBatch <= kSamples; begin += kBatch) {
      const TBlob xb = BatchRows(x, begin), yb = BatchRows(y, begin);
      fc1.Forward({xb, w1.blob(), b1.blob()}, {h1.blob()});
      relu.Forward({h1.blob()}, {a1.blob()});
      fc2.Forward({a1.blob(), w2.blob(), b2.blob()}, {logits.blob()});
      cross_entropy.Forward({logits.blob(), yb}, {loss.blob()});
      loss_sum += loss.data<float>()[0];
      for (index_t r = 0; r < kBatch; ++r) {
        const float* row = logits.data<float>() + r * kClasses;
        const index_t predicted = std::max_element(row, row + kClasses) - row;
        correct += predicted == static_cast<index_t>(yb.dptr<float>()[r]);
      }
      cross_entropy_grad.Forward({dloss.blob(), logits.blob(), yb}, {dlogits.blob(), dlabel.blob()});
      fc2_grad.Forward({dlogits.blob(), a1.blob(), w2.blob(), b2.blob()},
                       {da1.blob(), dw2.blob(), db2.blob()});
      relu_grad.Forward({da1.blob(), h1.blob(), a1.blob()}, {dh1.blob()});
      // The gradient of the data is not needed: kNullOp.
      fc1_grad.Forward({dh1.blob(), xb, w1.blob(), b1.blob()}, {dx.blob(), dw1.blob(), db1.blob()},
                       {ops::kNullOp, ops::kWriteTo, ops::kWriteTo});
      for (const auto& [weight, grad] : {std::pair{&w1, &dw1}, std::pair{&b1, &db1},
                                         std::pair{&w2, &dw2}, std::pair{&b2, &db2}}) {
        sgd.Forward({weight->blob(), grad->blob()}, {weight->blob()}, {ops::kWriteInplace});
      }
    }
    const std::chrono::duration<double> seconds = std::chrono::steady_clock::now() - start;
    const double mean_loss = loss_sum / kSamples;
    if (epoch == 1) first_loss = mean_loss;
    last_loss = mean_loss;
    std::printf("epoch %2d  loss=%.4f  accuracy=%.3f  %.0f samples/s\n", epoch, mean_loss,
                static_cast<double>(correct) / kSamples, kSamples / seconds.count());
  }
  std::printf("loss fell from %.4f to %.4f\n", first_loss, last_loss);
  if (!(last_loss < 0.5 * first_loss)) {
    std::fprintf(stderr, "opctl demo: the loss did not fall below half its first value\n");
    return 1;
  }
  return 0;
}

int Demo(const Args& args) {
  const std::string which = args.empty() ? "mlp" : args[0];
  if (args.size() > 1 || (which != "mlp" && which != "cnn")) {
    throw dmlc::Error("demo takes one optional argument, mlp (the default) or cnn");
  }
  return which == "mlp" ? DemoMlp() : DemoCnn();
}

}  // namespace opctl
