// The settings of a simulation, described once (settings.hpp); ranges from input_checks.hpp.
#include <wobble/physics/settings.hpp>

#include <wobble/physics/input_checks.hpp>

#include "deform/describe.hpp"
#include "deform/description_json.hpp"

namespace wobble::physics {

namespace {

using Fields = describe::Fields<Settings>;

// One chain per parameter (key, accessor, unit, range, help), laid out by hand:
// clang-format off

void describe_subspace(Fields& f) {
  using namespace input_limits;
  f.integer("handles", [](auto& s) -> auto& { return s.handles; })
      .bind().range(1, kMaxHandles).soft(2, 32)
      .help("skinning handles: the subspace has 12 x handles coordinates (neural fields bring their own count)");
  f.integer("points", [](auto& s) -> auto& { return s.points; })
      .bind().range(static_cast<double>(kMinPoints), static_cast<double>(kMaxPoints)).soft(100, 4000)
      .help("sample (cubature) points that integrate the elastic energy");
  f.integer("sample_grid", [](auto& s) -> auto& { return s.sample_grid; })
      .bind().range(kMinGrid, kMaxSampleGrid).soft(8, 64).help("sampling grid cells along the longest side");
  f.integer("field_grid", [](auto& s) -> auto& { return s.field_grid; })
      .bind().range(kMinGrid, kMaxFieldGrid).soft(8, 48).help("eigenmode grid cells along the longest side");
}

void describe_material(Fields& f) {
  using namespace input_limits;
  f.number("youngs_modulus", [](auto& s) -> auto& { return s.youngs_modulus; })
      .flag("youngs").unit("Pa").bind().range(kMinYoungs, kMaxYoungs).soft(1e3, 1e8).help("Young's modulus");
  f.number("poisson_ratio", [](auto& s) -> auto& { return s.poisson_ratio; })
      .flag("poisson").bind().range(0, kMaxPoisson).soft(0, 0.49).help("Poisson ratio (0.5 would be incompressible)");
  f.number("density", [](auto& s) -> auto& { return s.density; })
      .unit("kg/m^3").bind().range(kMinDensity, kMaxDensity).soft(10, 1e4).help("density");
  f.choice("model", [](auto& s) -> auto& { return s.model; },
           std::vector<std::pair<std::string, EnergyModel>>{{"neohookean", EnergyModel::NeoHookean},
                                                            {"linear", EnergyModel::Linear}})
      .bind().help("elastic energy: stable Neo-Hookean, or linear (small strain)");
}

void describe_pins_and_clock(Fields& f) {
  using namespace input_limits;
  f.text("pin", [](auto& s) -> auto& { return s.pin; })
      .bind().help("pinned region: a predicate over normalised rest coordinates, e.g. \"y>0.8\" (empty: none)");
  f.number("pin_blend", [](auto& s) -> auto& { return s.pin_blend; })
      .unit("normalised units").bind().range(0, kMaxPinBlend).soft(0, 1).help("width over which the pin releases");
  f.number("fps", [](auto& s) -> auto& { return s.fps; })
      .unit("Hz").bind().range(kMinFps, kMaxFps).soft(10, 240).help("frames per second (the viewer: physics frames per second of real time)");
  f.integer("frames", [](auto& s) -> auto& { return s.frames; })
      .bind().range(1, kMaxFrames).soft(1, 1000).help("frames to write");
  f.integer("substeps", [](auto& s) -> auto& { return s.substeps; })
      .bind().range(1, kMaxSubsteps).soft(1, 8).help("implicit time steps per frame (time step 1 / (fps x substeps))");
}

void describe_solver_and_contact(Fields& f) {
  using namespace input_limits;
  f.vector3("gravity", [](auto& s) -> auto& { return s.gravity; })
      .unit("m/s^2").range(-kAcceleration, kAcceleration).help("gravity, in scene units (the normalised shape spans 2 m)");
  f.integer("max_iterations", [](auto& s) -> auto& { return s.max_iterations; })
      .bind().range(1, 1000).soft(1, 30).help("most Newton iterations per time step");
  f.number("tolerance", [](auto& s) -> auto& { return s.tolerance; })
      .unit("m").bind().range(1e-15, 1).soft(1e-9, 1e-3)
      .help("Newton stops when its update, in the energy norm, is below this length");
  f.boolean("contact", [](auto& s) -> auto& { return s.contact; }).bind().help("contact between bodies (a barrier, eq. 15)");
  f.number("contact_radius", [](auto& s) -> auto& { return s.contact_radius; })
      .unit("m").bind().range(1e-9, kDistance).soft(0.01, 0.5).help("distance at which contact starts to push");
  f.number("contact_min_gap", [](auto& s) -> auto& { return s.contact_min_gap; })
      .bind().range(0, 0.999).help("the gap the barrier keeps, as a share of the contact radius");
  f.number("contact_stiffness", [](auto& s) -> auto& { return s.contact_stiffness; })
      .unit("1/s^2").bind().range(1e-9, kMaxStiffness).soft(1, 1e6).help("barrier stiffness per unit mass");
  f.number("drag_stiffness", [](auto& s) -> auto& { return s.drag_stiffness; })
      .unit("1/s^2").range(0, kMaxStiffness).soft(10, 5000).help("pull of a drag (the viewer's mouse) per unit mass");
  f.number("drag_radius", [](auto& s) -> auto& { return s.drag_radius; })
      .unit("m").range(1e-9, kDistance).soft(0.02, 1).help("standard deviation of a drag's Gaussian kernel");
  f.boolean("rig_inertia", [](auto& s) -> auto& { return s.rig_inertia; })
      .bind().help("rig-complementary bodies feel the rig's inertial forcing (off: eq. 24 alone)");
}

// clang-format on

}  // namespace

std::string Settings::validate() const { return physics_description().problems(this); }

const Settings& default_settings() {
  static const Settings defaults;
  return defaults;
}

const DeformerDescription& physics_description() {
  static const DeformerDescription description = [] {
    Fields f;
    describe_subspace(f);
    describe_material(f);
    describe_pins_and_clock(f);
    describe_solver_and_contact(f);
    return f.deformer("physics", DeformerStage::Effect,
                      "a simulated body and its solver: subspace, material, pins, clock, contact, drags, rig coupling",
                      {});
  }();
  return description;
}

DeformerSettings described_settings(const Settings& settings) {
  const DeformerDescription& description = physics_description();
  DeformerSettings described(description);
  for (const ParameterDescription& p : description.parameters) described.set(p.key, p.get(&settings), p.key);
  return described;
}

bool acts_on_shape(std::string_view key) {
  return !key.starts_with("contact") && !key.starts_with("drag_") && key != "rig_inertia";
}

bool acts_on_rig(std::string_view key) {
  for (std::string_view k : {"handles", "points", "sample_grid", "field_grid", "youngs_modulus", "poisson_ratio",
                             "density", "model", "fps", "substeps", "rig_inertia"})
    if (key == k) return true;
  return false;
}

std::string physics_parameters_markdown() {
  return "# Physics parameters\n\n"
         "Generated from the physics settings' own description (`wobble simulate --describe --markdown`); a test\n"
         "keeps this file equal to that output. Keys are Python's keyword arguments; flags are `wobble simulate`'s\n"
         "and the viewer's (contact and drags act between objects: no `simulate` flags; the viewer's mouse drag\n"
         "reads the drag keys). In SCENE.json the subspace,\n"
         "pin and material keys belong to an object (the material's under `\"material\"`), `fps`, `frames`,\n"
         "`substeps` and `gravity` to the scene, `max_iterations` and `tolerance` under `\"solver\"`, the\n"
         "contact keys under `\"contact\"` (`enabled`, `radius`, `min_gap`, `stiffness`) and the drag keys in each\n"
         "of `\"drags\"` (`stiffness`, `radius`). The library's option structs take these defaults. `bind` settings\n"
         "rebuild the body in the viewer; `live` ones change it between two steps.\n\n" +
         parameter_table_markdown(physics_description());
}

}  // namespace wobble::physics
