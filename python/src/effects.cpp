// Python bindings of the effects with their own integration API: the Dynamic Skinning state
// (initialise once, apply every frame in place, reset on a jump) and Delta Mush (bind, then
// evaluate in place). Positions are float32 (N, 3) C-contiguous arrays changed without a copy.
#include <memory>

#include <pybind11/stl.h>

#include <wobble/character.hpp>
#include <wobble/delta_mush.hpp>
#include <wobble/dynamic_skinning.hpp>
#include <wobble/error.hpp>
#include <wobble/parallel.hpp>

#include "bindings.hpp"
#include "core/fail.hpp"

namespace wobble::python {

namespace {

std::span<Vec3f> as_vec3(py::array_t<float>& array) {
  return {reinterpret_cast<Vec3f*>(array.mutable_data()), static_cast<std::size_t>(array.shape(0))};
}

DynamicSkinningParameters dynamic_parameters(py::handle settings) {
  if (settings.is_none()) return {};
  if (!py::isinstance<py::dict>(settings)) fail_plain("dynamic: parameters must be a dict (the 'dynamic' settings section)");
  DynamicSkinningParameters p = dynamic_parameters_from_json(to_json(settings));
  const std::string problem = p.validate();
  if (!problem.empty()) fail_plain("dynamic: {}", problem);
  return p;
}

struct DynamicState {
  std::shared_ptr<const Character> character;
  DynamicSkinningState state;
};

DeltaMushSettings mush_settings(const py::dict& s) {
  DeltaMushSettings settings;
  for (auto [key_handle, value] : s) {
    const std::string key = py::str(key_handle);
    try {
      if (key == "iterations") settings.iterations = value.cast<int>();
      else if (key == "step") settings.step = value.cast<float>();
      else if (key == "smoothing") settings.smoothing = parse_mush_smoothing(value.cast<std::string>());
      else if (key == "pin_boundary") settings.pin_boundary = value.cast<bool>();
      else if (key == "scale") settings.scale = value.cast<float>();
      else if (key == "smooth_only") settings.smooth_only = value.cast<bool>();
      else if (key == "mode") settings.mode = parse_mush_mode(value.cast<std::string>());
      else if (key == "mask") settings.mask = value.cast<std::vector<float>>();
      else if (key == "invert_mask") settings.invert_mask = value.cast<bool>();
      else fail_plain("deltamush: unknown setting '{}' (iterations, step, smoothing, pin_boundary, scale, smooth_only, mode, mask, invert_mask)", key);
    } catch (const py::cast_error&) {
      fail_plain("deltamush: '{}' has the wrong type ({})", key, std::string(py::str(value.get_type())));
    }
  }
  return settings;
}

}  // namespace

void bind_dynamic_skinning(py::module_& m) {
  py::class_<DynamicSkinningParameters>(m, "DynamicSkinningParameters",
                                        "Dynamic Skinning parameters. Build from the settings section "
                                        "({'frequency': 2, 'joints': {...}}, max_angle in degrees there); attributes "
                                        "are in SI units (max_angle in radians).")
      .def(py::init(&dynamic_parameters), py::arg("settings") = py::none())
      .def_readwrite("frequency", &DynamicSkinningParameters::frequency, "f, Hz")
      .def_readwrite("damping", &DynamicSkinningParameters::damping, "tau, s")
      .def_readwrite("amplitude", &DynamicSkinningParameters::amplitude, "A, s")
      .def_readwrite("drag", &DynamicSkinningParameters::drag, "D, s")
      .def_readwrite("max_angle", &DynamicSkinningParameters::max_angle, "soft limit, radians")
      .def_readwrite("linear_drag", &DynamicSkinningParameters::linear_drag, "s")
      .def_readwrite("max_time_step", &DynamicSkinningParameters::max_time_step, "s")
      .def_readwrite("bend_weights", &DynamicSkinningParameters::bend_weights, "per-vertex gamma (read at initialize)")
      .def_readwrite("bend_weight_attribute", &DynamicSkinningParameters::bend_weight_attribute)
      .def("validate", &DynamicSkinningParameters::validate, "empty when usable, otherwise the problem");

  py::class_<DynamicState>(m, "DynamicSkinningState",
                           "The Dynamic Skinning state of one character (the paper's integration API): "
                           "initialize once, apply every frame after the base skinning, reset on a jump.")
      .def(py::init<>())
      .def(
          "initialize",
          [](DynamicState& self, std::shared_ptr<Character> character, const DynamicSkinningParameters& parameters) {
            self.state.initialize(*character, parameters);
            self.character = std::move(character);
          },
          py::arg("character"), py::arg("parameters") = DynamicSkinningParameters{})
      .def(
          "apply",
          [](DynamicState& self, const DynamicSkinningParameters& parameters, const Pose& pose, py::handle positions_in,
             double time, py::handle clip) {
            if (!self.character) fail_plain("dynamic: apply() before initialize()");
            auto positions = require_float_rows(positions_in, static_cast<py::ssize_t>(self.character->mesh.vertex_count()), 3,
                                                "DynamicSkinningState.apply: positions", true);
            PoseSampler pose_at;
            if (!clip.is_none()) {
              const Character& c = *self.character;
              const Clip* source = &c.clips[c.require_clip(py::str(clip).cast<std::string>())];
              pose_at = [&c, source](double t, Pose& other) { evaluate_pose(c.rig, source, static_cast<float>(t), other); };
            }
            std::span<Vec3f> span = as_vec3(positions);
            py::gil_scoped_release release;
            self.state.apply(parameters, pose, span, time, pose_at);
          },
          py::arg("parameters"), py::arg("pose"), py::arg("positions"), py::arg("time"), py::arg("clip") = py::none(),
          "Adds the offsets to the base-skinned positions (float32 (N, 3), changed in place) for the pose at "
          "`time` (s). With `clip` the joint velocities are sampled from the clip, as in a bake.")
      .def("reset", [](DynamicState& self) { self.state.reset(); })
      .def_property_readonly("initialized", [](const DynamicState& self) { return self.state.initialized(); })
      .def_property_readonly("character_size", [](const DynamicState& self) { return self.state.character_size(); })
      .def_property_readonly("filtered",
                             [](const DynamicState& self) {
                               const auto f = self.state.filtered();
                               py::array_t<double> out({static_cast<py::ssize_t>(f.size()), py::ssize_t{3}});
                               if (!f.empty()) std::memcpy(out.mutable_data(), f.data(), f.size() * sizeof(Vec3d));
                               return out;
                             },
                             "F_j of the last apply (radians), (J, 3) float64");
}

void bind_delta_mush(py::module_& m) {
  py::class_<DeltaMush>(m, "DeltaMush",
                        "Delta Mush: bind to a rest mesh, then evaluate deformed positions in place. Settings keys as "
                        "the 'deltamush' section (iterations, step, smoothing, pin_boundary, scale, smooth_only, mode, "
                        "mask (one weight per vertex), invert_mask).")
      .def(py::init<>())
      .def(
          "bind",
          [](DeltaMush& self, py::handle rest_in, py::handle triangles_in, const py::dict& settings) {
            const auto rest = as_float_rows(rest_in, -1, 3, "DeltaMush.bind: rest");
            auto triangles = py::array_t<std::uint32_t, py::array::c_style | py::array::forcecast>::ensure(triangles_in);
            if (!triangles || triangles.ndim() != 2 || triangles.shape(1) != 3) fail_plain("DeltaMush.bind: triangles: expected shape (M, 3)");
            const DeltaMushSettings s = mush_settings(settings);
            self.bind({reinterpret_cast<const Vec3f*>(rest.data()), static_cast<std::size_t>(rest.shape(0))},
                      {reinterpret_cast<const Triangle*>(triangles.data()), static_cast<std::size_t>(triangles.shape(0))}, s);
          },
          py::arg("rest"), py::arg("triangles"), py::arg("settings") = py::dict())
      .def_property_readonly("bound", &DeltaMush::bound)
      .def(
          "evaluate",
          [](DeltaMush& self, py::handle positions_in) {
            if (!self.bound()) fail_plain("DeltaMush.evaluate: bind() first");
            auto positions = require_float_rows(positions_in, -1, 3, "DeltaMush.evaluate: positions", true);
            std::span<Vec3f> span = as_vec3(positions);
            py::gil_scoped_release release;
            self.evaluate(span);
          },
          py::arg("positions"), "Smooths and restores the detail of float32 (N, 3) positions, in place.");
}

}  // namespace wobble::python
