// opctl demo [mlp] [--device cpu|gpu]: what a host framework does with this library, end to
// end. It trains a 64-128-10 multilayer perceptron on a synthetic classification set
// generated here, through registered operators only: FullyConnected, Activation and
// softmax_cross_entropy forward, their backward operators (found through FGradient), and
// sgd_update; on GPU 0 where opctl was built with CUDA and a GPU is present (the loss and the
// scores come back to the host each batch), else on the CPU.
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

// Rows [begin, begin + kBatch) of a tensor, on whatever device.
TBlob BatchRows(const TBlob& t, index_t begin) { return Rows(t, begin, kBatch); }

// A host tensor's values on the device.
TBlob Upload(DemoDevice& device, const CpuTensor& host) {
  return device.Upload(host.shape(), host.data<float>());
}

// Zeros of `shape` on the device.
TBlob Zeros(DemoDevice& device, const TShape& shape) {
  const std::vector<float> zeros(shape.Size(), 0.0f);
  return device.Upload(shape, zeros.data());
}

}  // namespace

int DemoMlp(DemoDevice& device) {
  std::mt19937 rng(2026);
  CpuTensor x(TShape{kSamples, kFeatures}, mshadow::kFloat32), y(TShape{kSamples}, mshadow::kFloat32);
  MakeDataset(x, y, &rng);

  // Parameters, Glorot-uniform initialized, and their gradients.
  CpuTensor w1_init(TShape{kHidden, kFeatures}, mshadow::kFloat32);
  CpuTensor w2_init(TShape{kClasses, kHidden}, mshadow::kFloat32);
  FillUniform(w1_init, std::sqrt(6.0f / (kFeatures + kHidden)), &rng);
  FillUniform(w2_init, std::sqrt(6.0f / (kHidden + kClasses)), &rng);
  const TBlob data = Upload(device, x), labels = Upload(device, y);
  const TBlob w1 = Upload(device, w1_init), b1 = Zeros(device, TShape{kHidden});
  const TBlob w2 = Upload(device, w2_init), b2 = Zeros(device, TShape{kClasses});
  const TBlob dw1 = Zeros(device, w1.shape_), db1 = Zeros(device, b1.shape_);
  const TBlob dw2 = Zeros(device, w2.shape_), db2 = Zeros(device, b2.shape_);

  // Activations and their gradients for one batch.
  const TBlob h1 = Zeros(device, TShape{kBatch, kHidden}), a1 = Zeros(device, h1.shape_);
  const TBlob logits = Zeros(device, TShape{kBatch, kClasses}), loss = Zeros(device, TShape{1});
  const TBlob dlogits = Zeros(device, logits.shape_), dlabel = Zeros(device, TShape{kBatch});
  const TBlob da1 = Zeros(device, a1.shape_), dh1 = Zeros(device, h1.shape_);
  const TBlob dx = Zeros(device, TShape{kBatch, kFeatures});
  const float mean = 1.0f / kBatch;  // the gradient of the mean loss over the batch
  const TBlob dloss = device.Upload(TShape{1}, &mean);

  const Layer fc1("FullyConnected", {{"num_hidden", std::to_string(kHidden)}}, true, device);
  const Layer relu("Activation", {{"act_type", "relu"}}, true, device);
  const Layer fc2("FullyConnected", {{"num_hidden", std::to_string(kClasses)}}, true, device);
  const Layer cross_entropy("softmax_cross_entropy", {}, true, device);
  const Layer fc1_grad = fc1.Backward(), relu_grad = relu.Backward(), fc2_grad = fc2.Backward();
  const Layer cross_entropy_grad = cross_entropy.Backward();
  const Layer sgd("sgd_update", {{"lr", std::to_string(kLearningRate)}}, true, device);

  std::printf(
      "training a %lld-%lld-%lld MLP on %lld samples, batch %lld, through registered "
      "operators on the %s\n",
      static_cast<long long>(kFeatures), static_cast<long long>(kHidden),
      static_cast<long long>(kClasses), static_cast<long long>(kSamples),
      static_cast<long long>(kBatch), device.Name().c_str());
  double first_loss = 0, last_loss = 0;
  for (int epoch = 1; epoch <= kEpochs; ++epoch) {
    const auto start = std::chrono::steady_clock::now();
    double loss_sum = 0;
    index_t correct = 0;
    for (index_t begin = 0; begin + kBatch <= kSamples; begin += kBatch) {
      const TBlob xb = BatchRows(data, begin), yb = BatchRows(labels, begin);
      fc1.Forward({xb, w1, b1}, {h1});
      relu.Forward({h1}, {a1});
      fc2.Forward({a1, w2, b2}, {logits});
      cross_entropy.Forward({logits, yb}, {loss});
      loss_sum += device.Download(loss)[0];
      const std::vector<float> scores = device.Download(logits);
      for (index_t r = 0; r < kBatch; ++r) {
        const float* row = scores.data() + r * kClasses;
        const index_t predicted = std::max_element(row, row + kClasses) - row;
        correct += predicted == static_cast<index_t>(y.data<float>()[begin + r]);
      }
      cross_entropy_grad.Forward({dloss, logits, yb}, {dlogits, dlabel});
      fc2_grad.Forward({dlogits, a1, w2, b2}, {da1, dw2, db2});
      relu_grad.Forward({da1, h1, a1}, {dh1});
      // The gradient of the data is not needed: kNullOp.
      fc1_grad.Forward({dh1, xb, w1, b1}, {dx, dw1, db1},
                       {ops::kNullOp, ops::kWriteTo, ops::kWriteTo});
      for (const auto& [weight, grad] :
           {std::pair{w1, dw1}, std::pair{b1, db1}, std::pair{w2, dw2}, std::pair{b2, db2}}) {
        sgd.Forward({weight, grad}, {weight}, {ops::kWriteInplace});
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
  std::string which = "mlp", device;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--device" && i + 1 < args.size()) {
      device = args[++i];
    } else if (i == 0 && (args[i] == "mlp" || args[i] == "cnn")) {
      which = args[i];
    } else {
      throw dmlc::Error("demo takes [mlp|cnn] (default mlp) and [--device cpu|gpu]; got '" +
                        args[i] + "'");
    }
  }
  DemoDevice& chosen = ChooseDemoDevice(device);
  return which == "cnn" ? DemoCnn(chosen) : DemoMlp(chosen);
}

}  // namespace opctl
