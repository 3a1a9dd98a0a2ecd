#pragma once
// Settings of the viewer's physics mode (PhysSkin++ III-D), edited in the panel and, for the
// start, from the command line or the page's URL (physics_options.cpp). Lengths are in the shape's
// normalised frame (centred on its bounding box, longest side 2, treated as metres).
#include <filesystem>
#include <string>

#include <Eigen/Core>

#include <wobble/physics/elasticity.hpp>

namespace wobble::viewer {

enum class Subspace { Eigenmodes, Neural };
enum class PinMode { None, Plane, Painted, Predicate };

struct PhysicsSettings {
  Subspace subspace = Subspace::Eigenmodes;
#ifdef __EMSCRIPTEN__
  // The browser runs single-threaded WebAssembly without Eigen's SIMD: a lighter default subspace
  // keeps it at the step rate (each step costs about handles^2 x points).
  int handles = 8;                        // eigenmodes; neural fields bring their own count
  int points = 500;                       // cubature points
#else
  int handles = 16;
  int points = 1000;
#endif
  physics::Material material{5e5, 0.45, 1000};  // Young's modulus (Pa), Poisson ratio, density (kg/m^3)
  double step_rate = 60;                  // physics steps per second of real time, whatever the display rate
  int substeps = 1;                       // implicit steps per physics step
  int max_iterations = 8;                 // Newton iterations per implicit step (interactive budget)
  bool gravity = true;
  Eigen::Vector3d gravity_direction{0, -1, 0};  // scaled to 9.81 m/s^2
  PinMode pin_mode = PinMode::None;
  int pin_axis = 1;                       // 0, 1, 2: x, y, z
  double pin_level = 0.6;                 // the plane pins what lies above (or below) this coordinate
  bool pin_above = true;
  std::string pin_predicate;              // PinMode::Predicate: as `wobble simulate --pin` ("x<-0.9 || x>0.9")
  double pin_brush_radius = 0.12;         // painted pins (m)
  bool floor = true;                      // a plane the shape rests on, moved and turned live
  double floor_offset = 0.02;             // floor height below the shape's lowest rest point (m)
  double floor_tilt_x = 0, floor_tilt_z = 0;  // degrees: a ramp
  double drag_stiffness = 400;            // 1/s^2 (per unit mass), the Gaussian-kernel pull
  double drag_radius = 0.25;              // m, the kernel's standard deviation
  std::filesystem::path neural_model;     // empty: the shipped .wfield (the rig model with --rig)
};

}  // namespace wobble::viewer
