// The C API of physics (include/wobble/wobble_physics.h): a quick scene of one shape, the same
// builder as `wobble simulate SHAPE` and Python's Simulation, advanced a frame at a time. The
// boundary (status codes, messages) is wobble.h's (capi/guarded.hpp).
#include <wobble/wobble_physics.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <wobble/physics/scene.hpp>
#include <wobble/physics/settings.hpp>

#include "capi/arrays.hpp"
#include "capi/guarded.hpp"
#include "capi/stack_settings.hpp"
#include "deform/description_json.hpp"

struct wobble_simulation {
  wobble::physics::Scene scene;
};

namespace wobble::capi {
namespace {

constexpr const char* kCreate = "wobble_simulation_create";

// The settings a single shape takes, less the frame count (the host advances as it likes).
bool simulation_setting(std::string_view key) { return physics::acts_on_shape(key) && key != "frames"; }

physics::Settings simulation_settings(const char* settings_json) {
  return described_settings_from_json(physics::physics_description(), settings_json,
                                      std::string(kCreate) + ": settings", simulation_setting)
      .as<physics::Settings>();
}

}  // namespace
}  // namespace wobble::capi

using wobble::capi::guarded;
using wobble::capi::require;

extern "C" {

wobble_status wobble_simulation_create(const char* shape_file, const char* settings_json,
                                       wobble_simulation** simulation) {
  wobble::physics::QuickSceneOptions options;
  const wobble_status arguments = guarded(WOBBLE_INVALID_ARGUMENT, [&] {
    require(simulation, "simulation (the result)");
    *simulation = nullptr;
    require(shape_file, "shape_file");
    options.settings = wobble::capi::simulation_settings(settings_json);
  });
  if (arguments != WOBBLE_OK) return arguments;
  return guarded(WOBBLE_FAILED, [&] {  // the file: unreadable, nothing to simulate, a pin that selects nothing
    auto made = std::make_unique<wobble_simulation>();
    made->scene = wobble::physics::quick_scene(shape_file, options);
    *simulation = made.release();
  });
}

wobble_status wobble_simulation_destroy(wobble_simulation* simulation) {
  delete simulation;
  return WOBBLE_OK;
}

wobble_status wobble_simulation_point_count(const wobble_simulation* simulation, uint32_t* count) {
  return guarded(WOBBLE_INVALID_ARGUMENT, [&] {
    require(simulation, "simulation");
    require(count, "count (the result)");
    *count = static_cast<uint32_t>(simulation->scene.point_count());
  });
}

wobble_status wobble_simulation_advance(wobble_simulation* simulation) {
  const wobble_status checked = guarded(WOBBLE_INVALID_ARGUMENT, [&] { require(simulation, "simulation"); });
  if (checked != WOBBLE_OK) return checked;
  return guarded(WOBBLE_FAILED, [&] { simulation->scene.advance_frame(); });
}

wobble_status wobble_simulation_positions(const wobble_simulation* simulation, float* positions, size_t stride) {
  return guarded(WOBBLE_INVALID_ARGUMENT, [&] {
    require(simulation, "simulation");
    require(positions, "positions");
    const std::size_t row = wobble::capi::row_stride(stride, "stride");
    wobble::capi::copy_out(simulation->scene.frame_points(), positions, row);
  });
}

wobble_status wobble_physics_description(const char** json) {
  return guarded(WOBBLE_INVALID_ARGUMENT, [&] {
    require(json, "json (the result)");
    static const std::string description = wobble::deformer_description_json(wobble::physics::physics_description());
    *json = description.c_str();
  });
}

}  // extern "C"
