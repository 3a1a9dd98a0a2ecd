#pragma once
// Linear blend skinning's loop over vertices: SIMD variants (lbs_kernels.cpp, compiled once per
// instruction set) and the scalar reference (lbs.cpp), chosen through src/simd/isa.hpp.
#include <cstddef>

#include <wobble/lbs.hpp>

#include "simd/isa.hpp"

namespace wobble::lbs_kernels {

struct Table {
  // Vertices [begin, end) of a job that passed validate().
  void (*run)(const LbsJob& job, std::size_t begin, std::size_t end);
};
WOBBLE_SIMD_TABLES

}  // namespace wobble::lbs_kernels
