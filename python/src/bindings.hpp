#pragma once
// Shared pieces of the Python bindings: numpy views of C++ buffers, checked numpy inputs, and
// Python objects -> JSON settings. One bind_* function per concept, called by module.cpp.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <optional>

#include <wobble/offline/baked_frames.hpp>
#include <wobble/character.hpp>
#include <wobble/math.hpp>
#include <wobble/offline/helper_bones.hpp>
#include <wobble/parameters.hpp>
#include <wobble/physics/settings.hpp>

namespace wobble::python {

namespace py = pybind11;

// A numpy array viewing `data` (no copy); `owner` keeps the buffer alive. Read-only unless
// `writable`.
template <typename T>
py::array view(const T* data, std::vector<py::ssize_t> shape, std::vector<py::ssize_t> strides, py::handle owner,
               bool writable = false) {
  py::array array(py::dtype::of<T>(), std::move(shape), std::move(strides), data, owner);
  if (!writable) array.attr("setflags")(py::arg("write") = false);
  return array;
}

// (N, 3) float32 view of a vector of Vec3f (Eigen packs them as 3 floats, no padding).
py::array vec3_view(const std::vector<Vec3f>& values, py::handle owner, bool writable = false);
// (N, 4, 4) float32 view of column-major Mat4f: element [n, row, column].
py::array mat4_view(const std::vector<Mat4f>& values, py::handle owner);
// (N, 3) float32 array copied from Vec3f.
py::array_t<float> vec3_copy(const std::vector<Vec3f>& values);

// An array of `what` with shape (rows, columns) (rows = -1: any), exactly float32 and
// C-contiguous (so that it is used in place, without a copy); writable when asked. Throws
// wobble::Error naming `what` otherwise.
py::array_t<float> require_float_rows(py::handle object, py::ssize_t rows, py::ssize_t columns, const std::string& what,
                                      bool writable);
// Any array-like of numbers as (rows, columns) float32 (copied only when it has to be).
py::array_t<float, py::array::c_style | py::array::forcecast> as_float_rows(py::handle object, py::ssize_t rows,
                                                                            py::ssize_t columns,
                                                                            const std::string& what);
// Reads (N, 4, 4) matrices (row-major numpy) into Mat4f.
std::vector<Mat4f> read_mat4(py::handle object, py::ssize_t count, const std::string& what);

// dict/list/str/number/bool/None and numpy arrays or scalars -> JSON (settings sections). `path`
// names the value in errors ("dynamic.damping": "settings: dynamic.damping: nan is not a finite number").
nlohmann::json to_json(py::handle object, const std::string& path = {});
// JSON text -> Python objects (json.loads).
py::object json_to_python(const std::string& text);
// Settings as the CLI's --settings file: None, a dict of sections, or the JSON text; checked
// against the deformers' descriptions (errors name the key).
StackSettings stack_settings_from(py::handle settings);
// A clip given as an index (int) or a name or index (str), with wobble's errors.
std::size_t clip_index(const Character& character, py::handle clip);

// bake(..., helper_bones=, helper_influences=, helper_settings=) as the decomposition's settings,
// checked by its description (errors name the keyword); nullopt without helper_bones.
std::optional<DecompositionParameters> helper_bone_parameters(py::handle bones, py::handle influences,
                                                              py::handle settings);
// The helper bones of a bake as a wobble.HelperBones (the GIL released while they are fitted).
py::object helper_bones_object(const Character& character, std::size_t clip, const BakedFrames& baked,
                               const DecompositionParameters& parameters, bool periodic, std::size_t threads);

// Physics keyword arguments (a Simulation's, a RigSimulation's) as physics::Settings: keys of
// physics_description() or the CLI's flag spellings (youngs, poisson), those `allowed` accepts;
// gravity also a number along -y or None. Errors name `where` and the keyword.
physics::Settings physics_settings(const py::kwargs& kwargs, const std::string& where,
                                   const std::function<bool(std::string_view key)>& allowed);
// The accepted keywords with their units, defaults and ranges, for a docstring.
std::string physics_settings_doc(const std::function<bool(std::string_view key)>& allowed);

void bind_character(py::module_& m);
void bind_pose(py::module_& m);
void bind_stack(py::module_& m);
void bind_dynamic_skinning(py::module_& m);
void bind_delta_mush(py::module_& m);
void bind_physics(py::module_& m);
void bind_rig_simulation(py::module_& m);
void bind_helper_bones(py::module_& m);

}  // namespace wobble::python
