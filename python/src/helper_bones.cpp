// wobble.bake(..., helper_bones=N): the bake's motion as N helper joints (wobble::helper_bones),
// returned as a wobble.HelperBones (the extended character, its error) that saves the glTF
// `wobble bake --helper-bones` writes. The settings are the decomposition description's.
#include <pybind11/stl/filesystem.h>

#include <wobble/error.hpp>
#include <wobble/io/files.hpp>
#include <wobble/parallel.hpp>

#include "bindings.hpp"
#include "core/fail.hpp"

namespace wobble::python {

namespace {

struct PythonHelperBones {
  std::shared_ptr<Character> character;
  std::size_t helpers = 0, iterations = 0;
  double rmse = 0, secondary_rms = 0;
};

void set_helper_parameter(DeformerSettings& settings, const std::string& key, py::handle value,
                          const std::string& where) {
  const ParameterDescription& parameter = decomposition_description().at(key, where);
  settings.set(key, parameter_from_json(parameter, to_json(value, where).dump(), where), where);
}

}  // namespace

std::optional<DecompositionParameters> helper_bone_parameters(py::handle bones, py::handle influences,
                                                              py::handle settings) {
  if (bones.is_none()) {
    if (!influences.is_none()) fail_plain("bake: helper_influences: only with helper_bones");
    if (!settings.is_none()) fail_plain("bake: helper_settings: only with helper_bones");
    return std::nullopt;
  }
  DeformerSettings parameters(decomposition_description());
  set_helper_parameter(parameters, "bones", bones, "bake: helper_bones");
  if (!influences.is_none()) set_helper_parameter(parameters, "influences", influences, "bake: helper_influences");
  if (!settings.is_none()) {
    if (!py::isinstance<py::dict>(settings))
      fail_plain("bake: helper_settings: expected a dict of decomposition settings");
    for (auto [key, value] : settings.cast<py::dict>()) {
      const std::string name = py::str(key).cast<std::string>();
      if (name == "bones" || name == "influences")
        fail_plain("bake: helper_settings: give '{}' as helper_{}", name, name);
      set_helper_parameter(parameters, name, value, "bake: helper_settings: " + name);
    }
  }
  return parameters.as<DecompositionParameters>();
}

py::object helper_bones_object(const Character& character, std::size_t clip, const BakedFrames& baked,
                               const DecompositionParameters& parameters, bool periodic, std::size_t threads) {
  PythonHelperBones out;
  {
    py::gil_scoped_release release;
    ThreadPool pool(threads);
    HelperBones helpers;
    try {
      helpers = helper_bones(character, clip, baked, parameters, periodic, &pool);
    } catch (const Error& error) {
      fail_plain("bake: helper_bones: {}", error.what());
    }
    out.character = std::make_shared<Character>(std::move(helpers.character));
    out.helpers = helpers.helpers;
    out.iterations = helpers.iterations;
    out.rmse = helpers.rmse;
    out.secondary_rms = helpers.secondary_rms;
  }
  return py::cast(std::move(out));
}

void bind_helper_bones(py::module_& m) {
  py::class_<PythonHelperBones>(m, "HelperBones",
                                "A bake's motion as helper joints (wobble.bake(..., helper_bones=N)): the character "
                                "with its own skeleton plus the helpers, the refitted skin and one clip.")
      .def_readonly("character", &PythonHelperBones::character,
                    "wobble.Character: the joints, then wobble_helper_0...; the skin over both; the baked clip with "
                    "the helpers' channels")
      .def_readonly("helpers", &PythonHelperBones::helpers)
      .def_readonly("iterations", &PythonHelperBones::iterations)
      .def_readonly("rmse", &PythonHelperBones::rmse,
                    "RMS over frames and vertices of plain LBS of the character against the stack's bake (scene units)")
      .def_readonly("secondary_rms", &PythonHelperBones::secondary_rms,
                    "RMS of the stack's bake against the original skeleton's LBS: the motion the helpers carry")
      .def(
          "save",
          [](const PythonHelperBones& self, const std::filesystem::path& path) { write_gltf(path, *self.character); },
          py::arg("path"), "Writes the glTF (.glb or .gltf) that `wobble bake --helper-bones` writes, atomically.");
}

}  // namespace wobble::python
