#pragma once
// Timed actions for the physics mode (tests and demos; --script on the desktop, ?script= in the
// browser): a JSON array, in order of time, of
//   {"at": SECONDS, "do": "press",   "pixel": [X, Y] | "point": [X, Y, Z]}   grab the surface there
//   {"at": SECONDS, "do": "drag",    "pixel": [X, Y] | "point": [X, Y, Z]}   move the cursor (drag target)
//   {"at": SECONDS, "do": "release"}
//   {"at": SECONDS, "do": "plane",   "offset": M, "tilt_x": DEGREES, "tilt_z": DEGREES}   move/turn the floor
//   {"at": SECONDS, "do": "joint",   "joint": NAME, "axis": [X, Y, Z], "degrees": A}     turn a joint (local)
//   {"at": SECONDS, "do": "gravity", "on": true|false}
//   {"at": SECONDS, "do": "ball"}                                            drop the second object
//   {"at": SECONDS, "do": "report"}      print one line "wobble-viewer: report {JSON}" (see physics_mode.hpp)
// Pixels are framebuffer pixels from the top-left corner; points are in the shape's file frame
// (the grabbed point is the rest vertex nearest to it). Seconds count the viewer's time from the
// first frame (fixed 1/60 s frames in --screenshot and --frame runs).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace wobble::viewer {

struct ScriptAction {
  double at = 0;
  std::string kind;
  nlohmann::json arguments;  // the action's object
};

class ScriptPlayer {
 public:
  ScriptPlayer() = default;
  // `source`: a file name, or JSON text (it starts with '['). Throws Error naming the file (or
  // "--script") and the action for anything malformed.
  static ScriptPlayer parse(const std::string& source);
  // Actions due at `time` not yet taken, in order.
  std::vector<ScriptAction> take_due(double time);
  bool empty() const { return actions_.empty(); }

 private:
  std::vector<ScriptAction> actions_;
  std::size_t next_ = 0;
};

}  // namespace wobble::viewer
