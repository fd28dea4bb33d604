// ops/random_source.h: the library's random numbers for operators that request them
// (ResourceRequest::kRandom, e.g. Dropout): one process-wide Philox sequence, its blocks
// handed out in order, reseeded with SetRandomSeed (as MXNet's mx.random.seed).
//
//   ops::SetRandomSeed(42);   // the same calls now give the same masks, on any thread count
//
// A host that wants its own streams (one per device, per graph, ...) passes its own
// RandomSource to RequestedResources instead.
#ifndef OPS_RANDOM_SOURCE_H_
#define OPS_RANDOM_SOURCE_H_

#include <cstdint>
#include <mutex>

#include "ops/op_types.h"

namespace ops {

// A Philox sequence under one seed; Take and Reset are thread-safe.
class SeededRandomSource : public RandomSource {
 public:
  explicit SeededRandomSource(uint64_t seed = 0) : seed_(seed) {}
  PhiloxRange Take(uint64_t blocks) override;
  // Restarts the sequence under `seed`.
  void Reset(uint64_t seed);

 private:
  std::mutex mutex_;
  uint64_t seed_;
  uint64_t next_ = 0;
};

// The process-wide source RequestedResources gives operators by default.
RandomSource* DefaultRandomSource();

// Reseeds the process-wide source (the next calls restart its sequence).
void SetRandomSeed(uint64_t seed);

}  // namespace ops

#endif  // OPS_RANDOM_SOURCE_H_
