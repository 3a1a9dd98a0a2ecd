// Delta Mush's sweeps as a wavefront over chunks of rows (delta_mush_kernels.hpp): on one thread,
// and pipelined over several, each thread a group of consecutive sweeps.
#include <algorithm>
#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include <wobble/parallel.hpp>

#include "deform/delta_mush_kernels.hpp"

namespace wobble::mush {

namespace {

// Sweeps [first, last] (1-based: sweep k reads a where k is odd and writes b, and the other way
// round) as a wavefront: sweep k runs one chunk behind sweep k - 1. `ready(c)` waits until chunk
// c may be swept by `first`; `swept(c)` says that `last` has finished chunk c.
template <typename Ready, typename Swept>
void wavefront(const SweepRows& rows, float* a, float* b, int first, int last, Ready&& ready, Swept&& swept) {
  const std::size_t vertex_count = rows.vertex_count(), chunk = rows.chunk;
  const std::size_t chunks = (vertex_count + chunk - 1) / chunk, depth = std::size_t(last - first);
  const Table& kernels = table();
  for (std::size_t t = 0; t < chunks + depth; ++t) {
    for (int k = first; k <= last; ++k) {  // in order: sweep k reads what sweep k - 1 just wrote
      const std::size_t behind = std::size_t(k - first);
      if (t < behind || t - behind >= chunks) continue;
      const std::size_t c = t - behind, begin = c * chunk, end = std::min(vertex_count, begin + chunk);
      if (k == first) ready(c);
      kernels.sweep(rows, k % 2 ? a : b, k % 2 ? b : a, begin, end);
      if (k == last) swept(c);
    }
  }
}

}  // namespace

void smooth_wavefront(const SweepRows& rows, float* a, float* b, int iterations) {
  wavefront(
      rows, a, b, 1, iterations, [](std::size_t) {}, [](std::size_t) {});
}

// Group g sweeps chunk c of its first sweep once group g - 1 has finished chunk c + 1 of its last
// (chunk c's rows read no further than the chunks beside it: chunks are at least the index
// bandwidth). Then every write lands where no sweep still has to read what it replaces, as in the
// one-thread wavefront: group g - 1's sweeps run ahead of chunk c + 1, group g's behind chunk c.
// Each (sweep, chunk) computes what it computes on one thread, from the same rows: the same bytes.
// Groups are claimed in order, and a group waits only on the one before it, so a pool whose
// threads are busy elsewhere runs the groups one after another.
void smooth_wavefront(const SweepRows& rows, float* a, float* b, int iterations, ThreadPool& pool) {
  const std::size_t groups = std::min<std::size_t>(pool.thread_count(), std::size_t(std::max(iterations, 0)));
  if (groups <= 1) return smooth_wavefront(rows, a, b, iterations);
  const std::size_t chunks = (rows.vertex_count() + rows.chunk - 1) / rows.chunk;
  const auto finished = std::make_unique<std::atomic<std::size_t>[]>(groups);  // chunks of each group's last sweep
  for (std::size_t g = 0; g < groups; ++g) finished[g].store(0, std::memory_order_relaxed);
  pool.parallel_for(groups, 1, [&](std::size_t begin, std::size_t end) {
    for (std::size_t g = begin; g < end; ++g) {
      const int first = 1 + int(g * std::size_t(iterations) / groups),
                last = int((g + 1) * std::size_t(iterations) / groups);
      auto ready = [&](std::size_t c) {
        if (g == 0) return;
        const std::size_t needed = std::min(chunks, c + 2);
        while (finished[g - 1].load(std::memory_order_acquire) < needed) std::this_thread::yield();
      };
      auto swept = [&](std::size_t c) { finished[g].store(c + 1, std::memory_order_release); };
      wavefront(rows, a, b, first, last, ready, swept);
    }
  });
}

}  // namespace wobble::mush
