#pragma once
// The viewer's rig-complementary physics (PhysSkin++ III-E, `--physics --rig`): the character's
// skinning (its clip, or a joint turned with the joint drag) is the primary motion and a
// complementary elastic displacement rides on it, stepped at the same fixed rate as the physics
// mode (decoupled from the display). Subspace: constrained skinning eigenmodes, or the learned
// rig-complementary fields (the shipped model is clonk's).
#include <memory>

#include <wobble/character.hpp>
#include <wobble/physics/rig_complementary.hpp>

#include "physics_session.hpp"

namespace wobble::viewer {

class RigPhysicsSession {
 public:
  // `fields`: learned complementary fields without the constant column (null: eigenmodes).
  // The character must outlive the session. Throws Error if it is not skinned.
  RigPhysicsSession(const Character& character, const PhysicsSettings& settings,
                    std::shared_ptr<const fields::SkinningField> fields);
  // Runs the fixed steps due after `seconds` of real time toward `pose` (at most a few).
  int advance(double seconds, const Pose& pose);
  std::vector<Vec3f> vertices(const Pose& pose) const { return rig_.vertex_positions(pose); }
  const PhysicsStats& stats() const { return meter_.stats(); }
  int handles() const { return rig_.body().handle_count(); }

 private:
  physics::RigComplementary rig_;
  PhysicsSettings settings_;
  FixedStepClock clock_;
  StepMeter meter_;
};

}  // namespace wobble::viewer
