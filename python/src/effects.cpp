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

// One deformer's section ({'frequency': 2}) read as the settings file's, checked by its description.
DeformerSettings section_from(const char* deformer, py::handle section) {
  if (section.is_none()) return StackSettings().get(deformer);
  if (!py::isinstance<py::dict>(section))
    fail_plain("{}: parameters must be a dict (the '{}' settings section)", deformer, deformer);
  py::dict settings;
  settings[deformer] = section;
  return stack_settings_from(settings).get(deformer);
}

DynamicSkinningParameters dynamic_parameters(py::handle settings) {
  return section_from("dynamic", settings).as<DynamicSkinningParameters>();
}

// Attributes named as the settings keys, in their units, generated from the description; a set
// is checked as a settings value is.
template <typename Class>
void add_described_attributes(Class& cls, const DeformerDescription& description) {
  using Parameters = typename Class::type;
  for (const ParameterDescription& p : description.parameters) {
    const ParameterDescription* parameter = &p;
    const std::string where = std::string(py::str(cls.attr("__name__"))) + "." + p.key;
    cls.def_property(
        p.key.c_str(),
        [parameter](const Parameters& self) { return json_to_python(parameter_to_json(parameter->get(&self))); },
        [parameter, where, &description](Parameters& self, py::handle value) {
          const ParameterValue v = parameter_from_json(*parameter, to_json(value).dump(), where);
          Parameters updated = self;
          parameter->set(&updated, v);
          if (description.check_together) {
            if (const std::string problem = description.check_together(&updated); !problem.empty()) {
              fail_plain("{}: {}", where, problem);
            }
          }
          self = std::move(updated);
        },
        p.describe().c_str());
  }
}

struct DynamicState {
  std::shared_ptr<const Character> character;
  DynamicSkinningState state;
};

// The standalone DeltaMush works on arrays: its mask is values (no mesh attributes to name).
DeltaMushSettings mush_settings(const py::dict& s) {
  const DeltaMushParameters& p = section_from("deltamush", s).as<DeltaMushParameters>();
  DeltaMushSettings settings = p.mush;
  settings.mask = p.mask.values;
  if (s.contains("mask") && !p.mask.attribute.empty()) {
    fail_plain("deltamush: mask: DeltaMush.bind takes the weights themselves (a list or array), not an attribute name");
  }
  return settings;
}

}  // namespace

void bind_dynamic_skinning(py::module_& m) {
  auto parameters = py::class_<DynamicSkinningParameters>(
      m, "DynamicSkinningParameters",
      "Dynamic Skinning parameters, from the 'dynamic' settings section ({'frequency': 2, 'joints': {...}}). "
      "Attributes are the settings keys in their units (max_angle in degrees), checked when set.");
  parameters.def(py::init(&dynamic_parameters), py::arg("settings") = py::none())
      .def("validate", &DynamicSkinningParameters::validate, "empty when usable, otherwise the problem");
  add_described_attributes(parameters, *find_deformer("dynamic"));

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
            auto positions =
                require_float_rows(positions_in, static_cast<py::ssize_t>(self.character->mesh.vertex_count()), 3,
                                   "DynamicSkinningState.apply: positions", true);
            PoseSampler pose_at;
            if (!clip.is_none()) {
              const Character& c = *self.character;
              pose_at = clip_sampler(c.rig, c.clips[c.require_clip(py::str(clip).cast<std::string>())]);
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
      .def_property_readonly(
          "filtered",
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
            auto triangles =
                py::array_t<std::uint32_t, py::array::c_style | py::array::forcecast>::ensure(triangles_in);
            if (!triangles || triangles.ndim() != 2 || triangles.shape(1) != 3)
              fail_plain("DeltaMush.bind: triangles: expected shape (M, 3)");
            const DeltaMushSettings s = mush_settings(settings);
            self.bind(
                {reinterpret_cast<const Vec3f*>(rest.data()), static_cast<std::size_t>(rest.shape(0))},
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
