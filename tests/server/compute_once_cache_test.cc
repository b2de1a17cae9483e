// The server's result cache: one computation per key and version, even under concurrent asks.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "server/compute_once_cache.h"
#include "server/gzip_body.h"

using mlprof::server::ComputeOnceCache;

namespace {

std::function<std::shared_ptr<const int>()> counting(std::atomic<int>& calls, int value) {
  return [&calls, value] {
    ++calls;
    return std::make_shared<const int>(value);
  };
}

TEST(ComputeOnceCache, ComputesOncePerKeyAndVersion) {
  ComputeOnceCache<int> cache(4);
  std::atomic<int> calls{0};
  EXPECT_EQ(*cache.get("a", "v1", counting(calls, 1)), 1);
  EXPECT_EQ(*cache.get("a", "v1", counting(calls, 2)), 1);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(*cache.get("a", "v2", counting(calls, 3)), 3);  // the files changed
  EXPECT_EQ(calls, 2);
}

TEST(ComputeOnceCache, ConcurrentCallersShareOneComputation) {
  ComputeOnceCache<int> cache(4);
  std::atomic<int> calls{0};
  auto slow = [&] {
    ++calls;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    return std::make_shared<const int>(7);
  };
  std::vector<std::thread> threads;
  std::atomic<int> sum{0};
  for (int i = 0; i < 8; ++i) threads.emplace_back([&] { sum += *cache.get("k", "v", slow); });
  for (auto& t : threads) t.join();
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(sum, 56);
}

TEST(ComputeOnceCache, FailuresReachTheCallerAndAreNotKept) {
  ComputeOnceCache<int> cache(4);
  std::atomic<int> calls{0};
  EXPECT_THROW(cache.get("k", "v", [&]() -> std::shared_ptr<const int> {
    ++calls;
    throw std::runtime_error("truncated file");
  }),
               std::runtime_error);
  EXPECT_EQ(cache.size(), 0u);
  EXPECT_EQ(*cache.get("k", "v", counting(calls, 5)), 5);
  EXPECT_EQ(calls, 2);
}

TEST(ComputeOnceCache, DropsTheLeastRecentlyUsed) {
  ComputeOnceCache<int> cache(2);
  std::atomic<int> calls{0};
  cache.get("a", "", counting(calls, 1));
  cache.get("b", "", counting(calls, 2));
  cache.get("a", "", counting(calls, 1));  // a is now the most recent
  cache.get("c", "", counting(calls, 3));  // b goes
  EXPECT_EQ(cache.size(), 2u);
  cache.get("a", "", counting(calls, 1));
  EXPECT_EQ(calls, 3);
  cache.get("b", "", counting(calls, 2));
  EXPECT_EQ(calls, 4);
}

TEST(GzipBody, AcceptsGzipUnlessRefused) {
  using mlprof::server::accepts_gzip;
  EXPECT_TRUE(accepts_gzip("gzip, deflate, br, zstd"));
  EXPECT_TRUE(accepts_gzip("br;q=1.0, gzip;q=0.8"));
  EXPECT_FALSE(accepts_gzip("br"));
  EXPECT_FALSE(accepts_gzip("gzip;q=0, br"));
  EXPECT_FALSE(accepts_gzip(""));
}

TEST(GzipBody, CompressesToAGzipStream) {
  const std::string body(100000, 'x');
  const std::string gz = mlprof::server::gzip_compress(body);
  ASSERT_GE(gz.size(), 18u);
  EXPECT_LT(gz.size(), body.size() / 50);
  EXPECT_EQ(static_cast<unsigned char>(gz[0]), 0x1f);  // gzip magic
  EXPECT_EQ(static_cast<unsigned char>(gz[1]), 0x8b);
}

}  // namespace

namespace {

TEST(ComputeOnceCache, KeepsToItsByteBudget) {
  ComputeOnceCache<std::string> cache(10, 100, [](const std::string& s) { return s.size(); });
  auto make = [](size_t n) { return [n] { return std::make_shared<const std::string>(n, 'x'); }; };
  cache.get("a", "", make(60));
  cache.get("b", "", make(30));
  EXPECT_EQ(cache.bytes(), 90u);
  cache.get("c", "", make(50));  // over budget: a (least recent) goes
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_EQ(cache.bytes(), 80u);
  cache.get("big", "", make(500));  // larger than the budget alone: kept, the others go
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_EQ(cache.bytes(), 500u);
}

}  // namespace
