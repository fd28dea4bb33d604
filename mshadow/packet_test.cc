// Every packet arch the build supports, tested explicitly (not only the default): lanes,
// loads and stores, arithmetic, Sum, the alignment helpers, and MapPacketPlan against the
// scalar path on every width 1..130, on strided and misaligned views, with every saver and
// with streaming stores.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include "gtest/gtest.h"
#include "mshadow/tensor.h"

namespace mshadow {
namespace {

using packet::kAVX2;
using packet::kAVX512;
using packet::kPlain;
using packet::kSSE2;
using packet::Packet;
using packet::PacketArch;

template <typename T, PacketArch A>
struct Config {
  using DType = T;
  static constexpr PacketArch kArch = A;
};

using Configs = ::testing::Types<Config<float, kPlain>, Config<double, kPlain>
#if MSHADOW_PACKET_HAS_SSE2
                                 , Config<float, kSSE2>, Config<double, kSSE2>
#endif
#if MSHADOW_PACKET_HAS_AVX2
                                 , Config<float, kAVX2>, Config<double, kAVX2>
#endif
#if MSHADOW_PACKET_HAS_AVX512
                                 , Config<float, kAVX512>, Config<double, kAVX512>
#endif
                                 >;

template <typename C>
class PacketTest : public ::testing::Test {};
TYPED_TEST_SUITE(PacketTest, Configs);

TYPED_TEST(PacketTest, LanesLoadsStoresArithmeticAndSum) {
  using DType = typename TypeParam::DType;
  using P = Packet<DType, TypeParam::kArch>;
  constexpr index_t n = P::kSize;
  alignas(64) DType a[2 * n], b[2 * n], out[2 * n + 1];
  for (index_t i = 0; i < 2 * n; ++i) {
    a[i] = static_cast<DType>(i + 1);
    b[i] = static_cast<DType>(2 * i + 3);
  }
  const P pa = P::Load(a), pb = P::LoadUnAligned(b + 1);  // b + 1 is misaligned
  (pa + pb).Store(out);
  for (index_t i = 0; i < n; ++i) EXPECT_EQ(out[i], a[i] + b[i + 1]) << i;
  (pa - pb).StoreUnAligned(out + 1);
  for (index_t i = 0; i < n; ++i) EXPECT_EQ(out[i + 1], a[i] - b[i + 1]) << i;
  (pa * pb).Store(out);
  for (index_t i = 0; i < n; ++i) EXPECT_EQ(out[i], a[i] * b[i + 1]) << i;
  (pa / pb).Store(out);
  for (index_t i = 0; i < n; ++i) EXPECT_EQ(out[i], a[i] / b[i + 1]) << i;
  P::Fill(DType(2.5)).Store(out);
  for (index_t i = 0; i < n; ++i) EXPECT_EQ(out[i], DType(2.5));
  P assigned = pa;
  assigned = DType(-1);
  assigned.Store(out);
  for (index_t i = 0; i < n; ++i) EXPECT_EQ(out[i], DType(-1));
  EXPECT_EQ(pa.Sum(), std::accumulate(a, a + n, DType(0)));
}

TEST(PacketAlignTest, HelpersFollowTheArchAskedFor) {
  // The seed's example: 50 floats, the SSE2 loop covers 48.
  EXPECT_EQ((packet::LowerAlign<float, kSSE2>(50)), 48);
  EXPECT_EQ((packet::UpperAlign<float, kSSE2>(50)), 52);
  EXPECT_EQ((packet::LowerAlign<double, kSSE2>(50)), 50);
  EXPECT_EQ((packet::LowerAlign<float, kAVX2>(50)), 48);
  EXPECT_EQ((packet::UpperAlign<float, kAVX2>(50)), 56);
  EXPECT_EQ((packet::LowerAlign<float, kAVX512>(50)), 48);
  EXPECT_EQ((packet::UpperAlign<float, kAVX512>(50)), 64);
  EXPECT_EQ((packet::UpperAlign<double, kAVX512>(1)), 8);
  EXPECT_TRUE(packet::CheckAlign<kSSE2>(size_t{48}));
  EXPECT_FALSE(packet::CheckAlign<kSSE2>(size_t{40}));
  EXPECT_FALSE(packet::CheckAlign<kAVX2>(size_t{48}));
  EXPECT_TRUE(packet::CheckAlign<kAVX512>(size_t{128}));
  size_t pitch = 0;
  void* p = packet::AlignedMallocPitch(&pitch, 25 * sizeof(float), 7);
  EXPECT_GE(pitch, 25 * sizeof(float));
  EXPECT_TRUE(packet::CheckAlign<MSHADOW_DEFAULT_PACKET>(pitch));
  EXPECT_TRUE(packet::CheckAlign<MSHADOW_DEFAULT_PACKET>(p));
  packet::AlignedFree(p);
}

// A user functor: it has a scalar Map only.
struct cube {
  template <typename DType>
  static DType Map(DType a) { return a * a * a; }
};

TEST(PacketCheckTest, WhichExpressionsHaveAPacketForm) {
  using T = Tensor<cpu, 2, float>;
  using Sum = expr::BinaryMapExp<op::plus, T, T, float, 1>;
  using Max = expr::BinaryMapExp<op::maximum, T, T, float, 1>;
  using Cube = expr::UnaryMapExp<cube, T, float, 1>;
  EXPECT_TRUE((expr::PacketCheck<Sum, kPlain>::kPass));
  EXPECT_TRUE((expr::PacketCheck<Max, kPlain>::kPass));
  EXPECT_TRUE((expr::PacketCheck<expr::ScalarExp<double>, kPlain>::kPass));
  EXPECT_FALSE((expr::PacketCheck<Cube, kPlain>::kPass)) << "no PacketOp: element by element";
  EXPECT_FALSE((expr::PacketCheck<Tensor<cpu, 2, int32_t>, kPlain>::kPass));
  EXPECT_EQ((expr::PacketCheck<Sum, kAVX2>::kPass), MSHADOW_PACKET_HAS_AVX2 == 1);
}

// `size` elements starting on a 64-byte boundary, so that `offset` alone decides alignment.
template <typename DType>
class AlignedBuffer {
 public:
  explicit AlignedBuffer(index_t size) : storage_(size + kSlack) {
    const auto address = reinterpret_cast<std::uintptr_t>(storage_.data());
    data_ = storage_.data() + (64 - address % 64) % 64 / sizeof(DType);
  }
  DType* data() { return data_; }
  DType& operator[](index_t i) { return data_[i]; }

 private:
  static constexpr index_t kSlack = 64 / sizeof(DType);
  std::vector<DType> storage_;
  DType* data_;
};

// dst SV= b * 2 + c - b / c on a (rows, width) view with the given row stride and offset
// from a 64-byte boundary, through MapPacketPlan on the arch under test; compared with the
// same formula element by element. Elements outside the view must stay untouched. Returns
// whether MapPacketPlan wrote with streaming stores.
template <typename SV, typename DType, PacketArch Arch>
bool CheckMap(index_t rows, index_t width, index_t stride, index_t offset) {
  const index_t span = offset + rows * stride;
  AlignedBuffer<DType> b(span), c(span), dst(span), expected(span);
  for (index_t i = 0; i < span; ++i) {
    b[i] = static_cast<DType>((i % 17) - 8);
    c[i] = static_cast<DType>((i % 5) + 1);
    dst[i] = expected[i] = static_cast<DType>((i % 7) + 2);
  }
  Tensor<cpu, 2, DType> tb(b.data() + offset, Shape2(rows, width), stride, nullptr);
  Tensor<cpu, 2, DType> tc(c.data() + offset, Shape2(rows, width), stride, nullptr);
  Tensor<cpu, 2, DType> td(dst.data() + offset, Shape2(rows, width), stride, nullptr);
  expr::MapPacketPlan<SV>(td, expr::MakePacketPlan<Arch>((tb * DType(2) + tc - tb / tc).self()));
  for (index_t y = 0; y < rows; ++y) {
    for (index_t x = 0; x < width; ++x) {
      const index_t i = offset + y * stride + x;
      SV::template Save<DType>(expected[i], b[i] * DType(2) + c[i] - b[i] / c[i]);
    }
  }
  for (index_t i = 0; i < span; ++i) {
    EXPECT_EQ(dst[i], expected[i]) << "rows " << rows << " width " << width << " stride "
                                   << stride << " offset " << offset << " element " << i;
    if (dst[i] != expected[i]) break;
  }
  return expr::UsesStreamingStores<SV, Arch>(td);
}

TYPED_TEST(PacketTest, MapPacketPlanMatchesScalarOnEveryWidth) {
  using DType = typename TypeParam::DType;
  for (index_t width = 1; width <= 130; ++width) {
    CheckMap<sv::saveto, DType, TypeParam::kArch>(3, width, width, 0);
  }
}

TYPED_TEST(PacketTest, StridedAndMisalignedViews) {
  using DType = typename TypeParam::DType;
  for (const index_t width : {1, 7, 8, 9, 31, 33, 64}) {
    CheckMap<sv::saveto, DType, TypeParam::kArch>(4, width, width + 5, 1);  // padded, odd offset
    CheckMap<sv::saveto, DType, TypeParam::kArch>(2, width, 2 * width + 3, 3);
  }
}

TYPED_TEST(PacketTest, EverySaver) {
  using DType = typename TypeParam::DType;
  constexpr PacketArch kArch = TypeParam::kArch;
  CheckMap<sv::saveto, DType, kArch>(2, 37, 40, 1);
  CheckMap<sv::plusto, DType, kArch>(2, 37, 40, 1);
  CheckMap<sv::minusto, DType, kArch>(2, 37, 40, 1);
  CheckMap<sv::multo, DType, kArch>(2, 37, 40, 1);
  CheckMap<sv::divto, DType, kArch>(2, 37, 40, 1);
}

// Streaming stores (forced on by a 1-byte threshold) give the ordinary stores' results on
// every width, on padded rows, and leave the elements around the view alone. They are used
// exactly where rows start aligned and end on a packet or are long, and only for `=`.
TYPED_TEST(PacketTest, StreamingStoresWhereTheyApplyWithTheSameResults) {
  using DType = typename TypeParam::DType;
  constexpr PacketArch kArch = TypeParam::kArch;
  constexpr index_t kLanes = Packet<DType, kArch>::kSize;
  constexpr bool kSimd = kArch != kPlain;
  constexpr index_t kAlignedRow = 64 / sizeof(DType);  // a stride keeping rows aligned
  SetStreamingStoreMinBytes(1);
  for (index_t width = 1; width <= 130; ++width) {
    const index_t stride = (width + kAlignedRow - 1) / kAlignedRow * kAlignedRow;
    const bool streamed = CheckMap<sv::saveto, DType, kArch>(3, width, stride, 0);
    EXPECT_EQ(streamed, kSimd && width % kLanes == 0) << "width " << width;
  }
  const index_t long_row = 4096 / sizeof(DType) + 3;  // a scalar tail, but long enough
  const index_t long_stride = long_row + kAlignedRow - 3;
  EXPECT_EQ((CheckMap<sv::saveto, DType, kArch>(2, long_row, long_stride, 0)), kSimd);
  EXPECT_FALSE((CheckMap<sv::saveto, DType, kArch>(3, 64, 64, 1))) << "misaligned rows";
  EXPECT_FALSE((CheckMap<sv::plusto, DType, kArch>(3, 64, 64, 0))) << "+= reads dst";
  // The output counted twice (what the map moves at least) against the threshold.
  SetStreamingStoreMinBytes(2 * 3 * 64 * sizeof(DType));
  EXPECT_EQ((CheckMap<sv::saveto, DType, kArch>(3, 64, 64, 0)), kSimd) << "at the threshold";
  SetStreamingStoreMinBytes(2 * 3 * 64 * sizeof(DType) + 1);
  EXPECT_FALSE((CheckMap<sv::saveto, DType, kArch>(3, 64, 64, 0))) << "below the threshold";
  SetStreamingStoreMinBytes(0);
}

TEST(StreamingStoresTest, ThresholdDefaultsToTheLastLevelCache) {
  SetStreamingStoreMinBytes(0);
  const index_t by_default = StreamingStoreMinBytes();
  EXPECT_GE(by_default, index_t{1} << 20);  // no machine this runs on has a smaller LLC
  SetStreamingStoreMinBytes(12345);
  EXPECT_EQ(StreamingStoreMinBytes(), 12345);
  SetStreamingStoreMinBytes(-1);
  EXPECT_EQ(StreamingStoreMinBytes(), by_default);
}

TEST(StreamingStoresTest, TileThresholdIsTheCacheUpTo32MiBOrWhatWasSet) {
  SetStreamingStoreMinBytes(0);
  EXPECT_EQ(TileStreamingStoreMinBytes(), std::min(StreamingStoreMinBytes(), index_t{32} << 20));
  SetStreamingStoreMinBytes(index_t{1} << 30);  // set: kernels of both kinds take it
  EXPECT_EQ(TileStreamingStoreMinBytes(), index_t{1} << 30);
  SetStreamingStoreMinBytes(kNoStreamingStores);
  EXPECT_EQ(TileStreamingStoreMinBytes(), kNoStreamingStores);
  SetStreamingStoreMinBytes(0);
  EXPECT_LE(TileStreamingStoreMinBytes(), index_t{32} << 20);
}

TEST(PacketEngineTest, AssignmentTakesThePacketPathWithTheSameResults) {
  // Through the ordinary engine (MapExp picks MapPacketPlan): odd width, padded rows.
  TensorContainer<cpu, 2, float> b(Shape2(5, 19)), c(Shape2(5, 19)), a(Shape2(5, 19));
  for (index_t y = 0; y < 5; ++y) {
    for (index_t x = 0; x < 19; ++x) {
      b[y][x] = static_cast<float>(y * 19 + x);
      c[y][x] = static_cast<float>(x + 1);
    }
  }
  a = b * 2.0f + c;
  a += c;
  for (index_t y = 0; y < 5; ++y) {
    for (index_t x = 0; x < 19; ++x) ASSERT_EQ(a[y][x], b[y][x] * 2.0f + 2.0f * c[y][x]);
  }
}

TEST(PacketThreadsTest, ResultsAreTheSameForAnyThreadCount) {
  // Large enough to be split among threads; widths that leave scalar tails in every row.
  for (const auto shape : {Shape2(1, 1000003), Shape2(3, 300007), Shape2(700, 1001), Shape2(300, 1024)}) {
    TensorContainer<cpu, 2, float> b(shape), out(shape), reference(shape);
    for (index_t y = 0; y < shape[0]; ++y) {
      for (index_t x = 0; x < shape[1]; ++x) b[y][x] = static_cast<float>((y * 7 + x) % 401) * 0.05f - 10;
    }
    SetNumThreads(1);
    SetStreamingStoreMinBytes(kNoStreamingStores);
    reference = expr::F<op::sigmoid>(b) * 2.0f + expr::F<op::exp>(b * 0.1f);
    // With ordinary stores, then with streaming stores wherever the rows allow them.
    for (const index_t streaming_min_bytes : {kNoStreamingStores, index_t{1}}) {
      SetStreamingStoreMinBytes(streaming_min_bytes);
      for (const int threads : {1, 2, 3, 4, 7}) {
        SetNumThreads(threads);
        out = 0.0f;
        out = expr::F<op::sigmoid>(b) * 2.0f + expr::F<op::exp>(b * 0.1f);
        for (index_t y = 0; y < shape[0]; ++y) {
          for (index_t x = 0; x < shape[1]; ++x) {
            ASSERT_EQ(out[y][x], reference[y][x])
                << threads << " threads, streaming from " << streaming_min_bytes << " bytes, "
                << shape << " at (" << y << "," << x << ")";
          }
        }
      }
    }
    SetStreamingStoreMinBytes(0);
    SetNumThreads(0);
  }
  EXPECT_GE(GetNumThreads(), 1);
}

// An operator without a packet form: expressions using it take MapPlan, one element at a time.
struct scalar_only {
  template <typename DType>
  MSHADOW_XINLINE static DType Map(DType a) {
    return a * DType(3) + DType(1);
  }
};

TEST(ScalarPathThreadsTest, SpansOfRowsAndOfOneRowGiveTheSameResults) {
  static_assert(!expr::PacketCheck<
                expr::UnaryMapExp<scalar_only, Tensor<cpu, 2, float>, float, expr::type::kMapper>,
                MSHADOW_DEFAULT_PACKET>::kPass);
  // One long row (a flat tensor), a few rows, many short rows; += shows an element written
  // twice or not at all.
  for (const auto shape : {Shape2(1, 1000003), Shape2(3, 300007), Shape2(700, 1001)}) {
    TensorContainer<cpu, 2, float> b(shape), out(shape);
    for (index_t y = 0; y < shape[0]; ++y) {
      for (index_t x = 0; x < shape[1]; ++x) b[y][x] = static_cast<float>((y * 7 + x) % 401);
    }
    for (const int threads : {1, 2, 3, 7}) {
      SetNumThreads(threads);
      out = 1.0f;
      out += expr::F<scalar_only>(b);
      for (index_t y = 0; y < shape[0]; ++y) {
        for (index_t x = 0; x < shape[1]; ++x) {
          ASSERT_EQ(out[y][x], b[y][x] * 3 + 2)
              << threads << " threads, " << shape << " at (" << y << "," << x << ")";
        }
      }
    }
  }
  SetNumThreads(0);
}

}  // namespace
}  // namespace mshadow
