// In the spirit of mshadow's guide/neuralnet/nnet.cu, on the CPU: a two-layer perceptron
// written with Random, dot, repmat, F<op>, Softmax, one_hot_encode, mat_choose_row_element and
// sum_rows, trained on a synthetic set of Gaussian clusters. The same network written as
// plain loops, from the same weights and data, is the reference: both must learn, and reach
// the same accuracy.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "gtest/gtest.h"
#include "mshadow/tensor.h"

using namespace mshadow;        // NOLINT(build/namespaces): written as guide code is
using namespace mshadow::expr;  // NOLINT(build/namespaces)

namespace {

// The guide defines its own elementwise ops like this.
struct sigmoid {
  MSHADOW_XINLINE static float Map(float a) { return 1.0f / (1.0f + expf(-a)); }
};

constexpr index_t kClasses = 10, kInputs = 16, kHidden = 32;
constexpr index_t kTrain = 2000, kTest = 500, kBatch = 50, kEpochs = 8;
constexpr float kLearningRate = 0.5f;

struct Dataset {
  TensorContainer<cpu, 2> data;
  TensorContainer<cpu, 1> label;
};

// Points around one random centre per class.
Dataset MakeClusters(index_t n, const Tensor<cpu, 2>& centres, Random<cpu>* rnd) {
  Dataset set{TensorContainer<cpu, 2>(Shape2(n, kInputs)), TensorContainer<cpu, 1>(Shape1(n))};
  rnd->SampleGaussian(&set.data, 0.0f, 1.0f);
  for (index_t i = 0; i < n; ++i) {
    const index_t k = i % kClasses;
    set.label[i] = static_cast<float>(k);
    set.data[i] += centres[k];
  }
  return set;
}

struct Weights {
  TensorContainer<cpu, 2> i2h{Shape2(kInputs, kHidden)}, h2o{Shape2(kHidden, kClasses)};
  TensorContainer<cpu, 1> hbias{Shape1(kHidden), 0.0f}, obias{Shape1(kClasses), 0.0f};
};

// The guide's network: sigmoid hidden layer, softmax output, plain SGD.
class NNet {
 public:
  explicit NNet(const Weights& init) : w_(init) {}

  void Forward(const Tensor<cpu, 2>& input, Tensor<cpu, 2> hidden, Tensor<cpu, 2> prob) {
    hidden = dot(input, w_.i2h);
    hidden += repmat(w_.hbias, input.size(0));
    hidden = F<sigmoid>(hidden);
    prob = dot(hidden, w_.h2o);
    prob += repmat(w_.obias, input.size(0));
    Softmax(prob, prob);
  }

  // One step on a batch; returns the batch's mean cross-entropy.
  float Train(const Tensor<cpu, 2>& input, const Tensor<cpu, 1>& label) {
    const index_t n = input.size(0);
    TensorContainer<cpu, 2> hidden(Shape2(n, kHidden)), prob(Shape2(n, kClasses));
    Forward(input, hidden, prob);
    TensorContainer<cpu, 1> picked(Shape1(n));
    picked = mat_choose_row_element(prob, label);
    float loss = 0;
    for (index_t i = 0; i < n; ++i) loss -= std::log(picked[i]);
    // Backward: the softmax gradient, then back through both layers.
    TensorContainer<cpu, 2> grad_out(prob.shape_), grad_hidden(hidden.shape_);
    grad_out = (prob - one_hot_encode(label, kClasses)) * (1.0f / n);
    grad_hidden = dot(grad_out, w_.h2o.T());
    grad_hidden = grad_hidden * hidden * (1.0f - hidden);
    w_.h2o -= kLearningRate * dot(hidden.T(), grad_out);
    w_.obias -= kLearningRate * sum_rows(grad_out);
    w_.i2h -= kLearningRate * dot(input.T(), grad_hidden);
    w_.hbias -= kLearningRate * sum_rows(grad_hidden);
    return loss / n;
  }

  float Accuracy(const Dataset& set) {
    TensorContainer<cpu, 2> hidden(Shape2(set.data.size(0), kHidden));
    TensorContainer<cpu, 2> prob(Shape2(set.data.size(0), kClasses));
    Forward(set.data, hidden, prob);
    index_t right = 0;
    for (index_t i = 0; i < set.data.size(0); ++i) {
      index_t best = 0;
      for (index_t k = 1; k < kClasses; ++k) best = prob[i][k] > prob[i][best] ? k : best;
      right += best == static_cast<index_t>(set.label[i]);
    }
    return static_cast<float>(right) / set.data.size(0);
  }

 private:
  Weights w_;
};

// The same network as plain loops over std::vector.
class LoopNet {
 public:
  explicit LoopNet(const Weights& init)
      : i2h_(Copy(init.i2h)),
        h2o_(Copy(init.h2o)),
        hbias_(Copy(init.hbias)),
        obias_(Copy(init.obias)) {}

  void Forward(const float* x, std::vector<float>* hidden, std::vector<float>* prob) const {
    for (index_t j = 0; j < kHidden; ++j) {
      float s = hbias_[j];
      for (index_t i = 0; i < kInputs; ++i) s += x[i] * i2h_[i * kHidden + j];
      (*hidden)[j] = 1.0f / (1.0f + std::exp(-s));
    }
    float largest = -INFINITY;
    for (index_t k = 0; k < kClasses; ++k) {
      float s = obias_[k];
      for (index_t j = 0; j < kHidden; ++j) s += (*hidden)[j] * h2o_[j * kClasses + k];
      (*prob)[k] = s;
      largest = std::max(largest, s);
    }
    float sum = 0;
    for (float& p : *prob) sum += (p = std::exp(p - largest));
    for (float& p : *prob) p /= sum;
  }

  void Train(const Tensor<cpu, 2>& input, const Tensor<cpu, 1>& label) {
    const index_t n = input.size(0);
    std::vector<float> g_i2h(i2h_.size(), 0), g_h2o(h2o_.size(), 0), g_hb(kHidden, 0),
        g_ob(kClasses, 0), hidden(kHidden), prob(kClasses), grad_hidden(kHidden);
    for (index_t b = 0; b < n; ++b) {
      Forward(input[b].dptr_, &hidden, &prob);
      prob[static_cast<index_t>(label[b])] -= 1.0f;
      for (float& p : prob) p /= n;
      for (index_t j = 0; j < kHidden; ++j) {
        float s = 0;
        for (index_t k = 0; k < kClasses; ++k) {
          s += prob[k] * h2o_[j * kClasses + k];
          g_h2o[j * kClasses + k] += hidden[j] * prob[k];
        }
        grad_hidden[j] = s * hidden[j] * (1.0f - hidden[j]);
        g_hb[j] += grad_hidden[j];
        for (index_t i = 0; i < kInputs; ++i) {
          g_i2h[i * kHidden + j] += input[b][i] * grad_hidden[j];
        }
      }
      for (index_t k = 0; k < kClasses; ++k) g_ob[k] += prob[k];
    }
    Step(&i2h_, g_i2h);
    Step(&h2o_, g_h2o);
    Step(&hbias_, g_hb);
    Step(&obias_, g_ob);
  }

  float Accuracy(const Dataset& set) const {
    std::vector<float> hidden(kHidden), prob(kClasses);
    index_t right = 0;
    for (index_t i = 0; i < set.data.size(0); ++i) {
      Forward(set.data[i].dptr_, &hidden, &prob);
      const index_t best = std::max_element(prob.begin(), prob.end()) - prob.begin();
      right += best == static_cast<index_t>(set.label[i]);
    }
    return static_cast<float>(right) / set.data.size(0);
  }

 private:
  // Row by row: containers may pad their rows.
  template <int dim>
  static std::vector<float> Copy(const Tensor<cpu, dim>& t) {
    const Tensor<cpu, 2> rows = t.FlatTo2D();
    std::vector<float> values;
    for (index_t y = 0; y < rows.size(0); ++y) {
      values.insert(values.end(), rows[y].dptr_, rows[y].dptr_ + rows.size(1));
    }
    return values;
  }
  static void Step(std::vector<float>* w, const std::vector<float>& g) {
    for (size_t i = 0; i < w->size(); ++i) (*w)[i] -= kLearningRate * g[i];
  }

  std::vector<float> i2h_, h2o_, hbias_, obias_;
};

TEST(GuideMlpTest, TrainsToTheAccuracyOfAPlainLoop) {
  InitTensorEngine<cpu>();
  Random<cpu> rnd(0);
  TensorContainer<cpu, 2> centres(Shape2(kClasses, kInputs));
  rnd.SampleGaussian(&centres, 0.0f, 1.0f);
  const Dataset train = MakeClusters(kTrain, centres, &rnd);
  const Dataset test = MakeClusters(kTest, centres, &rnd);
  Weights init;
  rnd.SampleGaussian(&init.i2h, 0.0f, 0.1f);
  rnd.SampleGaussian(&init.h2o, 0.0f, 0.1f);

  NNet net(init);
  LoopNet reference(init);
  const float chance = 1.0f / kClasses;
  EXPECT_LT(net.Accuracy(test), 2 * chance) << "untrained";
  float first_loss = 0, last_loss = 0;
  for (index_t epoch = 0; epoch < kEpochs; ++epoch) {
    float epoch_loss = 0;
    for (index_t begin = 0; begin < kTrain; begin += kBatch) {
      const Tensor<cpu, 2> batch = train.data.Slice(begin, begin + kBatch);
      const Tensor<cpu, 1> label(train.label.dptr_ + begin, Shape1(kBatch));
      epoch_loss += net.Train(batch, label);
      reference.Train(batch, label);
    }
    (epoch == 0 ? first_loss : last_loss) = epoch_loss;
  }
  const float accuracy = net.Accuracy(test), reference_accuracy = reference.Accuracy(test);
  std::printf("test accuracy %.3f (plain loop %.3f, chance %.3f); loss %.3f -> %.3f\n", accuracy,
              reference_accuracy, chance, first_loss, last_loss);
  EXPECT_LT(last_loss, 0.5f * first_loss);
  EXPECT_GT(accuracy, 0.85f) << "well above chance (" << chance << ")";
  EXPECT_NEAR(accuracy, reference_accuracy, 0.01f);
  ShutdownTensorEngine<cpu>();
}

}  // namespace
