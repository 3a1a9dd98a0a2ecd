#pragma once
// Seamless loop playback. While the viewer plays a cycle in a loop, the effects run in its
// periodic steady state, the history `wobble bake --loop` starts from: no seam where the cycle
// starts again and no start-up transient, at any display rate. The cycle plays on (the root
// advances each repetition, as in the bake's frames past one cycle), so that the motion the
// effects see has no jump either. The effects' clock is the simulation time: at speed s they see
// a cycle of period / s. The steady state holds the live parameters of the cycle's start; keyed
// ones then settle over the cycles played (the bake settles them before its first frame).
// A clip that is no cycle loops as before, from its end back to its start.
#include <optional>
#include <string>

#include <wobble/clip.hpp>
#include <wobble/offline/cycle.hpp>
#include <wobble/pose.hpp>
#include <wobble/rig.hpp>

#include "playback.hpp"

namespace wobble::viewer {

class CycleLoop {
 public:
  // The clip's cycle (find_cycle), or none; null: the rest pose.
  void set_clip(const Rig& rig, const Clip* clip);
  const std::optional<Cycle>& cycle() const { return cycle_; }
  // "seamless loop: a cycle of 2.4 s ..." or why the clip loops with a seam.
  const std::string& description() const { return description_; }
  // The playback range: the cycle's (a clip that ends one key early gains that interval), or the clip's.
  float start() const;
  float end() const;

  // The pose shown now: the cycle's at the played time (repeated, the root advancing), or the
  // clip's at the clip time.
  void pose(const Playback& playback, Pose& pose) const;
  // The same at simulation time s (the poses the effects sample while the clip plays): while
  // active(), the cycle played forever, before the last jump too.
  PoseSampler sampler(const Playback& playback) const;

  // Whether the effects run in the steady state now: a cycle, looping, playing at a speed > 0,
  // no joint posed by hand.
  bool active(const Playback& playback, bool posed) const;
  struct Start {
    double time = 0;       // simulation time where the cycle being played began, s
    double period = 0;     // the cycle's period in simulation time, s
    double clip_time = 0;  // the cycle's start in clip time (keyed parameters)
  };
  // With active(): the steady state to start from when it has not started yet (it became active,
  // the speed changed, or restart() was called), and marks it started; nullopt otherwise.
  std::optional<Start> take_start(const Playback& playback);
  // The next active frame starts the steady state afresh (a jump, new settings, another path).
  void restart() { started_ = false; }

 private:
  const Rig* rig_ = nullptr;
  const Clip* clip_ = nullptr;
  std::optional<Cycle> cycle_;
  std::string description_;
  bool started_ = false;
  float started_speed_ = 0;
};

}  // namespace wobble::viewer
