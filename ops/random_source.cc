#include "ops/random_source.h"

namespace ops {

PhiloxRange SeededRandomSource::Take(uint64_t blocks) {
  std::lock_guard<std::mutex> lock(mutex_);
  const PhiloxRange range{seed_, next_};
  next_ += blocks;
  return range;
}

void SeededRandomSource::Reset(uint64_t seed) {
  std::lock_guard<std::mutex> lock(mutex_);
  seed_ = seed;
  next_ = 0;
}

namespace {

SeededRandomSource& GlobalSource() {
  static SeededRandomSource* source = new SeededRandomSource(0);  // never destroyed
  return *source;
}

}  // namespace

RandomSource* DefaultRandomSource() { return &GlobalSource(); }

void SetRandomSeed(uint64_t seed) { GlobalSource().Reset(seed); }

}  // namespace ops
