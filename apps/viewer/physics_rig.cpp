#include "physics_rig.hpp"


namespace wobble::viewer {

namespace {

physics::RigComplementaryOptions rig_options(const PhysicsSettings& s, std::shared_ptr<const physics::SkinningField> fields) {
  physics::RigComplementaryOptions o;
  o.handles = s.handles;
  o.points = static_cast<std::size_t>(s.points);
  o.material = s.material;
  // No gravity: the rig is the primary motion (as wobble simulate --rig), the subspace only adds to it.
  o.fields = std::move(fields);
  return o;
}

}  // namespace

RigPhysicsSession::RigPhysicsSession(const Character& character, const PhysicsSettings& settings,
                                     std::shared_ptr<const physics::SkinningField> fields)
    : rig_(character, rig_options(settings, std::move(fields))), settings_(settings) {
  rig_.world().solver.max_iterations = settings.max_iterations;
}

int RigPhysicsSession::advance(double seconds, const Pose& pose) {
  const double h = 1.0 / settings_.step_rate;
  const int steps = clock_.due(seconds, h);
  for (int s = 0; s < steps; ++s) {
    meter_.start();
    for (int k = 0; k < settings_.substeps; ++k) rig_.step(pose, h / settings_.substeps);
    meter_.record(rig_.world().last_stats().iterations, rig_.world().last_stats().contacts);
  }
  return steps;
}

}  // namespace wobble::viewer
