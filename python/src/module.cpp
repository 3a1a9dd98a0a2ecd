// The `wobble` Python module: characters, poses, deformer stacks and bakes, Dynamic Skinning and
// Delta Mush, with numpy arrays in and out. wobble::Error becomes wobble.Error (one line naming
// the file or the parameter and the problem).
#include <cmath>
#include <cstring>

#include <wobble/error.hpp>
#include <spdlog/spdlog.h>

#include <wobble/log.hpp>

#include "bindings.hpp"
#include "core/fail.hpp"

namespace wobble::python {

py::array vec3_view(const std::vector<Vec3f>& values, py::handle owner, bool writable) {
  static_assert(sizeof(Vec3f) == 3 * sizeof(float), "Vec3f must be three packed floats");
  return view(values.empty() ? nullptr : values.front().data(), {static_cast<py::ssize_t>(values.size()), 3},
              {static_cast<py::ssize_t>(sizeof(Vec3f)), static_cast<py::ssize_t>(sizeof(float))}, owner, writable);
}

py::array mat4_view(const std::vector<Mat4f>& values, py::handle owner) {
  static_assert(sizeof(Mat4f) == 16 * sizeof(float), "Mat4f must be sixteen packed floats");
  // Column-major storage: element (row, column) at column * 4 + row.
  const auto f = static_cast<py::ssize_t>(sizeof(float));
  return view(values.empty() ? nullptr : values.front().data(), {static_cast<py::ssize_t>(values.size()), 4, 4},
              {16 * f, f, 4 * f}, owner);
}

py::array_t<float> vec3_copy(const std::vector<Vec3f>& values) {
  py::array_t<float> out({static_cast<py::ssize_t>(values.size()), py::ssize_t{3}});
  if (!values.empty()) std::memcpy(out.mutable_data(), values.front().data(), values.size() * sizeof(Vec3f));
  return out;
}

namespace {

std::string shape_text(const py::array& array) {
  std::string text = "(";
  for (py::ssize_t d = 0; d < array.ndim(); ++d) text += (d ? ", " : "") + std::to_string(array.shape(d));
  return text + (array.ndim() == 1 ? ",)" : ")");
}

void check_shape(const py::array& array, py::ssize_t rows, py::ssize_t columns, const std::string& what) {
  const bool ok = array.ndim() == 2 && (rows < 0 || array.shape(0) == rows) && array.shape(1) == columns;
  if (!ok) {
    fail_plain("{}: expected shape ({}, {}), got {}", what, rows < 0 ? std::string("N") : std::to_string(rows), columns,
               shape_text(array));
  }
}

}  // namespace

py::array_t<float> require_float_rows(py::handle object, py::ssize_t rows, py::ssize_t columns, const std::string& what,
                                      bool writable) {
  if (!py::isinstance<py::array>(object))
    fail_plain("{}: expected a numpy array, got {}", what, std::string(py::str(object.get_type())));
  py::array array = py::reinterpret_borrow<py::array>(object);
  if (!array.dtype().is(py::dtype::of<float>())) {
    fail_plain("{}: expected dtype float32 (used in place, without a copy), got {}", what,
               std::string(py::str(array.dtype())));
  }
  if (!(array.flags() & py::array::c_style))
    fail_plain("{}: the array must be C-contiguous (numpy.ascontiguousarray)", what);
  if (writable && !array.writeable()) fail_plain("{}: the array is read-only; pass a writable copy", what);
  check_shape(array, rows, columns, what);
  return py::reinterpret_borrow<py::array_t<float>>(array);
}

py::array_t<float, py::array::c_style | py::array::forcecast> as_float_rows(py::handle object, py::ssize_t rows,
                                                                            py::ssize_t columns,
                                                                            const std::string& what) {
  auto array = py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(object);
  if (!array) fail_plain("{}: expected an array of numbers", what);
  check_shape(array, rows, columns, what);
  return array;
}

std::vector<Mat4f> read_mat4(py::handle object, py::ssize_t count, const std::string& what) {
  auto array = py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(object);
  if (!array || array.ndim() != 3 || (count >= 0 && array.shape(0) != count) || array.shape(1) != 4 ||
      array.shape(2) != 4) {
    fail_plain("{}: expected shape ({}, 4, 4) (one 4x4 matrix per joint){}", what,
               count < 0 ? std::string("N") : std::to_string(count),
               array ? ", got " + shape_text(array) : std::string());
  }
  std::vector<Mat4f> out(static_cast<std::size_t>(array.shape(0)));
  const float* data = array.data();
  for (std::size_t n = 0; n < out.size(); ++n) {
    for (int r = 0; r < 4; ++r) {
      for (int c = 0; c < 4; ++c) out[n](r, c) = data[n * 16 + r * 4 + c];
    }
    if (!out[n].allFinite()) fail_plain("{}: matrix {} has a non-finite entry", what, n);
  }
  return out;
}

nlohmann::json to_json(py::handle object, const std::string& path) {
  const std::string where = path.empty() ? "settings" : "settings: " + path;
  if (object.is_none()) return nullptr;
  if (py::isinstance<py::bool_>(object)) return object.cast<bool>();
  if (py::isinstance<py::int_>(object)) return object.cast<long long>();
  if (py::isinstance<py::float_>(object)) {
    const double value = object.cast<double>();
    if (!std::isfinite(value)) fail_plain("{}: {} is not a finite number", where, std::string(py::repr(object)));
    return value;
  }
  if (py::isinstance<py::str>(object)) return object.cast<std::string>();
  if (py::isinstance<py::dict>(object)) {
    nlohmann::json out = nlohmann::json::object();
    for (auto [key, value] : object.cast<py::dict>()) {
      if (!py::isinstance<py::str>(key))
        fail_plain("{}: keys must be strings, got {}", where, std::string(py::repr(key)));
      const std::string name = key.cast<std::string>();
      out[name] = to_json(value, path.empty() ? name : path + "." + name);
    }
    return out;
  }
  // numpy arrays and scalars: through their Python equivalents.
  if (py::hasattr(object, "tolist") && (py::isinstance<py::array>(object) || py::hasattr(object, "dtype"))) {
    return to_json(object.attr("tolist")(), path);
  }
  if (py::isinstance<py::list>(object) || py::isinstance<py::tuple>(object)) {
    nlohmann::json out = nlohmann::json::array();
    for (py::handle item : object) out.push_back(to_json(item, path + "[" + std::to_string(out.size()) + "]"));
    return out;
  }
  fail_plain("{}: cannot use a {} as a setting", where, std::string(py::str(object.get_type())));
}

py::object json_to_python(const std::string& text) { return py::module_::import("json").attr("loads")(text); }

StackSettings stack_settings_from(py::handle settings) {
  if (settings.is_none()) return {};
  if (py::isinstance<py::str>(settings)) return StackSettings::from_json(settings.cast<std::string>(), "settings");
  if (!py::isinstance<py::dict>(settings)) fail_plain("settings: expected a dict with one section per deformer");
  return StackSettings::from_json(to_json(settings).dump(), "settings");
}

}  // namespace wobble::python

// The compiled part of the package `wobble` (python/wobble/__init__.py re-exports it).
PYBIND11_MODULE(_wobble, m) {
  namespace py = pybind11;
  using namespace wobble::python;
  m.doc() = "wobble: secondary motion and better deformation for skinned characters (numpy in and out)";
  m.attr("__version__") = WOBBLE_VERSION;

  static py::exception<wobble::Error> error(m, "Error", PyExc_ValueError);
  py::register_exception_translator([](std::exception_ptr pointer) {
    try {
      if (pointer) std::rethrow_exception(pointer);
    } catch (const wobble::Error& e) {
      error(e.what());
    } catch (const nlohmann::json::exception& e) {
      // A settings value of the wrong type (e.g. a string where a number belongs).
      error((std::string("settings: ") + e.what()).c_str());
    }
  });

  // The runtime's warnings go to spdlog, whose level set_log_level() sets.
  wobble::set_warning_sink([](std::string_view message) { spdlog::warn("{}", message); });
  m.def(
      "set_log_level",
      [](const std::string& level) {
        const auto parsed = spdlog::level::from_str(level);
        if (parsed == spdlog::level::off && level != "off") {
          wobble::fail_plain("set_log_level: unknown level '{}' (trace, debug, info, warn, error, off)", level);
        }
        spdlog::set_level(parsed);
      },
      py::arg("level"), "Log level of wobble's messages (repairs while loading are warnings): info, warn, error, off.");

  bind_character(m);
  bind_pose(m);
  bind_stack(m);
  bind_dynamic_skinning(m);
  bind_delta_mush(m);
  bind_physics(m);
  bind_rig_simulation(m);
  bind_helper_bones(m);
}
