#include "ops/kernel_util.h"

namespace ops {

std::vector<index_t> RowMajorStrides(const TShape& shape) {
  std::vector<index_t> strides(shape.ndim());
  index_t stride = 1;
  for (index_t i = shape.ndim() - 1; i >= 0; --i) {
    strides[i] = stride;
    stride *= shape[i];
  }
  return strides;
}

TBlob ReshapedBlob(const TBlob& blob, const TShape& shape) {
  CHECK_EQ(blob.Size(), shape.Size()) << "ReshapedBlob: " << blob.shape_ << " has " << blob.Size()
                                      << " elements, " << shape << " " << shape.Size();
  return TBlob(blob.dptr_, shape, blob.dev_mask_, blob.type_flag_);
}

}  // namespace ops
