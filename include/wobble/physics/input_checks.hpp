#pragma once
// Physical inputs checked before the solver runs: a non-finite or absurd gravity, acceleration,
// velocity, placement or material is refused with what is wrong, instead of surfacing later as
// "the state at time 0 s is not admissible".
//
// The bounds (SI units; the normalised shape is about 2 m long) are generous: a thousand times
// Earth's gravity, ten kilometres, ten kilometres per second.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <wobble/math.hpp>
#include <wobble/physics/dynamics.hpp>
#include <wobble/physics/elasticity.hpp>

namespace wobble::physics {

namespace input_limits {
inline constexpr double kAcceleration = 1e4;                    // m/s^2, gravity and per-object accelerations
inline constexpr double kDistance = 1e4;                        // m, positions, plane origins and sizes
inline constexpr double kSpeed = 1e4;                           // m/s
inline constexpr double kAngularSpeed = 1e4;                    // rad/s
inline constexpr double kMinYoungs = 1e-3, kMaxYoungs = 1e13;   // Pa (steel: 2e11)
inline constexpr double kMaxPoisson = 0.4999;                   // [0, 0.5): 0.5 is incompressible
inline constexpr double kMinDensity = 1e-3, kMaxDensity = 1e6;  // kg/m^3 (osmium: 22590)
inline constexpr double kMaxStiffness = 1e12;                   // 1/s^2 (per unit mass), planes, drags, contact
// The sizes of a simulation (what they make the solver allocate is bounded by them).
inline constexpr int kMaxHandles = 256;                                        // subspace: 12 x handles coordinates
inline constexpr std::int64_t kMinPoints = 10, kMaxPoints = 1'000'000;         // cubature points
inline constexpr int kMinGrid = 2, kMaxSampleGrid = 512, kMaxFieldGrid = 256;  // cells along the longest side
inline constexpr double kMaxPinBlend = 10;                                     // normalised units
inline constexpr int kMaxFrames = 10'000'000, kMaxSubsteps = 1000;
inline constexpr double kMinFps = 1e-3, kMaxFps = 1e4;
}  // namespace input_limits

// Throws Error("WHAT: ... is not finite" / "WHAT: |v| = 1e+308 is beyond the limit 10000 UNIT").
void check_vector(const Vec3d& value, std::string_view what, double limit, std::string_view unit);
// Throws Error naming `what` ("--youngs", "scene.json: objects[0].material") and the value.
void check_material(const Material& material, std::string_view what);
// Everything of a world that the solver reads: gravity, planes, drags, contact, time step.
void check_world_inputs(const World& world, std::string_view what);
// The sizes of a subspace and its sampling (input_limits above); throws Error naming `what` and
// the size ("shape.off: handles: 300 is out of range [1, 256]").
void check_subspace_sizes(int handles, std::size_t points, int sample_grid, int field_grid, std::string_view what);

}  // namespace wobble::physics
