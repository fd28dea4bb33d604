#include "mshadow/streaming_stores.h"

#include <algorithm>
#include <atomic>
#include <fstream>
#include <string>

namespace mshadow {
namespace {

constexpr index_t kFallbackLastLevelCacheBytes = index_t{32} << 20;

// The most TileStreamingStoreMinBytes() takes by default (mshadow/streaming_stores.h).
constexpr index_t kMaxDefaultTileMinBytes = index_t{32} << 20;

// The size of one instance of the highest-level cache, as Linux describes it in sysfs
// (e.g. "32768K"). sysconf's figure is no substitute: on AMD it sums the L3 of all the
// chip's core complexes, while a thread only ever fills its own.
index_t LastLevelCacheBytes() {
  static const index_t bytes = [] {
    int best_level = 0;
    index_t best_bytes = kFallbackLastLevelCacheBytes;
    for (int index = 0;; ++index) {
      const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index);
      std::ifstream level_file(dir + "/level"), size_file(dir + "/size");
      int level = 0;
      index_t kib = 0;
      char unit = 0;
      if (!(level_file >> level) || !(size_file >> kib >> unit)) break;
      if (unit == 'K' && level > best_level) {
        best_level = level;
        best_bytes = kib << 10;
      }
    }
    return best_bytes;
  }();
  return bytes;
}

index_t DefaultTileMinBytes() { return std::min(LastLevelCacheBytes(), kMaxDefaultTileMinBytes); }

}  // namespace

void SetStreamingStoreMinBytes(index_t bytes) {
  detail::streaming_store_min_bytes.store(bytes > 0 ? bytes : LastLevelCacheBytes());
  detail::tile_streaming_store_min_bytes.store(bytes > 0 ? bytes : DefaultTileMinBytes());
}

namespace detail {

index_t ResolveDefaultStreamingStoreMinBytes() {
  index_t unset = 0;
  // A concurrent SetStreamingStoreMinBytes wins over the default.
  streaming_store_min_bytes.compare_exchange_strong(unset, LastLevelCacheBytes());
  return streaming_store_min_bytes.load();
}

index_t ResolveDefaultTileStreamingStoreMinBytes() {
  index_t unset = 0;
  tile_streaming_store_min_bytes.compare_exchange_strong(unset, DefaultTileMinBytes());
  return tile_streaming_store_min_bytes.load();
}

}  // namespace detail
}  // namespace mshadow
