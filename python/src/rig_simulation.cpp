// Python binding of rig-complementary dynamics (`wobble simulate --rig CHARACTER --clip NAME`):
// the character's clip drives LBS, and an elastic displacement in a subspace complementary to the
// rig adds secondary motion (PhysSkin++ III-E). Frame f is at clip time start + f / fps; it takes
// `substeps` implicit steps toward poses sampled in between (one step on frame 0), as the CLI does,
// so run() on a new object is exactly what the CLI writes.
#include <cmath>
#include <cstring>
#include <filesystem>
#include <memory>

#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <wobble/error.hpp>
#include <wobble/io/files.hpp>
#include <wobble/physics/rig_complementary.hpp>
#include <wobble/pose.hpp>

#include "bindings.hpp"
#include "core/fail.hpp"
#include "neural_subspace.hpp"

namespace wobble::python {

namespace {

struct RigSimulation {
  std::shared_ptr<const Character> character;
  std::size_t clip = 0;
  double fps = 30;
  int substeps = 2;
  std::unique_ptr<physics::RigComplementary> dynamics;
  Pose pose;
  int frame = -1;  // the frame the state is at (-1 before the first step)

  const Clip& source() const { return character->clips[clip]; }
  double time_of(int f) const { return physics::clip_frame_time(source(), f, fps); }
  int frame_count() const { return physics::clip_frame_count(source(), fps); }
  // The next frame, on the schedule of `wobble simulate --rig`.
  void step_frame() {
    dynamics->step_clip_frame(source(), frame + 1, fps, substeps, pose);
    ++frame;
  }

  void positions_into(float* out) const {
    const std::vector<Vec3f> p = dynamics->vertex_positions(pose);
    std::memcpy(out, p.data(), p.size() * sizeof(Vec3f));
  }
  py::ssize_t vertex_count() const { return static_cast<py::ssize_t>(character->mesh.vertex_count()); }
};

std::shared_ptr<Character> character_from(py::handle given) {
  if (py::isinstance<Character>(given)) return given.cast<std::shared_ptr<Character>>();
  std::filesystem::path path;
  try {
    path = given.cast<std::filesystem::path>();
  } catch (const py::cast_error&) {
    fail_plain("RigSimulation: expected a wobble.Character or a file path, got {}",
               std::string(py::str(given.get_type())));
  }
  py::gil_scoped_release release;
  return std::make_shared<Character>(load_character(path));
}

std::unique_ptr<RigSimulation> make_rig_simulation(py::handle character_in, py::handle clip,
                                                   const std::string& subspace,
                                                   const std::optional<std::filesystem::path>& neural_model,
                                                   const py::kwargs& kwargs) {
  auto sim = std::make_unique<RigSimulation>();
  const std::shared_ptr<Character> character = character_from(character_in);
  sim->character = character;
  sim->clip = clip_index(*character, clip);
  const physics::Settings settings = physics_settings(kwargs, "RigSimulation", physics::acts_on_rig);
  sim->fps = settings.fps;
  sim->substeps = settings.substeps;
  physics::RigComplementaryOptions options = physics::rig_options(settings);
  if (const MeshFields learned = subspace_fields(subspace, neural_model, true, "RigSimulation")) {
    // Learned rig-complementary fields without the constant column span the subspace.
    options.fields = learned(character->mesh, false);
  }
  py::gil_scoped_release release;
  sim->dynamics = std::make_unique<physics::RigComplementary>(*sim->character, options);
  sim->step_frame();  // frame 0: the history starts at the clip's first pose
  return sim;
}

}  // namespace

void bind_rig_simulation(py::module_& m) {
  py::class_<RigSimulation>(m, "RigSimulation",
                            "Rig-complementary dynamics on a character's clip, as `wobble simulate --rig CHARACTER "
                            "--clip CLIP`: LBS plus elastic secondary motion in a subspace complementary to the rig. "
                            "Starts at frame 0 (the clip's start); advance() steps frames of 1 / fps.")
      .def(py::init(&make_rig_simulation), py::arg("character"), py::arg("clip") = 0, py::kw_only(),
           py::arg("subspace") = "eigenmodes", py::arg("neural_model") = py::none(),
           ("character: a wobble.Character or a file; clip: name or index. The settings of `wobble simulate --rig` "
            "as keywords (docs/physics-parameters.md; rig_inertia=False is --rig-inertia false). Builds the "
            "complementary subspace on construction: constrained skinning eigenmodes, or with subspace='neural' "
            "learned rig-complementary fields (neural_model: a .wfield file, or .pt with wobble.has_neural; default: "
            "the one trained on clonk). Settings:" +
            physics_settings_doc(physics::acts_on_rig))
               .c_str())
      .def(
          "advance",
          [](RigSimulation& self, int frames) {
            if (frames < 0) fail_plain("RigSimulation.advance: frames must be >= 0, got {}", frames);
            py::gil_scoped_release release;
            for (int f = 0; f < frames; ++f) self.step_frame();
          },
          py::arg("frames") = 1, "Advances `frames` frames (substeps implicit steps each).")
      .def(
          "run",
          [](RigSimulation& self, std::optional<int> frames_in) {
            const int frames = frames_in.value_or(self.frame_count());
            if (frames < 1) fail_plain("RigSimulation.run: frames must be >= 1, got {}", frames);
            const py::ssize_t n = self.vertex_count();
            py::array_t<float> out({static_cast<py::ssize_t>(frames), n, py::ssize_t{3}});
            float* data = out.mutable_data();
            py::gil_scoped_release release;
            self.positions_into(data);
            for (int f = 1; f < frames; ++f) {
              self.step_frame();
              self.positions_into(data + static_cast<std::size_t>(f) * n * 3);
            }
            return out;
          },
          py::arg("frames") = py::none(),
          "(frames, N, 3) float32 world positions: the current frame, then each of frames - 1 more (default: the "
          "CLI's frame count). On a new object this is exactly what `wobble simulate --rig` writes.")
      .def_property_readonly(
          "positions",
          [](const RigSimulation& self) {
            py::array_t<float> out({self.vertex_count(), py::ssize_t{3}});
            float* data = out.mutable_data();
            py::gil_scoped_release release;
            self.positions_into(data);
            return out;
          },
          "World positions of the mesh's vertices at the current frame, (N, 3) float32 (LBS + the complementary "
          "displacement).")
      .def_property_readonly(
          "z",
          [](const RigSimulation& self) {
            const Eigen::VectorXd& z = self.dynamics->body().z();
            py::array_t<double> out(z.size());
            std::copy(z.data(), z.data() + z.size(), out.mutable_data());
            return out;
          },
          "Reduced coordinates z of the complementary displacement (float64).")
      .def_property_readonly("handles", [](const RigSimulation& self) { return self.dynamics->body().handle_count(); })
      .def_property_readonly(
          "complementarity", [](const RigSimulation& self) { return self.dynamics->complementarity().relative; },
          "||J_rig^T B|| / (||J_rig|| ||B||): 0 when the subspace is exactly complementary to the rig.")
      .def_property_readonly(
          "frame", [](const RigSimulation& self) { return self.frame; }, "The current frame.")
      .def_property_readonly(
          "time", [](const RigSimulation& self) { return self.time_of(self.frame); },
          "Clip time of the current frame (s).")
      .def_property_readonly("frames", &RigSimulation::frame_count,
                             "`wobble simulate --rig`'s frame count for the clip.")
      .def_property_readonly("fps", [](const RigSimulation& self) { return self.fps; })
      .def_property_readonly("substeps", [](const RigSimulation& self) { return self.substeps; })
      .def_property_readonly("clip", [](const RigSimulation& self) { return self.source().name; })
      .def_property_readonly(
          "character", [](const RigSimulation& self) { return std::const_pointer_cast<Character>(self.character); });
}

}  // namespace wobble::python
