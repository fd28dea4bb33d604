#include "ops/imperative.h"

#include <cstring>

#include "mshadow/host_memory.h"

namespace ops {
namespace {

constexpr size_t kAlignment = 64;

std::shared_ptr<void> AlignedZeroed(size_t bytes, const mshadow::AllocationPurpose& what) {
  void* ptr = mshadow::AllocHost(bytes, kAlignment, what);
  std::memset(ptr, 0, bytes);
  return std::shared_ptr<void>(ptr, mshadow::FreeHost);
}

}  // namespace

CpuTensor::CpuTensor(const TShape& shape, int type_flag) {
  const auto what = [&shape, type_flag] {
    return "a " + TypeText(type_flag) + " tensor of shape " + ShapeText(shape);
  };
  for (int i = 0; i < shape.ndim(); ++i) {
    if (shape[i] < 0) throw dmlc::Error("cannot allocate " + what() + ": negative extent");
  }
  const size_t bytes = mshadow::BytesFor(shape.Size(), mshadow::TypeFlagSize(type_flag), what);
  storage_ = AlignedZeroed(bytes, what);
  blob_ = TBlob(storage_.get(), shape, mshadow::cpu::kDevMask, type_flag);
}

std::vector<TBlob> Blobs(const std::vector<CpuTensor>& tensors) {
  std::vector<TBlob> blobs;
  for (const CpuTensor& t : tensors) blobs.push_back(t.blob());
  return blobs;
}

void* CpuTempSpace::Get(size_t bytes) {
  if (bytes > capacity_) {
    storage_ = AlignedZeroed(bytes, [] { return std::string("temporary space"); });
    capacity_ = bytes;
  }
  return storage_.get();
}

OpContext MakeCpuContext(const NodeAttrs& attrs, bool is_train, RandomSource* random) {
  thread_local CpuTempSpace temp_space;
  OpContext ctx;
  ctx.is_train = is_train;
  ctx.requested = RequestedResources(attrs, &temp_space, random);
  return ctx;
}

std::vector<CpuTensor> RunCpu(const NodeAttrs& attrs, const std::vector<TBlob>& inputs,
                              bool is_train, RandomSource* random) {
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
  Invoke<mshadow::cpu>(attrs, MakeCpuContext(attrs, is_train, random), inputs,
                       std::vector<OpReqType>(outputs.size(), kWriteTo), output_blobs);
  return outputs;
}

}  // namespace ops
