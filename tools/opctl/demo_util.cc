#include "tools/opctl/demo_util.h"

#include <algorithm>
#include <deque>

#ifdef MSHADOW_OPS_WITH_CUDA
#include "tools/opctl/gpu.h"
#endif

namespace opctl {
namespace {

class Cpu : public DemoDevice {
 public:
  std::string Name() const override { return "CPU"; }
  ops::TBlob Upload(const ops::TBlob& host) override {
    tensors_.emplace_back(host.shape_, host.type_flag_);
    const size_t bytes = static_cast<size_t>(host.shape_.Size()) *
                         static_cast<size_t>(mshadow::TypeFlagSize(host.type_flag_));
    std::copy_n(static_cast<const char*>(host.dptr_), bytes,
                static_cast<char*>(tensors_.back().blob().dptr_));
    return tensors_.back().blob();
  }
  std::vector<float> Download(const ops::TBlob& blob) const override {
    const float* data = blob.dptr<float>();
    return std::vector<float>(data, data + blob.shape_.Size());
  }
  Call Bind(const ops::NodeAttrs& attrs, bool is_train) const override {
    return [attrs, ctx = ops::MakeCpuContext(attrs, is_train)](
               const std::vector<ops::TBlob>& in, const std::vector<ops::OpReqType>& req,
               const std::vector<ops::TBlob>& out) {
      ops::Invoke<mshadow::cpu>(attrs, ctx, in, req, out);
    };
  }

 private:
  std::deque<ops::CpuTensor> tensors_;  // a deque: the blobs handed out stay valid
};

}  // namespace

DemoDevice& CpuDevice() {
  static Cpu* cpu = new Cpu();
  return *cpu;
}

DemoDevice& ChooseDemoDevice(const std::string& requested) {
  if (requested != "" && requested != "cpu" && requested != "gpu") {
    throw dmlc::Error("--device " + requested + " is not a device; valid: cpu, gpu");
  }
  if (requested == "cpu") return CpuDevice();
#ifdef MSHADOW_OPS_WITH_CUDA
  if (requested == "gpu" || GpuPresent()) return GpuDevice();
#else
  if (requested == "gpu") {
    throw dmlc::Error(
        "--device gpu needs opctl built with CUDA: ./tools/bazel build --config=cuda "
        "//tools:opctl");
  }
#endif
  return CpuDevice();
}

Layer::Layer(const std::string& op, const std::map<std::string, std::string>& kwargs, bool is_train,
             const DemoDevice& device)
    : attrs_(ops::ParseAttrs(ops::Op::Get(op), kwargs)),
      is_train_(is_train),
      device_(&device),
      call_(device.Bind(attrs_, is_train)) {}

void Layer::Forward(const std::vector<ops::TBlob>& in, const std::vector<ops::TBlob>& out,
                    std::vector<ops::OpReqType> req) const {
  if (req.empty()) req.assign(out.size(), ops::kWriteTo);
  call_(in, req, out);
}

Layer Layer::Backward() const {
  const auto* gradient = attrs_.op->GetAttr<ops::FGradient>("FGradient");
  CHECK(gradient != nullptr) << attrs_.op->name << " is not differentiable";
  return Layer(gradient->backward_op, {attrs_.dict.begin(), attrs_.dict.end()}, is_train_,
               *device_);
}

void FillUniform(const ops::CpuTensor& t, float bound, std::mt19937* rng) {
  std::uniform_real_distribution<float> dist(-bound, bound);
  for (mshadow::index_t i = 0; i < t.shape().Size(); ++i) t.data<float>()[i] = dist(*rng);
}

ops::TBlob Rows(const ops::TBlob& t, mshadow::index_t begin, mshadow::index_t rows) {
  ops::TBlob blob = t;
  const mshadow::index_t row = t.shape_.Size() / t.shape_[0];
  blob.dptr_ = static_cast<float*>(t.dptr_) + begin * row;
  blob.shape_[0] = rows;
  return blob;
}

}  // namespace opctl
