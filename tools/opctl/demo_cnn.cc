// opctl demo cnn: a small convolutional network trained end to end through registered
// operators only, as a host framework would run it: Convolution, BatchNorm, Activation,
// Pooling, Dropout, FullyConnected and SoftmaxOutput forward; their backward operators found
// through FGradient and fed as FGradient lays out (ops::BackwardInputs); sgd_mom_update. The
// images are generated here: four classes of noisy stripes (horizontal, vertical and the two
// diagonals) with random period and phase. After training, a held-out set is classified in
// inference mode (BatchNorm's moving statistics, Dropout off). On the GPU when one is present
// (opctl built with CUDA), as the MLP demo: every tensor lives on the device, and the host
// reads back only each batch's probabilities.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <deque>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "ops/backward.h"
#include "ops/imperative.h"
#include "ops/infer.h"
#include "tools/opctl/commands.h"
#include "tools/opctl/demo_util.h"

namespace opctl {
namespace {

using mshadow::index_t;
using mshadow::TShape;
using ops::CpuTensor;
using ops::TBlob;

constexpr index_t kSize = 16, kClasses = 4;
constexpr index_t kTrain = 2048, kTest = 512, kBatch = 32;
constexpr int kEpochs = 6;
constexpr float kLearningRate = 0.02f, kMomentum = 0.9f;

// Noisy stripes: class 0 horizontal, 1 vertical, 2 and 3 diagonal.
void MakeImages(index_t count, const CpuTensor& x, const CpuTensor& y, std::mt19937* rng) {
  std::uniform_real_distribution<float> period(3.0f, 7.0f), phase(0.0f, 6.3f);
  std::normal_distribution<float> noise(0.0f, 1.4f);
  for (index_t n = 0; n < count; ++n) {
    const index_t label = static_cast<index_t>((*rng)() % kClasses);
    y.data<float>()[n] = static_cast<float>(label);
    const float omega = 6.2831853f / period(*rng), shift = phase(*rng);
    for (index_t h = 0; h < kSize; ++h) {
      for (index_t w = 0; w < kSize; ++w) {
        const float along[kClasses] = {static_cast<float>(h), static_cast<float>(w),
                                       static_cast<float>(h + w), static_cast<float>(h - w)};
        x.data<float>()[(n * kSize + h) * kSize + w] =
            std::sin(omega * along[label] + shift) + noise(*rng);
      }
    }
  }
}

// How a stage's inputs after the data are made.
enum class Init { kFanIn, kZeros, kOnes, kLabel };

// One layer of a sequential network: the operator in training and in inference, its
// parameters (the inputs after the data), their gradients and momenta, and its outputs.
// Tensors live on the stage's device.
struct Stage {
  Stage(const std::string& op, const std::map<std::string, std::string>& kwargs,
        std::vector<Init> stage_inits, const DemoDevice& device)
      : train(op, kwargs, true, device),
        eval(op, kwargs, false, device),
        backward(train.Backward()),
        inits(std::move(stage_inits)) {}

  Layer train, eval, backward;
  std::vector<Init> inits;
  std::vector<TBlob> params, grads, momenta;  // by input index - 1 (a label: empty param)
  std::vector<TBlob> outputs, eval_outputs;   // every output, hidden ones too
  // The next stage's data gradient for the first; hidden outputs' stay zero.
  std::vector<TBlob> out_grads;
  TBlob data_grad;
};

class Network {
 public:
  Network(DemoDevice& device, TShape batch_shape)
      : device_(device), shape_(std::move(batch_shape)) {}

  // Appends `op`; its parameters' shapes come from shape inference.
  void Add(const std::string& op, const std::map<std::string, std::string>& kwargs,
           std::vector<Init> inits, std::mt19937* rng) {
    Stage& s = stages_.emplace_back(op, kwargs, std::move(inits), device_);
    std::vector<TShape> in(1 + s.inits.size()), out;
    in[0] = shape_;
    ops::InferShapes(s.train.attrs(), &in, &out);
    for (size_t i = 0; i < s.inits.size(); ++i) {
      s.grads.push_back(Zeros(in[i + 1], mshadow::kFloat32));  // a label's is never written
      if (s.inits[i] == Init::kLabel) {
        s.params.emplace_back();
        s.momenta.emplace_back();
        continue;
      }
      const CpuTensor p(in[i + 1], mshadow::kFloat32);  // zeros
      if (s.inits[i] == Init::kFanIn) {
        FillUniform(p, std::sqrt(3.0f / static_cast<float>(in[i + 1].Size() / in[i + 1][0])), rng);
      } else if (s.inits[i] == Init::kOnes) {
        std::fill_n(p.data<float>(), p.shape().Size(), 1.0f);
      }
      s.params.push_back(device_.Upload(p.blob()));
      s.momenta.push_back(Zeros(in[i + 1], mshadow::kFloat32));
    }
    std::vector<int> in_types(in.size(), mshadow::kFloat32), out_types;
    ops::InferTypes(s.train.attrs(), &in_types, &out_types);  // Dropout's mask is uint8
    for (size_t i = 0; i < out.size(); ++i) {
      s.outputs.push_back(Zeros(out[i], out_types[i]));
      s.eval_outputs.push_back(Zeros(out[i], out_types[i]));
      s.out_grads.push_back(Zeros(out[i], out_types[i]));
    }
    s.data_grad = Zeros(shape_, mshadow::kFloat32);
    if (stages_.size() > 1) stages_[stages_.size() - 2].out_grads[0] = s.data_grad;
    shape_ = out[0];
  }

  // The last stage's first output for a batch (labels feed the stages that take them).
  TBlob Forward(const TBlob& x, const TBlob& y, bool is_train) {
    TBlob data = x;
    for (Stage& s : stages_) {
      const std::vector<TBlob>& outputs = is_train ? s.outputs : s.eval_outputs;
      (is_train ? s.train : s.eval).Forward(Inputs(s, data, y), outputs);
      data = outputs[0];
    }
    return data;
  }

  // Gradients of every parameter from the last forward call (the loss layer makes its own).
  void Backward(const TBlob& x, const TBlob& y) {
    for (size_t k = stages_.size(); k-- > 0;) {
      Stage& s = stages_[k];
      const TBlob data = k == 0 ? x : stages_[k - 1].outputs[0];
      // Written into the previous stage's output gradient (the same tensor).
      std::vector<TBlob> grads = {s.data_grad};
      std::vector<ops::OpReqType> req = {k == 0 ? ops::kNullOp : ops::kWriteTo};
      for (size_t i = 0; i < s.inits.size(); ++i) {
        grads.push_back(s.grads[i]);
        req.push_back(s.inits[i] == Init::kLabel ? ops::kNullOp : ops::kWriteTo);
      }
      s.backward.Forward(
          ops::BackwardInputs(s.train.attrs(), s.out_grads, Inputs(s, data, y), s.outputs), grads,
          req);
    }
  }

  // One momentum SGD step on every trained parameter (BatchNorm's moving statistics are
  // updated by its backward operator instead).
  void Update(const Layer& sgd) {
    for (Stage& s : stages_) {
      for (size_t i = 0; i < s.inits.size(); ++i) {
        if (s.inits[i] == Init::kLabel || IsMovingStatistic(s, i)) continue;
        sgd.Forward({s.params[i], s.grads[i], s.momenta[i]}, {s.params[i]}, {ops::kWriteInplace});
      }
    }
  }

 private:
  static bool IsMovingStatistic(const Stage& s, size_t i) {
    return s.train.attrs().op->name == "BatchNorm" && i >= 2;
  }

  static std::vector<TBlob> Inputs(const Stage& s, const TBlob& data, const TBlob& y) {
    std::vector<TBlob> inputs = {data};
    for (size_t i = 0; i < s.inits.size(); ++i) {
      inputs.push_back(s.inits[i] == Init::kLabel ? y : s.params[i]);
    }
    return inputs;
  }

  TBlob Zeros(const TShape& shape, int type_flag) {
    return device_.Upload(CpuTensor(shape, type_flag).blob());
  }

  DemoDevice& device_;
  TShape shape_;
  std::deque<Stage> stages_;
};

// Mean cross entropy and correct predictions of softmax outputs (batch, classes), given on the
// host, against the labels (the host's).
std::pair<double, index_t> Score(const std::vector<float>& prob, const float* labels) {
  double loss = 0;
  index_t correct = 0;
  for (index_t n = 0; n < kBatch; ++n) {
    const float* row = prob.data() + n * kClasses;
    const index_t label = static_cast<index_t>(labels[n]);
    loss -= std::log(std::max(row[label], 1e-12f));
    correct += std::max_element(row, row + kClasses) - row == label;
  }
  return {loss, correct};
}

}  // namespace

int DemoCnn(DemoDevice& device) {
  std::mt19937 rng(2026);
  CpuTensor x(TShape{kTrain, 1, kSize, kSize}, mshadow::kFloat32), y(TShape{kTrain}, mshadow::kFloat32);
  CpuTensor tx(TShape{kTest, 1, kSize, kSize}, mshadow::kFloat32), ty(TShape{kTest}, mshadow::kFloat32);
  MakeImages(kTrain, x, y, &rng);
  MakeImages(kTest, tx, ty, &rng);

  const TBlob x_on = device.Upload(x.blob()), y_on = device.Upload(y.blob());
  const TBlob tx_on = device.Upload(tx.blob()), ty_on = device.Upload(ty.blob());

  using I = Init;
  Network net(device, TShape{kBatch, 1, kSize, kSize});
  const std::vector<Init> conv = {I::kFanIn, I::kZeros}, bn = {I::kOnes, I::kZeros, I::kZeros, I::kOnes};
  const std::map<std::string, std::string> pool = {{"kernel", "(2,2)"}, {"stride", "(2,2)"}};
  net.Add("Convolution", {{"kernel", "(3,3)"}, {"pad", "(1,1)"}, {"num_filter", "8"}}, conv, &rng);
  net.Add("BatchNorm", {{"fix_gamma", "False"}}, bn, &rng);
  net.Add("Activation", {{"act_type", "relu"}}, {}, &rng);
  net.Add("Pooling", pool, {}, &rng);
  net.Add("Convolution", {{"kernel", "(3,3)"}, {"pad", "(1,1)"}, {"num_filter", "16"}}, conv, &rng);
  net.Add("BatchNorm", {{"fix_gamma", "False"}}, bn, &rng);
  net.Add("Activation", {{"act_type", "relu"}}, {}, &rng);
  net.Add("Pooling", pool, {}, &rng);
  net.Add("Dropout", {{"p", "0.25"}}, {}, &rng);
  net.Add("FullyConnected", {{"num_hidden", std::to_string(kClasses)}}, conv, &rng);
  net.Add("SoftmaxOutput", {{"normalization", "batch"}}, {I::kLabel}, &rng);
  const Layer sgd("sgd_mom_update",
                  {{"lr", std::to_string(kLearningRate)},
                   {"momentum", std::to_string(kMomentum)},
                   {"wd", "0.0001"}},
                  true, device);

  std::printf(
      "training Convolution-BatchNorm-relu-Pooling x2, Dropout, FullyConnected, "
      "SoftmaxOutput on %lld %lldx%lld images (%lld classes), batch %lld, on the %s\n",
      static_cast<long long>(kTrain), static_cast<long long>(kSize), static_cast<long long>(kSize),
      static_cast<long long>(kClasses), static_cast<long long>(kBatch), device.Name().c_str());
  double first_loss = 0, last_loss = 0;
  for (int epoch = 1; epoch <= kEpochs; ++epoch) {
    const auto start = std::chrono::steady_clock::now();
    double loss = 0;
    index_t correct = 0;
    for (index_t begin = 0; begin + kBatch <= kTrain; begin += kBatch) {
      const TBlob xb = Rows(x_on, begin, kBatch), yb = Rows(y_on, begin, kBatch);
      const auto [batch_loss, batch_correct] =
          Score(device.Download(net.Forward(xb, yb, true)), y.data<float>() + begin);
      loss += batch_loss;
      correct += batch_correct;
      net.Backward(xb, yb);
      net.Update(sgd);
    }
    const std::chrono::duration<double> seconds = std::chrono::steady_clock::now() - start;
    const double mean_loss = loss / kTrain;
    if (epoch == 1) first_loss = mean_loss;
    last_loss = mean_loss;
    std::printf("epoch %d  loss=%.4f  accuracy=%.3f  %.0f images/s\n", epoch, mean_loss,
                static_cast<double>(correct) / kTrain, kTrain / seconds.count());
  }
  index_t test_correct = 0;
  for (index_t begin = 0; begin + kBatch <= kTest; begin += kBatch) {
    const TBlob xb = Rows(tx_on, begin, kBatch), yb = Rows(ty_on, begin, kBatch);
    test_correct +=
        Score(device.Download(net.Forward(xb, yb, false)), ty.data<float>() + begin).second;
  }
  std::printf("loss fell from %.4f to %.4f; held-out accuracy (inference mode) %.3f\n",
              first_loss, last_loss, static_cast<double>(test_correct) / kTest);
  if (!(last_loss < 0.5 * first_loss)) {
    std::fprintf(stderr, "opctl demo cnn: the loss did not fall below half its first value\n");
    return 1;
  }
  return 0;
}

}  // namespace opctl
