#pragma once
// The settings of a simulation, declared once: a body's subspace, material and pins, the clock,
// the solver, contact, drags and the rig coupling. physics_description() gives each field's key,
// flag, unit, range and help (settings.cpp); `wobble simulate`'s flags, SCENE.json's checks,
// Python's keyword arguments, the viewer's flags and sliders and docs/physics-parameters.md
// (`wobble simulate --describe --markdown`) derive from it, and the library's option structs
// (QuickSceneOptions, ObjectDescription, RigComplementaryOptions) take their defaults from it.
//
// Defaults that belong to a solver struct are declared there (Material, SolverOptions,
// ContactOptions, Drag) and read here, so that a World built by hand has them too.
#include <string>
#include <string_view>

#include <wobble/math.hpp>
#include <wobble/parameters.hpp>
#include <wobble/physics/dynamics.hpp>
#include <wobble/physics/elasticity.hpp>

namespace wobble::physics {

struct Settings {
  // The subspace and its sampling.
  int handles = 16;      // skinning eigenmodes (neural fields bring their own count)
  int points = 1000;     // cubature points
  int sample_grid = 24;  // sampling grid cells along the longest side
  int field_grid = 20;   // eigenmode grid cells along the longest side
  // The material.
  double youngs_modulus = Material{}.youngs_modulus;
  double poisson_ratio = Material{}.poisson_ratio;
  double density = Material{}.density;
  EnergyModel model = EnergyModel::NeoHookean;
  // Pins: a predicate over normalised rest coordinates ("y>0.8"), released over pin_blend.
  std::string pin;
  double pin_blend = 0.2;
  // The clock: frames written per second, frames, implicit steps per frame.
  double fps = 30;
  int frames = 120;
  int substeps = 2;
  // The world and the solver.
  Vec3d gravity = SolverOptions{}.gravity;
  int max_iterations = SolverOptions{}.max_iterations;
  double tolerance = SolverOptions{}.tolerance;
  // Contact between bodies (the barrier of eq. 15).
  bool contact = ContactOptions{}.enabled;
  double contact_radius = ContactOptions{}.radius;
  double contact_min_gap = ContactOptions{}.min_gap;
  double contact_stiffness = ContactOptions{}.stiffness;
  // The Gaussian-kernel drag (SCENE.json's drags, the viewer's mouse).
  double drag_stiffness = Drag{}.stiffness;
  double drag_radius = Drag{}.radius;
  // Rig-complementary bodies: the rig's inertial forcing (eq. 24 alone without it).
  bool rig_inertia = true;

  Material material() const { return {youngs_modulus, poisson_ratio, density}; }
  double time_step() const { return 1.0 / (fps * substeps); }
  // The first problem ("'poisson_ratio': 0.5 is out of range [0, 0.4999]"), or empty.
  std::string validate() const;
};

// The subspace and material of `s` into an option struct with those fields
// (ObjectDescription, RigComplementaryOptions).
template <class Options>
void copy_subspace_and_material(const Settings& s, Options& out) {
  out.handles = s.handles;
  out.points = static_cast<decltype(out.points)>(s.points);
  out.sample_grid = s.sample_grid;
  out.field_grid = s.field_grid;
  out.material = s.material();
  out.model = s.model;
}

// The defaults (a default-constructed Settings), for the option structs' initialisers.
const Settings& default_settings();

// The description of Settings: a DeformerDescription named "physics" whose parameters are the
// fields above, in order (not a deformer: not in the registry).
const DeformerDescription& physics_description();

// `settings` as a DeformerSettings of physics_description() (for widgets and flag parsers that
// edit one setting through the description and read the struct back with as<Settings>()).
DeformerSettings described_settings(const Settings& settings);

// Where a setting acts: a single shape (`simulate SHAPE`, Python's Simulation) has no contact,
// drags or rig coupling; a rig (`simulate --rig`, RigSimulation) is carried by its clip, so it
// takes the subspace, material, clock and rig coupling only. Contact and drags act between the
// objects of a scene (SCENE.json) and on the viewer's mouse.
bool acts_on_shape(std::string_view key);
bool acts_on_rig(std::string_view key);

// docs/physics-parameters.md (`wobble simulate --describe --markdown`).
std::string physics_parameters_markdown();

}  // namespace wobble::physics
