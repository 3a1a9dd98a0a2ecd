#pragma once
// A benchmark run on the best instruction set, or on the scalar reference (Isa::scalar), with the
// active one restored after it; the label ends with the instruction set's name.
#include <string>

#include <benchmark/benchmark.h>

#include "simd/isa.hpp"

struct IsaScope {
  wobble::simd::Isa saved = wobble::simd::active_isa();
  IsaScope(benchmark::State& state, bool scalar, const std::string& label = "") {
    wobble::simd::set_active_isa(scalar ? wobble::simd::Isa::scalar : wobble::simd::runnable_isas().front());
    state.SetLabel(label + std::string(wobble::simd::isa_name(wobble::simd::active_isa())));
  }
  ~IsaScope() { wobble::simd::set_active_isa(saved); }
};
