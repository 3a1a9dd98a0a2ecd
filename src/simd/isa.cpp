#include "simd/isa.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <string>

#include <wobble/error.hpp>

namespace wobble::simd {

namespace {

#define WOBBLE_SIMD_LIST_ENTRY_(isa) Isa::isa,
constexpr Isa kCompiled[] = {WOBBLE_SIMD_FOR_EACH_ISA(WOBBLE_SIMD_LIST_ENTRY_)};
#undef WOBBLE_SIMD_LIST_ENTRY_

std::string runnable_names() {
  std::string names;
  for (Isa isa : runnable_isas()) names += std::string(isa_name(isa)) + ", ";
  return names + "scalar";
}

bool selectable(Isa isa) {
  const std::vector<Isa> runnable = runnable_isas();
  return isa == Isa::scalar || std::find(runnable.begin(), runnable.end(), isa) != runnable.end();
}

Isa initial_isa() {
  const char* requested = std::getenv("WOBBLE_SIMD");
  if (!requested || !*requested) return runnable_isas().front();
  for (Isa isa : {Isa::portable, Isa::sse2, Isa::avx2, Isa::neon, Isa::scalar}) {
    if (isa_name(isa) == requested && selectable(isa)) return isa;
  }
  throw Error("WOBBLE_SIMD=" + std::string(requested) + ": not an instruction set this build and processor run (" +
              runnable_names() + ")");
}

std::atomic<Isa>& active() {
  static std::atomic<Isa> isa{initial_isa()};
  return isa;
}

}  // namespace

std::string_view isa_name(Isa isa) {
  switch (isa) {
    case Isa::portable: return "portable";
    case Isa::sse2: return "sse2";
    case Isa::avx2: return "avx2";
    case Isa::neon: return "neon";
    case Isa::scalar: return "scalar";
  }
  return "unknown";
}

std::span<const Isa> compiled_isas() { return kCompiled; }

bool cpu_supports(Isa isa) {
  switch (isa) {
    case Isa::portable:
    case Isa::scalar: return true;
#if defined(__x86_64__) && !defined(__EMSCRIPTEN__)
    case Isa::sse2: return true;
    case Isa::avx2: {
      // libgcc's check includes the operating system's support for the 256-bit registers.
      static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
      return has;
    }
#endif
#if defined(__aarch64__)
    case Isa::neon: return true;
#endif
    default: return false;
  }
}

std::vector<Isa> runnable_isas() {
  std::vector<Isa> isas;
  for (Isa isa : compiled_isas()) {
    if (cpu_supports(isa)) isas.push_back(isa);
  }
  return isas;
}

Isa active_isa() { return active().load(std::memory_order_relaxed); }

void set_active_isa(Isa isa) {
  if (!selectable(isa)) {
    throw Error("simd: " + std::string(isa_name(isa)) + " is not an instruction set this build and processor run (" +
                runnable_names() + ")");
  }
  active().store(isa, std::memory_order_relaxed);
}

void fail_not_compiled(Isa isa) { throw Error("simd: this build has no " + std::string(isa_name(isa)) + " kernels"); }

}  // namespace wobble::simd
