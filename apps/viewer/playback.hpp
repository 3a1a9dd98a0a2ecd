#pragma once
// Playback of a clip: play, pause, scrub, loop, speed. Two clocks: the clip time (what pose is
// shown) and the simulation time (what the effects see). The simulation time only moves forward,
// also while the clip is paused, so that wobbles started by dragging a joint keep ringing; a
// loop wrap is not a jump for the effects, a scrub is. The played time is the clip time without
// the wraps (a cycle played on: its repetitions follow each other, the root advancing).
namespace wobble::viewer {

class Playback {
 public:
  void set_range(float start, float end);  // the clip's first and last keys (a cycle: its period)
  float start() const { return start_; }
  float end() const { return end_; }

  bool playing = true;
  bool loop = true;
  float speed = 1.0f;

  // Real (or fixed) time step in seconds. The first frame after a jump shows the time jumped to
  // (both clocks hold), so that the effects start there, as a bake's first frame does.
  void advance(double dt);
  // Jumps the clip to time t (clamped); the effects restart (take_jump() says so once).
  void scrub(float t);
  bool take_jump();

  float clip_time() const { return clip_time_; }
  double simulation_time() const { return simulation_time_; }
  // The clip time the simulation time s corresponds to while playing (s may lie before or after
  // the current frame); the current clip time when paused. Before the last jump (the start, a
  // scrub) the character held the pose it jumped to, as a bake's history before its first frame.
  float clip_time_at(double s) const;
  // The same without the loop's wraps.
  double played_time() const { return played_time_; }
  double played_time_at(double s) const;
  // The played time at s as if the clip had always been playing (no hold before the last jump):
  // the endless repetition a seamless loop's history is made of.
  double endless_time_at(double s) const;

 private:
  float wrap(double t) const;
  float start_ = 0, end_ = 0, clip_time_ = 0;
  double played_time_ = 0, simulation_time_ = 0;
  double jump_simulation_time_ = 0;  // when the clip last jumped to jump_clip_time_
  float jump_clip_time_ = 0;
  bool jumped_ = true;
  bool hold_ = true;  // the next advance() holds: a jump's frame is shown first
  void mark_jump();
};

}  // namespace wobble::viewer
