#pragma once
// The physics mode's command-line (and URL) options, parsed strictly (wobble/parse.hpp):
//   --physics                 start in the physics mode (also ?physics in the page's URL)
//   --rig                     rig-complementary physics of a rigged character (with --physics)
//   --shape NAME              a bundled shape (NAME.off in the shapes folder) instead of FILE
//   --script ACTIONS          timed actions (a .json file, or the JSON text itself): physics_script.hpp
//   --subspace eigenmodes|neural   --neural-model FILE.wfield
//   the settings' flags (physics_description(), `wobble simulate --describe`): --handles N,
//   --points N, --youngs PA, --poisson NU, --fps HZ, --substeps N, --drag-stiffness ...
//   --pin PREDICATE           pins what a predicate over normalised rest coordinates selects, as
//                             `wobble simulate --pin` ("y>0.6", "x<-0.9 || x>0.9"); AXIS>LEVEL and
//                             AXIS<LEVEL set the panel's pin plane
//   --no-gravity  --no-floor  --floor-tilt DEGREES  --ball (drop the second object at the start)
//   --stop-frame N            fixed 1/60 s frames; after N of them the picture stops (for browser tests)
#include <filesystem>
#include <functional>
#include <string>

#include "physics_settings.hpp"

namespace wobble::viewer {

struct PhysicsOptions {
  bool enabled = false;
  bool rig = false;
  std::string shape;   // a bundled shape's name
  std::string script;  // a file or JSON text
  bool ball = false;
  int stop_frame = 0;  // > 0: fixed 1/60 s frames, and the picture stops changing after this many (browser tests)
  PhysicsSettings settings;
};

// Reads option `flag` (taking its value from `value()` when it has one, a switch's state from
// `is_on()`: true, or the =VALUE given) into `options`; false when `flag` is not a physics
// option. Throws Error naming the flag for a bad value.
bool parse_physics_option(const std::string& flag, const std::function<const std::string&()>& value,
                          const std::function<bool()>& is_on, PhysicsOptions& options);
std::string physics_usage();

// The folder of the shapes the menu offers: /shapes in the browser, the shared assets' shapes on the desktop.
std::filesystem::path bundled_shapes_folder();
// NAME (or NAME.off) in that folder; throws Error naming the shape when there is no such file.
std::filesystem::path bundled_shape(const std::string& name);

}  // namespace wobble::viewer
