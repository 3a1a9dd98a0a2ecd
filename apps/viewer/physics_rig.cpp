#include "physics_rig.hpp"

namespace wobble::viewer {

namespace {

physics::RigComplementaryOptions rig_session_options(const PhysicsSettings& s,
                                                     std::shared_ptr<const fields::SkinningField> fields) {
  physics::RigComplementaryOptions o = physics::rig_options(s.physics);
  // No gravity: the rig is the primary motion (as wobble simulate --rig), the subspace only adds to it.
  o.fields = std::move(fields);
  return o;
}

}  // namespace

RigPhysicsSession::RigPhysicsSession(const Character& character, const PhysicsSettings& settings,
                                     std::shared_ptr<const fields::SkinningField> fields)
    : rig_(character, rig_session_options(settings, std::move(fields))), settings_(settings) {
  rig_.world().solver.max_iterations = settings.physics.max_iterations;
  rig_.world().solver.tolerance = settings.physics.tolerance;
}

int RigPhysicsSession::advance(double seconds, const Pose& pose) {
  const double h = settings_.physics.time_step();  // one implicit step a tick, as PhysicsSession
  const int steps = clock_.due(seconds, h);
  for (int s = 0; s < steps; ++s) {
    meter_.start();
    rig_.step(pose, h);
    meter_.record(rig_.world().last_stats().iterations, rig_.world().last_stats().contacts);
  }
  return steps;
}

}  // namespace wobble::viewer
