#include "ops/imperative.h"

#include <cstdlib>
#include <cstring>

namespace ops {
namespace {

constexpr size_t kAlignment = 64;

std::shared_ptr<void> AlignedZeroed(size_t bytes) {
  const size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  void* ptr = std::aligned_alloc(kAlignment, rounded == 0 ? kAlignment : rounded);
  CHECK(ptr != nullptr) << "out of memory allocating " << bytes << " bytes";
  std::memset(ptr, 0, rounded);
  return std::shared_ptr<void>(ptr, std::free);
}

}  // namespace

CpuTensor::CpuTensor(const TShape& shape, int type_flag) {
  const size_t bytes = static_cast<size_t>(shape.Size()) *
                       static_cast<size_t>(mshadow::TypeFlagSize(type_flag));
  storage_ = AlignedZeroed(bytes);
  blob_ = TBlob(storage_.get(), shape, mshadow::cpu::kDevMask, type_flag);
}

std::vector<TBlob> Blobs(const std::vector<CpuTensor>& tensors) {
  std::vector<TBlob> blobs;
  for (const CpuTensor& t : tensors) blobs.push_back(t.blob());
  return blobs;
}

void* CpuTempSpace::Get(size_t bytes) {
  if (bytes > capacity_) {
    storage_ = AlignedZeroed(bytes);
    capacity_ = bytes;
  }
  return storage_.get();
}

OpContext MakeCpuContext(const NodeAttrs& attrs, bool is_train) {
  thread_local CpuTempSpace temp_space;
  OpContext ctx;
  ctx.is_train = is_train;
  if (const auto* request = attrs.op->resource_request()) {
    for (const ResourceRequest& r : (*request)(attrs)) {
      Resource resource;
      resource.type = r.type;
      resource.space = &temp_space;
      ctx.requested.push_back(resource);
    }
  }
  return ctx;
}

std::vector<CpuTensor> RunCpu(const NodeAttrs& attrs, const std::vector<TBlob>& inputs,
                              bool is_train) {
  std::vector<TShape> in_shapes, out_shapes;
  std::vector<int> in_types, out_types;
  for (const TBlob& input : inputs) {
    in_shapes.push_back(input.shape_);
    in_types.push_back(input.type_flag_);
  }
  InferShapes(attrs, &in_shapes, &out_shapes);
  InferTypes(attrs, &in_types, &out_types);
  for (size_t i = 0; i < inputs.size(); ++i) {
    CHECK(in_shapes[i] == inputs[i].shape_)
        << attrs.op->name << ": input " << i << " has shape " << inputs[i].shape_
        << " but inference requires " << in_shapes[i];
  }
  std::vector<CpuTensor> outputs;
  std::vector<TBlob> output_blobs;
  for (size_t i = 0; i < out_shapes.size(); ++i) {
    outputs.emplace_back(out_shapes[i], out_types[i]);
    output_blobs.push_back(outputs.back().blob());
  }
  Invoke<mshadow::cpu>(attrs, MakeCpuContext(attrs, is_train), inputs,
                       std::vector<OpReqType>(outputs.size(), kWriteTo), output_blobs);
  return outputs;
}

}  // namespace ops
