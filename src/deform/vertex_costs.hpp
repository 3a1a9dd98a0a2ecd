#pragma once
// One thread's cost of a vertex for each deformer, in nanoseconds: what the thread rule
// (pool_worth_using, include/wobble/parallel.hpp) weighs a frame's work by. Measured by
// bench_threads at 100,000 vertices (docs/benchmarks.md "The thread rule"); kept in one table so
// that a new measurement is written in one place.
namespace wobble::deform::vertex_cost_ns {

inline constexpr double kLbs = 6.9;
inline constexpr double kDqs = 30.7;
inline constexpr double kDynamicSkinning = 16.5;
inline constexpr double kDelayedLbs = 8.9;
inline constexpr double kDeltaMush = 48.0;
inline constexpr double kDirectDeltaMush = 117.0;

}  // namespace wobble::deform::vertex_cost_ns
