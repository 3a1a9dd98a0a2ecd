#include "physics_options.hpp"

#include <wobble/error.hpp>
#include <wobble/parse.hpp>
#include <wobble/physics/dirichlet.hpp>
#include <wobble/physics/settings.hpp>

#include "core/fail.hpp"

#ifndef WOBBLE_VIEWER_SHAPES
#define WOBBLE_VIEWER_SHAPES "shapes"
#endif

namespace wobble::viewer {

namespace {

// A predicate over normalised rest coordinates, as `wobble simulate --pin`: "AXIS>LEVEL" and
// "AXIS<LEVEL" become the panel's pin plane, anything else stays a predicate.
void parse_pin(const std::string& text, PhysicsSettings& s) {
  try {
    physics::parse_predicate(text);
  } catch (const Error& e) {
    fail_plain("--pin: {}", e.what());
  }
  s.pin_mode = PinMode::Predicate;
  s.pin_predicate = text;
  const bool simple =
      text.size() >= 3 && std::string("xyz").find(text[0]) != std::string::npos && (text[1] == '<' || text[1] == '>');
  if (!simple) return;
  try {
    s.pin_level = parse_real(text.substr(2), "--pin");
  } catch (const Error&) {
    return;  // e.g. "y>0.5 && x<0": a predicate, not a plane
  }
  s.pin_mode = PinMode::Plane;
  s.pin_axis = text[0] - 'x';
  s.pin_above = text[1] == '>';
}

// A flag of physics_description() (--handles, --youngs, ...), read and checked by it.
bool parse_described_setting(const std::string& flag, const std::function<const std::string&()>& value,
                             physics::Settings& settings) {
  const DeformerDescription& description = physics::physics_description();
  for (const ParameterDescription& p : description.parameters) {
    if (flag != "--" + p.flag || p.key == "pin") continue;  // --pin: the panel's pin modes (parse_pin)
    DeformerSettings edited = physics::described_settings(settings);
    edited.set(p.key, parse_parameter_text(p, value(), flag), flag);
    settings = edited.as<physics::Settings>();
    return true;
  }
  return false;
}

}  // namespace

bool parse_physics_option(const std::string& flag, const std::function<const std::string&()>& value,
                          const std::function<bool()>& is_on, PhysicsOptions& o) {
  PhysicsSettings& s = o.settings;
  auto integer = [&](int low, int high) { return static_cast<int>(parse_integer(value(), flag, low, high)); };
  auto real = [&](double low, double high) { return parse_real(value(), flag, low, high); };
  if (flag == "--physics")
    o.enabled = is_on();
  else if (flag == "--rig")
    o.rig = is_on();
  else if (flag == "--shape")
    o.shape = value();
  else if (flag == "--script")
    o.script = value();
  else if (flag == "--ball")
    o.ball = is_on();
  else if (flag == "--subspace") {
    const std::string& v = value();
    if (v != "eigenmodes" && v != "neural") fail_plain("--subspace: '{}' is not eigenmodes or neural", v);
    s.subspace = v == "neural" ? Subspace::Neural : Subspace::Eigenmodes;
  } else if (flag == "--neural-model")
    s.neural_model = value();
  else if (flag == "--pin")
    parse_pin(value(), s);
  else if (flag == "--no-gravity")
    s.gravity = !is_on();
  else if (flag == "--no-floor")
    s.floor = !is_on();
  else if (flag == "--floor-tilt")
    s.floor_tilt_x = real(-60, 60);
  else if (flag == "--stop-frame")
    o.stop_frame = integer(1, 1000000);
  else
    return parse_described_setting(flag, value, s.physics);
  return true;
}

std::string physics_usage() {
  return "physics:  --physics [--rig] [--shape NAME] [--script ACTIONS.json|JSON] [--subspace eigenmodes|neural]\n"
         "          [--neural-model FILE.wfield] [--pin PREDICATE] [--no-gravity] [--no-floor]\n"
         "          [--floor-tilt DEGREES] [--ball] [--stop-frame N]\n"
         "          and the settings of `wobble simulate --describe` (--handles N, --youngs PA, --fps HZ, ...)\n"
         "  --physics       simulate the shape (PhysSkin++): drag it with the mouse, pin, drop, collide\n"
         "  --pin y>0.6     pins what the predicate selects (normalised coordinates, as wobble simulate --pin)\n"
         "  --script        timed actions: press, drag, release, plane, joint, gravity, report (docs/viewer.md)\n";
}

std::filesystem::path bundled_shapes_folder() {
#ifdef __EMSCRIPTEN__
  return "/shapes";
#else
  return WOBBLE_VIEWER_SHAPES;
#endif
}

std::filesystem::path bundled_shape(const std::string& name) {
  std::filesystem::path file = bundled_shapes_folder() / name;
  if (file.extension() != ".off") file += ".off";
  if (!std::filesystem::is_regular_file(file))
    fail_plain("--shape: no bundled shape '{}' (looked for {})", name, file.string());
  return file;
}

}  // namespace wobble::viewer
