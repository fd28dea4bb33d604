#include "tools/opctl/demo_util.h"

namespace opctl {

Layer::Layer(const std::string& op, const std::map<std::string, std::string>& kwargs,
             bool is_train)
    : attrs_(ops::ParseAttrs(ops::Op::Get(op), kwargs)),
      ctx_(ops::MakeCpuContext(attrs_, is_train)) {}

void Layer::Forward(const std::vector<ops::TBlob>& in, const std::vector<ops::TBlob>& out,
                    std::vector<ops::OpReqType> req) const {
  if (req.empty()) req.assign(out.size(), ops::kWriteTo);
  ops::Invoke<mshadow::cpu>(attrs_, ctx_, in, req, out);
}

Layer Layer::Backward() const {
  const auto* gradient = attrs_.op->GetAttr<ops::FGradient>("FGradient");
  CHECK(gradient != nullptr) << attrs_.op->name << " is not differentiable";
  return Layer(gradient->backward_op, {attrs_.dict.begin(), attrs_.dict.end()});
}

void FillUniform(const ops::CpuTensor& t, float bound, std::mt19937* rng) {
  std::uniform_real_distribution<float> dist(-bound, bound);
  for (mshadow::index_t i = 0; i < t.shape().Size(); ++i) t.data<float>()[i] = dist(*rng);
}

ops::TBlob Rows(const ops::CpuTensor& t, mshadow::index_t begin, mshadow::index_t rows) {
  ops::TBlob blob = t.blob();
  const mshadow::index_t row = t.shape().Size() / t.shape()[0];
  blob.dptr_ = t.data<float>() + begin * row;
  blob.shape_[0] = rows;
  return blob;
}

}  // namespace opctl
