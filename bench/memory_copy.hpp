#pragma once
// The bandwidth baseline of the kernel benchmarks: a streaming copy of `bytes`, counted as bytes
// read plus written (2 x bytes a copy), the convention of the kernels' byte counters.
#include <cstdint>
#include <cstring>
#include <vector>

#include <benchmark/benchmark.h>

inline void copy_memory(benchmark::State& state, std::size_t bytes) {
  std::vector<char> source(bytes, 1), target(bytes, 0);
  for (auto _ : state) {
    std::memcpy(target.data(), source.data(), bytes);
    benchmark::DoNotOptimize(target.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * 2 * bytes));
}
