#pragma once
// The instruction sets wobble's kernels are built for, which one runs, and the dispatch tables
// that pick a kernel's variant. Compiled once (no instruction-set flags); the kernels themselves
// are written on src/simd/simd.hpp and compiled once per instruction set (cmake/simd.cmake).
//
// A kernel family declares its table in its header:
//   namespace wobble::lbs_kernels {
//   struct Table { void (*run)(const LbsJob&, std::size_t, std::size_t); };
//   WOBBLE_SIMD_TABLES   // avx2::table, sse2::table, ..., reference; table_for(Isa); table()
//   }
// defines `extern const Table table = {...};` in its kernel file (once per instruction set), and
// in one ordinary source file its scalar reference loops, `extern const Table reference = {...};`
// and WOBBLE_SIMD_DEFINE_TABLE_FOR.
#include <span>
#include <string_view>
#include <vector>

namespace wobble::simd {

// In order of preference within an architecture.
enum class Isa : unsigned char {
  portable,  // SIMDe without native intrinsics: any processor (and WebAssembly SIMD in the web build)
  sse2,      // x86-64 baseline (every x86-64 processor)
  avx2,      // x86-64 with AVX2 and FMA
  neon,      // ARM64 (Advanced SIMD is part of the architecture)
  scalar,    // no SIMD layer: each kernel family's straightforward reference loops (tests, benchmarks)
};

std::string_view isa_name(Isa isa);

// The instruction sets this build has kernels for, best first (scalar, always there, not included).
std::span<const Isa> compiled_isas();
// Whether this processor runs code built for isa.
bool cpu_supports(Isa isa);
// The compiled instruction sets this processor runs, best first (what tests loop over).
std::vector<Isa> runnable_isas();

// The instruction set every kernel runs with: the best runnable one, chosen once per process,
// or the one named by the environment variable WOBBLE_SIMD (portable, sse2, avx2, neon, scalar),
// which must be runnable or scalar (otherwise wobble::Error naming the variable and the choices).
Isa active_isa();
// Tests and benchmarks: makes isa (runnable or scalar, else wobble::Error) the active one. Not to
// be called while kernels run on other threads.
void set_active_isa(Isa isa);

// For table_for(): wobble::Error saying isa has no kernels in this build.
[[noreturn]] void fail_not_compiled(Isa isa);

}  // namespace wobble::simd

// X(isa) for each instruction set compiled on this architecture (must match cmake/simd.cmake).
#if defined(__x86_64__) && !defined(__EMSCRIPTEN__)
#define WOBBLE_SIMD_FOR_EACH_ISA(X) X(avx2) X(sse2) X(portable)
#elif defined(__aarch64__)
#define WOBBLE_SIMD_FOR_EACH_ISA(X) X(neon) X(portable)
#else
#define WOBBLE_SIMD_FOR_EACH_ISA(X) X(portable)
#endif

// Inside a kernel family's namespace, after its `struct Table`.
#define WOBBLE_SIMD_DECLARE_TABLE_(isa) \
  namespace isa {                       \
  extern const Table table;             \
  }
#define WOBBLE_SIMD_TABLES                                         \
  WOBBLE_SIMD_FOR_EACH_ISA(WOBBLE_SIMD_DECLARE_TABLE_)             \
  /* The straightforward scalar loops (Isa::scalar). */            \
  extern const Table reference;                                    \
  /* The variant built for isa (which this processor must run). */ \
  const Table& table_for(::wobble::simd::Isa isa);                 \
  /* The variant of the active instruction set. */                 \
  inline const Table& table() { return table_for(::wobble::simd::active_isa()); }

// In one ordinary source file, inside the same namespace.
#define WOBBLE_SIMD_TABLE_CASE_(isa) \
  case ::wobble::simd::Isa::isa:     \
    return isa::table;
#define WOBBLE_SIMD_DEFINE_TABLE_FOR                      \
  const Table& table_for(::wobble::simd::Isa isa) {       \
    switch (isa) {                                        \
      WOBBLE_SIMD_FOR_EACH_ISA(WOBBLE_SIMD_TABLE_CASE_)   \
      case ::wobble::simd::Isa::scalar: return reference; \
      default: break;                                     \
    }                                                     \
    ::wobble::simd::fail_not_compiled(isa);               \
  }
