#pragma once
// The .wfield evaluator's hot loops (field_layers.cpp) on the SIMD layer: one single-precision
// product Y = X Wt (+ a bias on the first rows), all row-major with row strides, so that the
// linear layers and each attention head's two products (q k^T and a V, on column blocks of
// wider rows) share it; the activations with their slopes and attention's softmax, with the
// derivative rows of the forward mode. Variants per instruction set (field_kernels.cpp); the reference (Isa::scalar) in
// field_layers.cpp is Eigen's product and Eigen's vectorised exp and erf, what the evaluator
// used before these kernels.
#include <cstddef>

#include "simd/isa.hpp"

namespace wobble::fields::field_kernels {

struct Product {
  const float* X;  // rows x in, row stride ldx
  std::size_t ldx;
  const float* Wt;  // in x out, row stride ldw
  std::size_t ldw;
  float* Y;  // rows x out, row stride ldy (must not overlap X or Wt)
  std::size_t ldy;
  std::size_t rows, in, out;
  const float* bias = nullptr;  // out values added to rows [0, biased_rows); null: none
  std::size_t biased_rows = 0;
};

struct Table {
  void (*product)(const Product& p);
  // In place over n values: v = f(v), and the slope f'(v) (at the old v) into slope[0, n).
  void (*elu)(float* v, float* slope, std::size_t n);   // v > 0 ? v : e^v - 1
  void (*gelu)(float* v, float* slope, std::size_t n);  // v Phi(v), Phi the normal distribution (exact, not tanh's)
  // Softmax of each of the first n rows of s (row stride ld, `width` columns, in place); the
  // parts - 1 blocks of n derivative rows below them become a (ds - a . ds).
  void (*softmax)(float* s, std::size_t ld, std::size_t n, std::size_t width, int parts);
};
WOBBLE_SIMD_TABLES

}  // namespace wobble::fields::field_kernels
