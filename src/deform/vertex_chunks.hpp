#pragma once
// Runs a loop over vertices in fixed chunks, on a thread pool when there is one: the chunks are
// the same whatever the thread count, so the results are the same bytes (parallel.hpp).
#include <algorithm>
#include <cstddef>

#include <wobble/parallel.hpp>

namespace wobble {

inline constexpr std::size_t kVertexChunk = 8192;  // vertices per chunk

template <typename Body>
void for_vertex_chunks(ThreadPool* pool, std::size_t count, Body&& body) {
  if (!pool) {
    for (std::size_t begin = 0; begin < count; begin += kVertexChunk) body(begin, std::min(count, begin + kVertexChunk));
    return;
  }
  pool->parallel_for(count, kVertexChunk, body);
}

}  // namespace wobble
