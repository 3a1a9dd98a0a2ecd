#pragma once
// FNV-1a, 64 bits: the hash of raw bytes (mesh fingerprints, keys made of coordinates' bits).
#include <cstddef>
#include <cstdint>

namespace wobble {

inline constexpr std::uint64_t kFnvOffset = 1469598103934665603ull;
inline constexpr std::uint64_t kFnvPrime = 1099511628211ull;

// Folds `bytes` bytes at `data` into `hash` (start from kFnvOffset).
inline void fnv1a(std::uint64_t& hash, const void* data, std::size_t bytes) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < bytes; ++i) {
    hash ^= p[i];
    hash *= kFnvPrime;
  }
}

}  // namespace wobble
