#include <wobble/parallel.hpp>

#include <wobble/error.hpp>

#include <algorithm>
#include "core/fail.hpp"

namespace wobble {

std::size_t chunk_grain(std::size_t count, std::size_t max_grain, std::size_t multiple) {
  constexpr std::size_t kTargetChunks = 8, kMinGrain = 256;
  multiple = std::max<std::size_t>(multiple, 1);
  const std::size_t wanted =
      std::clamp((count + kTargetChunks - 1) / kTargetChunks, kMinGrain, std::max(max_grain, kMinGrain));
  return (wanted + multiple - 1) / multiple * multiple;
}

ThreadPool::ThreadPool(std::size_t threads) {
  if (threads > kMaxThreads) fail_plain("{} worker threads requested: at most {}", threads, kMaxThreads);
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  for (std::size_t i = 1; i < threads; ++i) workers_.emplace_back([this] { worker_loop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& worker : workers_) worker.join();
}

void ThreadPool::parallel_for(std::size_t count, std::size_t grain,
                              const std::function<void(std::size_t, std::size_t)>& body) {
  if (count == 0) return;
  grain = std::max<std::size_t>(grain, 1);
  if (workers_.empty() || count <= grain) {
    for (std::size_t begin = 0; begin < count; begin += grain) body(begin, std::min(count, begin + grain));
    return;
  }
  {
    std::lock_guard lock(mutex_);
    body_ = &body;
    count_ = count;
    grain_ = grain;
    next_chunk_ = 0;
    chunks_ = (count + grain - 1) / grain;
    finished_chunks_ = 0;
    ++generation_;
  }
  wake_.notify_all();
  run_chunks();
  std::unique_lock lock(mutex_);
  done_.wait(lock, [this] { return finished_chunks_ == chunks_; });
  body_ = nullptr;
}

void ThreadPool::run_chunks() {
  for (;;) {
    std::size_t chunk;
    const std::function<void(std::size_t, std::size_t)>* body;
    {
      std::lock_guard lock(mutex_);
      if (!body_ || next_chunk_ >= chunks_) return;
      chunk = next_chunk_++;
      body = body_;
    }
    const std::size_t begin = chunk * grain_;
    (*body)(begin, std::min(count_, begin + grain_));
    bool all_done;
    {
      std::lock_guard lock(mutex_);
      all_done = ++finished_chunks_ == chunks_;
    }
    if (all_done) done_.notify_all();
  }
}

void ThreadPool::worker_loop() {
  std::size_t seen = 0;
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
    }
    run_chunks();
  }
}

}  // namespace wobble
