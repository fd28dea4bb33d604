// Many host threads use the library at once, as a framework's executor does: lookup, attribute
// parsing, inference and forward and backward invocation of every operator case
// (ops/testing/op_cases.txt), some threads on the same operator with separate buffers, while
// the library's own thread pool runs mshadow maps and reductions and another thread keeps
// changing the thread count and the streaming-store threshold. Every result must equal the one
// computed beforehand on one thread, bit for bit (results never depend on the thread count).
//
// Built with --config=tsan it is ThreadSanitizer's workload (CI's tsan stage); in the plain
// build it still checks the results.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "mshadow/parallel.h"
#include "mshadow/streaming_stores.h"
#include "mshadow/tensor.h"
#include "ops/backward.h"
#include "ops/imperative.h"
#include "ops/random_source.h"
#include "ops/testing/op_cases.h"

namespace ops {
namespace {

using testing::OpCase;

// What one case computes: its forward outputs and, when it has a gradient, its input gradients
// for output gradients of ones.
struct CaseResult {
  std::vector<std::vector<char>> bytes;
};

std::vector<char> BytesOf(const TBlob& blob) {
  const size_t n = static_cast<size_t>(blob.Size()) * mshadow::TypeFlagSize(blob.type_flag_);
  const char* data = static_cast<const char*>(blob.dptr_);
  return std::vector<char>(data, data + n);
}

// Everything a host does for one call, from the operator's name on.
CaseResult RunCase(const OpCase& c) {
  const NodeAttrs attrs = ParseAttrs(Op::Get(c.op), c.kwargs);
  const std::vector<CpuTensor> inputs = testing::MakeInputs(c, mshadow::kFloat32);
  const std::vector<TBlob> input_blobs = Blobs(inputs);
  // Operators that draw random numbers (Dropout) draw from a fixed sequence per call, so that
  // every repetition has the same expected result.
  SeededRandomSource random(1);
  const std::vector<CpuTensor> outputs = RunCpu(attrs, input_blobs, /*is_train=*/true, &random);
  CaseResult result;
  for (const CpuTensor& out : outputs) result.bytes.push_back(BytesOf(out.blob()));
  if (!attrs.op->HasAttr("FGradient")) return result;

  std::vector<CpuTensor> ones;
  for (const CpuTensor& out : outputs) {
    ones.emplace_back(out.shape(), out.type_flag());
    MSHADOW_TYPE_SWITCH(out.type_flag(), DType,
                        { std::fill_n(ones.back().data<DType>(), out.shape().Size(), DType(1)); });
  }
  const NodeAttrs backward = BackwardAttrs(attrs);
  const std::vector<TBlob> backward_inputs =
      BackwardInputs(attrs, Blobs(ones), input_blobs, Blobs(outputs));
  std::vector<CpuTensor> grads;
  for (const CpuTensor& in : inputs) grads.emplace_back(in.shape(), in.type_flag());
  Invoke<mshadow::cpu>(backward, MakeCpuContext(backward, true), backward_inputs,
                       std::vector<OpReqType>(grads.size(), kWriteTo), Blobs(grads));
  for (const CpuTensor& g : grads) result.bytes.push_back(BytesOf(g.blob()));
  return result;
}

// A map and a reduction on the library's pool, large enough to be split over threads; the
// reduction's result is exact (small whole numbers), so any interference shows.
bool PoolWorkIsRight(mshadow::Tensor<mshadow::cpu, 2, float> a,
                     mshadow::Tensor<mshadow::cpu, 2, float> b,
                     mshadow::Tensor<mshadow::cpu, 1, float> column_sums, float k) {
  using mshadow::expr::sumall_except_dim;
  a = b * k + 1.0f;
  column_sums = sumall_except_dim<1>(a);
  const float expected = static_cast<float>(a.size(0)) * (2.0f * k + 1.0f);
  for (mshadow::index_t j = 0; j < column_sums.size(0); ++j) {
    if (column_sums[j] != expected) return false;
  }
  return true;
}

TEST(ConcurrencyStressTest, HostThreadsPoolAndSettingChangesTogether) {
  const std::vector<OpCase> cases = testing::LoadOpCases("ops/testing/op_cases.txt");
  ASSERT_GT(cases.size(), 40u);
  mshadow::SetNumThreads(1);
  std::vector<CaseResult> expected;
  for (const OpCase& c : cases) expected.push_back(RunCase(c));
  mshadow::SetNumThreads(0);

  std::atomic<bool> stop{false};
  std::atomic<int> mismatches{0}, errors{0}, calls{0};
  std::vector<std::thread> threads;

  // Host threads: threads 0-3 walk the cases in different orders; threads 4-5 both run the
  // first operator with a gradient, on their own buffers.
  constexpr int kHostThreads = 6;
  constexpr int kRounds = 10;
  for (int t = 0; t < kHostThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(t);
      for (int round = 0; round < kRounds; ++round) {
        for (size_t n = 0; n < cases.size(); ++n) {
          const size_t i = t < 4 ? rng() % cases.size() : 0;
          try {
            const CaseResult got = RunCase(cases[i]);
            if (got.bytes != expected[i].bytes) {
              ++mismatches;
              ADD_FAILURE() << testing::CaseName(cases[i]) << " differs on thread " << t;
            }
          } catch (const dmlc::Error& e) {
            ++errors;
            ADD_FAILURE() << testing::CaseName(cases[i]) << ": " << e.what();
          }
          ++calls;
        }
      }
    });
  }

  // The library's own threads: maps and reductions on the pool, checked as they go.
  std::atomic<int> pool_rounds{0};
  std::thread pool_user([&] {
    mshadow::TensorContainer<mshadow::cpu, 2, float> a(mshadow::Shape2(512, 1024));
    mshadow::TensorContainer<mshadow::cpu, 2, float> b(mshadow::Shape2(512, 1024), 2.0f);
    mshadow::TensorContainer<mshadow::cpu, 1, float> sums(mshadow::Shape1(1024));
    while (!stop.load()) {
      if (!PoolWorkIsRight(a, b, sums, static_cast<float>(pool_rounds.load() % 7))) ++mismatches;
      ++pool_rounds;
    }
  });

  // Settings changed while all of the above runs.
  std::thread toggler([&] {
    int step = 0;
    while (!stop.load()) {
      mshadow::SetNumThreads(1 + step % 4);
      mshadow::SetStreamingStoreMinBytes(step % 2 ? 4096 : mshadow::kNoStreamingStores);
      ++step;
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  });

  for (int t = 0; t < kHostThreads; ++t) threads[t].join();
  stop = true;
  pool_user.join();
  toggler.join();
  mshadow::SetNumThreads(0);
  mshadow::SetStreamingStoreMinBytes(0);

  EXPECT_EQ(calls.load(), kHostThreads * kRounds * static_cast<int>(cases.size()));
  EXPECT_EQ(mismatches.load(), 0);
  EXPECT_EQ(errors.load(), 0);
  EXPECT_GT(pool_rounds.load(), 0);
}

}  // namespace
}  // namespace ops
