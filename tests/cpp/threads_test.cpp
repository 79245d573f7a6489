// parallel_for and the kernels that use it: every index is visited once, errors come back to
// the caller, the count is checked, and the GEMM and attention give the same bits with one
// thread and with several (threads.hpp promises identical results, so equality is exact).
#include "poslab/base/threads.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "poslab/base/errors.hpp"
#include "poslab/base/random.hpp"
#include "poslab/fast/fast.hpp"
#include "poslab/fast/gemm.hpp"

// Named, so that a unity build (cmake/TestBuild.cmake) keeps its helpers apart from
// another file's of the same name.
namespace threads_test {
namespace {

using poslab::fast::Op;

// Sets the thread count for one test and puts 1 back after it.
class WithThreads {
 public:
  explicit WithThreads(std::size_t n) { poslab::set_thread_count(n); }
  ~WithThreads() { poslab::set_thread_count(1); }
};

// At least 3 threads when the machine allows, so chunks of unequal size occur.
std::size_t several() { return std::min<std::size_t>(poslab::max_thread_count(), 3); }

std::vector<float> random_values(std::size_t n, std::uint64_t seed) {
  poslab::Rng rng(seed);
  std::vector<float> x(n);
  for (float& v : x) v = static_cast<float>(rng.normal());
  return x;
}

TEST(Threads, EveryIndexIsVisitedOnceInGrainAlignedChunks) {
  const WithThreads threads(several());
  for (const std::size_t n : {0u, 1u, 7u, 64u, 65u, 1000u}) {
    for (const std::size_t grain : {1u, 8u, 64u}) {
      std::vector<std::atomic<int>> visits(n);
      std::atomic<bool> misaligned{false};
      poslab::parallel_for(n, grain, [&](std::size_t begin, std::size_t end) {
        if (begin % grain != 0 || begin >= end) misaligned = true;
        for (std::size_t i = begin; i < end; ++i) ++visits[i];
      });
      EXPECT_FALSE(misaligned) << "n " << n << " grain " << grain;
      for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(visits[i], 1) << "index " << i;
    }
  }
}

TEST(Threads, NestedCallsRunSeriallyInsideTheirChunk) {
  const WithThreads threads(several());
  std::atomic<int> inner_calls{0};
  poslab::parallel_for(4, 1, [&](std::size_t, std::size_t) {
    poslab::parallel_for(100, 1, [&](std::size_t begin, std::size_t end) {
      EXPECT_EQ(begin, 0u);
      EXPECT_EQ(end, 100u);
      ++inner_calls;
    });
  });
  EXPECT_GE(inner_calls, 1);
}

TEST(Threads, AChunksExceptionReachesTheCallerAfterAllFinish) {
  const WithThreads threads(several());
  std::atomic<int> finished{0};
  EXPECT_THROW(poslab::parallel_for(300, 1,
                                    [&](std::size_t begin, std::size_t end) {
                                      if (begin <= 299 && 299 < end) {
                                        throw std::runtime_error("last chunk fails");
                                      }
                                      ++finished;
                                    }),
               std::runtime_error);
  // The pool is usable again after the failure.
  std::atomic<std::size_t> sum{0};
  poslab::parallel_for(10, 1, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) sum += i;
  });
  EXPECT_EQ(sum, 45u);
}

TEST(Threads, CountOutsideOneToTheMostIsRefusedNamingThreads) {
  try {
    poslab::set_thread_count(0);
    FAIL() << "0 threads accepted";
  } catch (const poslab::Error& e) {
    EXPECT_EQ(e.field(), "threads");
  }
  EXPECT_THROW(poslab::set_thread_count(poslab::max_thread_count() + 1), poslab::Error);
  EXPECT_EQ(poslab::thread_count(), 1u);
}

// The pool's profile: one record per batch with its chunks; each chunk's time is at least what
// it slept, the slowest bounds every chunk and the batch bounds the slowest; a serial call and a
// reset leave nothing.
TEST(Threads, PoolProfileRecordsEachBatchAndItsChunks) {
  if (poslab::max_thread_count() < 2) GTEST_SKIP() << "one core";
  using std::chrono::milliseconds;
  const auto sleep_by_chunk = [](std::size_t begin, std::size_t) {
    std::this_thread::sleep_for(milliseconds(begin == 0 ? 2 : 20));
  };
  poslab::reset_pool_profile();
  poslab::parallel_for(2, 1, sleep_by_chunk);  // one thread: serial, not the pool
  EXPECT_EQ(poslab::pool_profile().batches, 0u);
  {
    const WithThreads threads(2);
    poslab::parallel_for(2, 1, sleep_by_chunk);
  }
  const poslab::PoolProfile p = poslab::pool_profile();
  EXPECT_EQ(p.batches, 1u);
  EXPECT_EQ(p.chunks, 2u);
  EXPECT_GE(p.caller_work_s, 0.002);
  EXPECT_GE(p.worker_work_s, 0.020);
  EXPECT_GE(p.slowest_s, std::max(p.caller_work_s, p.worker_work_s));
  EXPECT_GE(p.batch_s, p.slowest_s);
  poslab::reset_pool_profile();
  const poslab::PoolProfile none = poslab::pool_profile();
  EXPECT_EQ(none.batches, 0u);
  EXPECT_EQ(none.batch_s, 0.0);
  EXPECT_EQ(none.worker_work_s, 0.0);
}

// C = op(A)·op(B) with one thread and with several, for the packed path, the in-place B of a
// few rows, the dot-product path of A·Bᵀ and an accumulating product with partial slices.
TEST(Threads, GemmGivesTheSameBitsWithSeveralThreads) {
  if (poslab::max_thread_count() < 2) GTEST_SKIP() << "one core";
  struct Case {
    std::size_t M, N, K;
    Op op_a, op_b;
    bool accumulate;
  };
  const Case cases[] = {{200, 1000, 300, Op::kNone, Op::kNone, false},
                        {8, 3000, 768, Op::kNone, Op::kNone, false},
                        {16, 5000, 200, Op::kNone, Op::kTranspose, false},
                        {300, 777, 129, Op::kTranspose, Op::kTranspose, true}};
  for (const Case& c : cases) {
    const std::vector<float> a = random_values(c.M * c.K, 1), b = random_values(c.K * c.N, 2);
    const std::vector<float> c0 = random_values(c.M * c.N, 3);
    const std::size_t lda = c.op_a == Op::kNone ? c.K : c.M;
    const std::size_t ldb = c.op_b == Op::kNone ? c.N : c.K;
    std::vector<float> one = c0, many = c0;
    poslab::fast::gemm(c.M, c.N, c.K, a.data(), lda, c.op_a, b.data(), ldb, c.op_b, one.data(), c.N,
                       c.accumulate);
    {
      const WithThreads threads(several());
      poslab::fast::gemm(c.M, c.N, c.K, a.data(), lda, c.op_a, b.data(), ldb, c.op_b, many.data(),
                         c.N, c.accumulate);
    }
    EXPECT_EQ(one, many) << "M " << c.M << " N " << c.N << " K " << c.K;
  }
}

TEST(Threads, AttentionGivesTheSameBitsWithSeveralThreads) {
  if (poslab::max_thread_count() < 2) GTEST_SKIP() << "one core";
  const std::size_t H = 5, L = 96, d = 32;
  poslab::TensorF q({H, L, d}), k({H, L, d}), v({H, L, d});
  q.data = random_values(H * L * d, 4);
  k.data = random_values(H * L * d, 5);
  v.data = random_values(H * L * d, 6);
  poslab::AttentionOptions options;
  options.mask = poslab::Mask{poslab::MaskKind::kCausal, 0};
  options.return_weights = true;
  const poslab::AttentionResult one = poslab::fast::attention(q, k, v, options);
  const WithThreads threads(several());
  const poslab::AttentionResult many = poslab::fast::attention(q, k, v, options);
  EXPECT_EQ(one.output.data, many.output.data);
  EXPECT_EQ(one.weights.data, many.weights.data);
}

}  // namespace
}  // namespace threads_test
