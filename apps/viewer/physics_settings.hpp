#pragma once
// Settings of the viewer's physics mode (PhysSkin++ III-D), edited in the panel and, for the
// start, from the command line or the page's URL (physics_options.cpp). Lengths are in the shape's
// normalised frame (centred on its bounding box, longest side 2, treated as metres). The body and
// solver settings are the library's (physics::Settings, with its defaults and ranges: flags and
// sliders come from physics_description()); the rest is the viewer's own: how pins are chosen,
// the floor, and gravity's switch and direction.
#include <filesystem>
#include <string>

#include <Eigen/Core>

#include <wobble/physics/settings.hpp>

namespace wobble::viewer {

enum class Subspace { Eigenmodes, Neural };
enum class PinMode { None, Plane, Painted, Predicate };

// The library's defaults, but in the browser, which runs single-threaded WebAssembly without
// Eigen's SIMD, a lighter subspace that keeps it at the step rate (a step costs about
// handles^2 x points).
inline physics::Settings viewer_physics_defaults() {
  physics::Settings s;
#ifdef __EMSCRIPTEN__
  s.handles = 8;
  s.points = 500;
#endif
  return s;
}

struct PhysicsSettings {
  Subspace subspace = Subspace::Eigenmodes;
  // Subspace, material, clock (one implicit step every 1 / (fps x substeps) s of real time,
  // whatever the display rate), solver and drag.
  physics::Settings physics = viewer_physics_defaults();
  bool gravity = true;
  Eigen::Vector3d gravity_direction{0, -1, 0};  // scaled to |physics.gravity|
  PinMode pin_mode = PinMode::None;
  int pin_axis = 1;        // 0, 1, 2: x, y, z
  double pin_level = 0.6;  // the plane pins what lies above (or below) this coordinate
  bool pin_above = true;
  std::string pin_predicate;                  // PinMode::Predicate: as `wobble simulate --pin` ("x<-0.9 || x>0.9")
  double pin_brush_radius = 0.12;             // painted pins (m)
  bool floor = true;                          // a plane the shape rests on, moved and turned live
  double floor_offset = 0.02;                 // floor height below the shape's lowest rest point (m)
  double floor_tilt_x = 0, floor_tilt_z = 0;  // degrees: a ramp
  std::filesystem::path neural_model;         // empty: the shipped .wfield (the rig model with --rig)
};

}  // namespace wobble::viewer
