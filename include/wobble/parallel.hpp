#pragma once
// A small fixed-size thread pool for data-parallel loops. Work is cut into the same chunks
// whatever the thread count, and every chunk writes its own outputs, so results are identical
// bytes for any number of threads.
#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace wobble {

// A chunk size for `count` items that depends on count alone (so chunks, and results, are the
// same for any thread count): about count / 8, so that a mesh of a few thousand vertices still
// gives every thread work, but at least 256 items (a chunk must outweigh handing it to a thread)
// and at most max_grain; a multiple of `multiple` (kernels whose chunks start on a lane group).
std::size_t chunk_grain(std::size_t count, std::size_t max_grain, std::size_t multiple = 8);

class ThreadPool;

// The thread rule (issue 36): `pool` where a frame's work of `items` at `nanoseconds_per_item`
// (the one-thread cost the caller measured) is worth splitting, else null (the caller's thread
// alone). Handing chunks to a sleeping thread costs tens of microseconds on a shared VM, so work
// under kWorthSplittingNanoseconds runs on one thread and is never slower than one thread; the
// chunks, and so the results, are the same either way.
inline constexpr double kWorthSplittingNanoseconds = 500'000;
inline ThreadPool* pool_worth_using(ThreadPool* pool, std::size_t items, double nanoseconds_per_item) {
  return static_cast<double>(items) * nanoseconds_per_item >= kWorthSplittingNanoseconds ? pool : nullptr;
}

class ThreadPool {
 public:
  // More threads than any machine wobble runs on has cores; a larger count is an error (it once
  // made the pool start four billion threads and hang).
  static constexpr std::size_t kMaxThreads = 1024;

  // threads == 0: one per hardware thread. 1 runs everything on the caller's thread. Throws
  // Error for more than kMaxThreads.
  explicit ThreadPool(std::size_t threads = 0);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  std::size_t thread_count() const { return workers_.size() + 1; }
  // Calls body(begin, end) on chunks of [0, count) of at most `grain` items; blocks until done.
  void parallel_for(std::size_t count, std::size_t grain, const std::function<void(std::size_t, std::size_t)>& body);

 private:
  void worker_loop();
  void run_chunks();

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  const std::function<void(std::size_t, std::size_t)>* body_ = nullptr;
  std::size_t count_ = 0, grain_ = 1, next_chunk_ = 0, chunks_ = 0, finished_chunks_ = 0;
  std::size_t generation_ = 0;
  bool stopping_ = false;
};

// pool->parallel_for, or the same chunks on the caller's thread when there is no pool (null):
// callers need no branch of their own. Allocates nothing (the pool gets a reference to body).
template <typename Body>
void parallel_for(ThreadPool* pool, std::size_t count, std::size_t grain, Body&& body) {
  if (pool) return pool->parallel_for(count, grain, std::ref(body));
  grain = std::max<std::size_t>(grain, 1);
  for (std::size_t begin = 0; begin < count; begin += grain) body(begin, std::min(count, begin + grain));
}

// parallel_for over chunks of chunk_grain(count, max_grain): what the deformers' per-vertex
// loops use.
template <typename Body>
void parallel_chunks(ThreadPool* pool, std::size_t count, std::size_t max_grain, Body&& body) {
  parallel_for(pool, count, chunk_grain(count, max_grain), std::forward<Body>(body));
}

}  // namespace wobble
