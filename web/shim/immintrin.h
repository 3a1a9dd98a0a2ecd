// WebAssembly stand-in for <immintrin.h>: the x86 intrinsics of the native kernels
// (src/deform/*.cpp) through SIMDe (Debian's libsimde-dev), which implements AVX2 and FMA with
// WebAssembly SIMD; SSE comes from Emscripten itself (-msse4.1). __builtin_cpu_supports is 0
// here, so the kernels choose their portable paths at run time; SIMDe lets the AVX2 ones compile.
#pragma once
#define SIMDE_ENABLE_NATIVE_ALIASES
#include <simde/x86/avx2.h>
#include <simde/x86/fma.h>

#define __builtin_cpu_supports(feature) 0
