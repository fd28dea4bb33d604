#include "ops/strided_loop.h"

#include "dmlc/logging.h"

namespace ops {

std::vector<index_t> BroadcastStrides(const TShape& shape, const TShape& out_shape) {
  const index_t ndim = out_shape.ndim();
  const index_t offset = ndim - shape.ndim();
  CHECK_GE(offset, 0) << "cannot broadcast " << shape << " to " << out_shape;
  std::vector<index_t> strides(ndim, 0);
  index_t stride = 1;
  for (index_t d = shape.ndim() - 1; d >= 0; --d) {
    CHECK(shape[d] == out_shape[d + offset] || shape[d] == 1)
        << "cannot broadcast " << shape << " to " << out_shape;
    strides[d + offset] = shape[d] == 1 ? 0 : stride;
    stride *= shape[d];
  }
  return strides;
}

}  // namespace ops
