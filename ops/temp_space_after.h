// ops/temp_space_after.h: an operator's temporary space split in two: arrays of the
// operator's own at its start, and the rest lent on to the kernels or operators it calls
// (moments' compositions, BatchNormWithReLU's masked gradient before BatchNorm's scratch).
#ifndef OPS_TEMP_SPACE_AFTER_H_
#define OPS_TEMP_SPACE_AFTER_H_

#include <cstddef>

#include "dmlc/logging.h"
#include "ops/op_types.h"

namespace ops {

// Temporary space past `offset` bytes of another's, for the operators a composition calls
// while its own arrays occupy the first `offset` bytes. The parent is asked once, for both
// parts, so that no later request moves the caller's arrays; a nested request beyond the
// `reserve` bytes is a dmlc::Error.
class TempSpaceAfter : public TempSpace {
 public:
  TempSpaceAfter(TempSpace* parent, size_t offset, size_t reserve)
      : offset_(offset),
        capacity_(reserve),
        base_(static_cast<char*>(parent->Get(offset + reserve))) {}
  char* own() const { return base_; }
  void* Get(size_t bytes) override {
    CHECK(bytes <= capacity_) << "a nested operator asked for " << bytes
                              << " bytes of temporary space; " << capacity_ << " were reserved";
    return base_ + offset_;
  }

 private:
  size_t offset_, capacity_;
  char* base_;
};

}  // namespace ops

#endif  // OPS_TEMP_SPACE_AFTER_H_
