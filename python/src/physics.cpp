// Python binding of the PhysSkin++ runtime (`wobble simulate`): a Simulation built from a shape
// (the CLI's quick flags) or a scene (SCENE.json, or the same keys as a dict), whose subspace
// (skinning eigenmodes or skin weights) is built on construction, advanced frame by frame.
// Positions come out as float32 (N, 3) copies (every object's points in object order, as the
// CLI writes them); the GIL is released while the subspace is built and while steps run.
#include <cctype>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>

#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <wobble/error.hpp>
#include <wobble/physics/scene.hpp>

#include "bindings.hpp"
#include "core/fail.hpp"
#include "neural_subspace.hpp"

namespace wobble::python {

namespace {

using physics::Body;
using physics::QuickSceneOptions;
using physics::Scene;
using physics::SceneObject;

struct Simulation {
  Scene scene;
  int frame = 0;  // frames advanced since construction

  std::size_t point_count() const { return scene.point_count(); }
  // Every object's current points, exactly as `wobble simulate` records a frame.
  void positions_into(float* out) const {
    const std::vector<Vec3f> points = scene.frame_points();
    std::memcpy(out, points.data(), points.size() * sizeof(Vec3f));
  }
  const SceneObject& object(std::size_t index) const {
    if (index >= scene.objects.size())
      fail_plain("Simulation: object {} does not exist ({} objects)", index, scene.objects.size());
    return scene.objects[index];
  }
};

bool is_json(const std::filesystem::path& path) {
  std::string e = path.extension().string();
  for (char& c : e) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return e == ".json";
}

std::unique_ptr<Simulation> from_shape(const std::filesystem::path& input, std::optional<double> floor,
                                       const std::string& subspace,
                                       const std::optional<std::filesystem::path>& neural_model,
                                       const py::kwargs& settings) {
  if (is_json(input)) fail(input, "is a scene: use wobble.Simulation.from_scene (a scene carries its own settings)");
  QuickSceneOptions q;
  q.settings = physics_settings(settings, "Simulation", physics::acts_on_shape);
  q.floor = floor;
  q.field_source = subspace_fields(subspace, neural_model, false, "Simulation");
  auto sim = std::make_unique<Simulation>();
  py::gil_scoped_release release;
  sim->scene = physics::quick_scene(input, q);
  return sim;
}

std::unique_ptr<Simulation> from_scene(py::handle scene, const std::filesystem::path& base) {
  auto sim = std::make_unique<Simulation>();
  if (py::isinstance<py::dict>(scene)) {
    // Files named in the dict are relative to `base` (as they are to a scene file's folder).
    const nlohmann::json json = to_json(scene);
    const std::filesystem::path file = base / "scene.json";
    py::gil_scoped_release release;
    sim->scene = physics::scene_from_json(json, file);
    return sim;
  }
  std::filesystem::path path;
  try {
    path = scene.cast<std::filesystem::path>();
  } catch (const py::cast_error&) {
    fail_plain("Simulation.from_scene: expected a SCENE.json path or a dict, got {}",
               std::string(py::str(scene.get_type())));
  }
  py::gil_scoped_release release;
  sim->scene = physics::load_scene(path);
  return sim;
}

}  // namespace

void bind_physics(py::module_& m) {
#ifdef WOBBLE_HAVE_NEURAL
  m.attr("has_neural") = true;
#else
  m.attr("has_neural") = false;
#endif
  py::class_<Simulation>(m, "Simulation",
                         "Reduced-order elastic dynamics (PhysSkin++ runtime, as `wobble simulate`). Build from a "
                         "shape with the CLI's settings, or from a scene with Simulation.from_scene; the subspace is "
                         "built on construction. advance() steps frames; positions are float32 (N, 3) copies.")
      .def(py::init(&from_shape), py::arg("shape"), py::kw_only(), py::arg("floor") = py::none(),
           py::arg("subspace") = "eigenmodes", py::arg("neural_model") = py::none(),
           ("A shape (OFF, OBJ, glTF, ...; or a 3DGS PLY) with `wobble simulate SHAPE`'s settings as keywords "
            "(docs/physics-parameters.md): pin and floor in normalised coordinates, gravity a 3-vector, a number "
            "along -y (m/s^2), or None for none. Builds the skinning eigenmodes (handles modes on a field_grid voxel "
            "grid), or with subspace='neural' the learned fields of neural_model (a .wfield file, or .pt with "
            "wobble.has_neural; default: the shipped model). Settings:" +
            physics_settings_doc(physics::acts_on_shape))
               .c_str())
      .def_static("from_scene", &from_scene, py::arg("scene"), py::arg("base") = std::filesystem::path("."),
                  "A SCENE.json path, or a dict with the same keys (files relative to `base`).")
      .def(
          "advance",
          [](Simulation& self, int frames) {
            if (frames < 0) fail_plain("Simulation.advance: frames must be >= 0, got {}", frames);
            py::gil_scoped_release release;
            for (int f = 0; f < frames; ++f) {
              self.scene.advance_frame();
              ++self.frame;
            }
          },
          py::arg("frames") = 1, "Advances `frames` frames (substeps time steps each).")
      .def(
          "run",
          [](Simulation& self, std::optional<int> frames_in) {
            const int frames = frames_in.value_or(self.scene.frames);
            if (frames < 1) fail_plain("Simulation.run: frames must be >= 1, got {}", frames);
            const auto n = static_cast<py::ssize_t>(self.point_count());
            py::array_t<float> out({static_cast<py::ssize_t>(frames), n, py::ssize_t{3}});
            float* data = out.mutable_data();
            {
              py::gil_scoped_release release;
              self.positions_into(data);
              for (int f = 1; f < frames; ++f) {
                self.scene.advance_frame();
                ++self.frame;
                self.positions_into(data + static_cast<std::size_t>(f) * n * 3);
              }
            }
            return out;
          },
          py::arg("frames") = py::none(),
          "(frames, N, 3) float32: the current positions, then after each of frames - 1 more frames (default: the "
          "scene's frame count). On a new Simulation this is exactly what `wobble simulate` writes.")
      .def_property_readonly(
          "positions",
          [](const Simulation& self) {
            py::array_t<float> out({static_cast<py::ssize_t>(self.point_count()), py::ssize_t{3}});
            float* data = out.mutable_data();
            py::gil_scoped_release release;
            self.positions_into(data);
            return out;
          },
          "Current positions of every object's points, (N, 3) float32, in object order (output frame).")
      .def(
          "object_positions",
          [](const Simulation& self, std::size_t object) {
            self.object(object);
            std::vector<Vec3f> p;
            for (const Vec3d& x : self.scene.positions(object)) p.push_back(x.cast<float>());
            return vec3_copy(p);
          },
          py::arg("object"), "Current positions of one object's points, (N_i, 3) float32.")
      .def(
          "weights",
          [](const Simulation& self, std::size_t object) {
            const SceneObject& o = self.object(object);
            if (o.body < 0) fail_plain("Simulation.weights: object {} is kinematic (no subspace)", object);
            const Body& body = self.scene.world.body(o.body);
            std::vector<Vec3d> normalised;
            for (const Vec3d& x : o.rest) normalised.push_back((x - o.position) / o.scale);
            const Eigen::MatrixXd W = body.field().evaluate(normalised, false).W;
            py::array_t<double> out({static_cast<py::ssize_t>(W.rows()), static_cast<py::ssize_t>(W.cols())});
            Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(out.mutable_data(),
                                                                                               W.rows(), W.cols()) = W;
            return out;
          },
          py::arg("object") = 0,
          "The subspace's skinning weights W_i at the object's rest points, (N_i, handles) float64.")
      .def(
          "z",
          [](const Simulation& self, std::size_t object) {
            const SceneObject& o = self.object(object);
            if (o.body < 0) fail_plain("Simulation.z: object {} is kinematic (no subspace)", object);
            const Eigen::VectorXd& z = self.scene.world.body(o.body).z();
            py::array_t<double> out(z.size());
            std::copy(z.data(), z.data() + z.size(), out.mutable_data());
            return out;
          },
          py::arg("object") = 0, "Reduced coordinates z (12 x handles, float64) of a deformable object.")
      .def_property_readonly(
          "triangles",
          [](const Simulation& self) {
            std::vector<Triangle> all;
            std::uint32_t first = 0;
            for (const SceneObject& o : self.scene.objects) {
              if (!o.gaussians)
                for (const Triangle& t : o.character.mesh.triangles)
                  all.push_back({t[0] + first, t[1] + first, t[2] + first});
              first += static_cast<std::uint32_t>(o.rest.size());
            }
            py::array_t<std::uint32_t> out({static_cast<py::ssize_t>(all.size()), py::ssize_t{3}});
            if (!all.empty()) std::memcpy(out.mutable_data(), all.data(), all.size() * sizeof(Triangle));
            return out;
          },
          "(M, 3) uint32 triangles of the mesh objects, indexing `positions`.")
      .def_property_readonly("object_count", [](const Simulation& self) { return self.scene.objects.size(); })
      .def_property_readonly("point_count", &Simulation::point_count)
      .def_property_readonly(
          "handles",
          [](const Simulation& self) {
            std::vector<int> h;
            for (const SceneObject& o : self.scene.objects)
              h.push_back(o.body >= 0 ? self.scene.world.body(o.body).handle_count() : 0);
            return h;
          },
          "Handles per object (0 for kinematic ones).")
      .def_property_readonly(
          "frame", [](const Simulation& self) { return self.frame; }, "Frames advanced so far.")
      .def_property_readonly(
          "time", [](const Simulation& self) { return self.scene.world.time(); }, "Simulated time (s).")
      .def_property_readonly("fps", [](const Simulation& self) { return self.scene.fps; })
      .def_property_readonly(
          "frames", [](const Simulation& self) { return self.scene.frames; }, "The scene's frame count.")
      .def_property_readonly("substeps", [](const Simulation& self) { return self.scene.substeps; })
      .def_property_readonly(
          "newton_iterations", [](const Simulation& self) { return self.scene.world.last_stats().iterations; },
          "Newton iterations of the last time step.");
}

}  // namespace wobble::python
