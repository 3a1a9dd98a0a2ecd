// The oscillation filter of Dynamic Skinning as an exact second-order recursion, and the
// direct sum it replaces (kept as the tests' reference).
#include <cmath>
#include <numbers>

#include <wobble/dynamic_skinning.hpp>

namespace wobble {

OscillationCoefficients OscillationCoefficients::from(double frequency_hz, double damping_s, double amplitude_s,
                                                      double dt) {
  OscillationCoefficients c;
  if (!(damping_s > 0) || amplitude_s == 0) return c;  // no oscillation at all
  const double r = std::exp(-dt / damping_s);
  const double w = 2 * std::numbers::pi * frequency_hz * dt;
  c.a1 = 2 * r * std::cos(w);
  c.a2 = r * r;
  c.b = amplitude_s * r * std::sin(w);
  return c;
}

void OscillationFilter::reset(const Vec3d& omega) {
  last_input = omega;
  last_step.setZero();
  y1.setZero();
  y2.setZero();
}

Vec3d OscillationFilter::push(const OscillationCoefficients& c, const Vec3d& omega) {
  const Vec3d y = next_oscillation(c);
  y2 = y1;
  y1 = y;
  last_step = omega - last_input;
  last_input = omega;
  return y;
}

Vec3d oscillation_direct_sum(std::span<const Vec3d> history, const Vec3d& before, double frequency_hz, double damping_s,
                             double amplitude_s, double drag_s, double dt) {
  if (history.empty()) return Vec3d::Zero();
  const std::size_t n = history.size() - 1;
  Vec3d f = drag_s * history[n];
  if (!(damping_s > 0)) return f;
  for (std::size_t k = 0; k <= n; ++k) {
    const double time = static_cast<double>(k) * dt;
    const double kappa =
        amplitude_s * std::exp(-time / damping_s) * std::sin(2 * std::numbers::pi * frequency_hz * time);
    const Vec3d& newer = history[n - k];
    const Vec3d& older = k == n ? before : history[n - k - 1];
    f += kappa * (newer - older);
  }
  return f;
}

}  // namespace wobble
