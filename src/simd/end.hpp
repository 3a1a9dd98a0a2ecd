// Ends the instruction-set region that simd/simd.hpp began; included by the per-instruction-set
// wrappers that cmake/simd.cmake generates, after the kernel file.
#if defined(WOBBLE_SIMD_ISA_AVX2)
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#endif
