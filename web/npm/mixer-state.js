// The state of a three.js AnimationMixer that wobble's pose sampler changes when it moves the
// mixer to a time between two frames (index.js, WobbleEffect._poseMixer): the mixer's time and
// dispatchEvent, and each action's time, paused, enabled, loop count and start time. Saved and
// restored in flat arrays that are reused from frame to frame, so that sampling allocates nothing
// (they grow only when the mixer gains actions).
export class MixerState {
  constructor() {
    this.active = false;  // true between save() and the end of the frame's sampling
    this.time = 0;
    this.dispatch = null;
    this.count = 0;
    this.actions = [];
    this.times = [];
    this.paused = [];
    this.enabled = [];
    this.loops = [];
    this.starts = [];
  }

  save(mixer) {
    const actions = mixer._actions;
    this.active = true;
    this.time = mixer.time;
    this.dispatch = mixer.dispatchEvent;
    this.count = actions.length;
    for (let i = 0; i < actions.length; ++i) {
      const a = actions[i];
      this.actions[i] = a;
      this.times[i] = a.time;
      this.paused[i] = a.paused;
      this.enabled[i] = a.enabled;
      this.loops[i] = a._loopCount;
      this.starts[i] = a._startTime;
    }
  }

  restore(mixer) {
    mixer.time = this.time;
    for (let i = 0; i < this.count; ++i) {
      const a = this.actions[i];
      a.time = this.times[i];
      a.paused = this.paused[i];
      a.enabled = this.enabled[i];
      a._loopCount = this.loops[i];
      a._startTime = this.starts[i];
    }
  }
}
