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

}  // namespace ops
