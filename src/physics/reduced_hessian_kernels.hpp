#pragma once
// The thin products of the reduced Hessian's matrix-free product (reduced_hessian.cpp) on the SIMD
// layer: a wide single-precision matrix A (q x n, column-major, q a multiple of 4: q = 4 handles)
// times three vectors, A read once. Variants per instruction set (reduced_hessian_kernels.cpp),
// the scalar reference in reduced_hessian.cpp.
#include <cstddef>

#include "simd/isa.hpp"

namespace wobble::physics::hessian_kernels {

struct Table {
  // Y = Z^T A: Y (3 x n, column-major: Y[3 r + d]), Z (q x 3, column-major: Z[d q + i]).
  void (*transposed_product)(const float* A, std::size_t q, std::size_t n, const float* Z, float* Y);
  // out += A W^T: out (q x 3, column-major), W (3 x n, column-major: W[3 r + d]).
  void (*add_product)(const float* A, std::size_t q, std::size_t n, const float* W, float* out);
};
WOBBLE_SIMD_TABLES

}  // namespace wobble::physics::hessian_kernels
