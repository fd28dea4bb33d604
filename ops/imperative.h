// ops/imperative.h: eager execution on the CPU for hosts that want operators to allocate
// their outputs, for tests and for opctl.
//
//   ops::CpuTensor x(TShape{4, 16}, mshadow::kFloat32);       // zero-filled, owned
//   std::vector<ops::CpuTensor> y = ops::RunCpu(
//       ops::ParseAttrs(ops::Op::Get("relu"), {}), {x.blob()});
#ifndef OPS_IMPERATIVE_H_
#define OPS_IMPERATIVE_H_

#include <cstddef>
#include <memory>
#include <vector>

#include "ops/infer.h"
#include "ops/invoke.h"
#include "ops/op_types.h"

namespace ops {

// Owned, 64-byte aligned CPU memory for one tensor, zero-filled, with its TBlob view.
// Copies share the memory.
class CpuTensor {
 public:
  CpuTensor() = default;
  CpuTensor(const TShape& shape, int type_flag);

  const TBlob& blob() const { return blob_; }
  const TShape& shape() const { return blob_.shape_; }
  int type_flag() const { return blob_.type_flag_; }
  template <typename DType>
  DType* data() const {
    return blob_.dptr<DType>();
  }

 private:
  std::shared_ptr<void> storage_;
  TBlob blob_;
};

// The views of owned tensors, for Invoke.
std::vector<TBlob> Blobs(const std::vector<CpuTensor>& tensors);

// Temporary space that grows to the largest request; one per thread.
class CpuTempSpace : public TempSpace {
 public:
  void* Get(size_t bytes) override;

 private:
  std::shared_ptr<void> storage_;
  size_t capacity_ = 0;
};

// An OpContext on the CPU with the resources `attrs`' operator requests, backed by this
// thread's CpuTempSpace and by `random` (null: the process-wide DefaultRandomSource()).
OpContext MakeCpuContext(const NodeAttrs& attrs, bool is_train = false,
                         RandomSource* random = nullptr);

// Infers output shapes and types from the inputs, allocates the outputs, runs the operator.
std::vector<CpuTensor> RunCpu(const NodeAttrs& attrs, const std::vector<TBlob>& inputs,
                              bool is_train = false, RandomSource* random = nullptr);

}  // namespace ops

#endif  // OPS_IMPERATIVE_H_
