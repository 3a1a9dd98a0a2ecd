// Python bindings of deformer stacks and bakes: wobble.Stack (frame by frame, from a clip or
// from poses given one at a time), wobble.bake (a clip at a fixed frame rate, as `wobble bake`)
// and PC2 point caches. Stack strings and settings keys are the CLI's (--deformer, --settings).
#include <cmath>
#include <memory>
#include <optional>

#include <pybind11/functional.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <wobble/offline/bake.hpp>
#include <wobble/offline/bake_motion.hpp>
#include <wobble/deformer.hpp>
#include <wobble/dynamic_skinning.hpp>
#include <wobble/error.hpp>
#include <wobble/io/files.hpp>
#include <wobble/parallel.hpp>

#include "bindings.hpp"
#include "core/fail.hpp"

namespace wobble::python {

namespace {

std::optional<std::size_t> optional_clip(const Character& character, py::handle clip) {
  if (clip.is_none()) return std::nullopt;
  return clip_index(character, clip);
}

// A bound deformer stack with its output buffers and threads.
struct Stack {
  std::shared_ptr<const Character> character;
  DeformerStack stack;
  std::unique_ptr<ThreadPool> pool;
  std::vector<Vec3f> positions, normals;
};

std::unique_ptr<Stack> make_stack(std::shared_ptr<Character> character, const std::string& spec, py::handle settings,
                                  std::size_t threads) {
  auto stack = std::make_unique<Stack>();
  stack->character = std::move(character);
  stack->stack = DeformerStack::parse(spec, stack_settings_from(settings));
  stack->stack.bind(*stack->character);
  if (threads != 1) stack->pool = std::make_unique<ThreadPool>(threads);
  return stack;
}

// A host's pose sampler (pose_at(t) -> wobble.Pose) as the deformers' PoseSampler; called on this thread.
PoseSampler host_sampler(const Character& character, py::handle pose_at) {
  if (!PyCallable_Check(pose_at.ptr()))
    fail_plain("Stack.evaluate: pose_at must be a function of the time (s) returning a Pose");
  return [&character, sampler = py::reinterpret_borrow<py::object>(pose_at)](double t, Pose& other) {
    py::gil_scoped_acquire acquire;
    const py::object result = sampler(t);  // keeps the Pose alive while it is copied
    const Pose& sampled = result.cast<const Pose&>();
    if (sampled.world.size() != character.rig.joint_count()) {
      fail_plain("Stack.evaluate: pose_at({}) gave a pose of {} joints, the character has {}", t, sampled.world.size(),
                 character.rig.joint_count());
    }
    other = sampled;
  };
}

// Stack.update: the new settings, and which deformers they rebind (a host restarts its history then).
std::vector<std::string> update_stack(Stack& self, py::handle settings) {
  const StackSettings next = stack_settings_from(settings);
  std::vector<std::string> rebound;
  for (const StackEntry& entry : self.stack.description().entries()) {
    const std::string& name = entry.deformer->name;
    if (next.get(name).bind_differs(self.stack.settings().get(name))) rebound.push_back(name);
  }
  self.stack.update(next);
  return rebound;
}

py::array_t<float> evaluate(Stack& self, const Pose& pose, double time, py::handle clip, py::handle out,
                            py::handle pose_at) {
  const Character& character = *self.character;
  if (!clip.is_none() && !pose_at.is_none()) fail_plain("Stack.evaluate: give the clip or pose_at, not both");
  if (pose.skinning.size() != character.rig.joint_count()) {
    fail_plain("Stack.evaluate: the pose has {} joints, the character {}", pose.skinning.size(),
               character.rig.joint_count());
  }
  const std::optional<std::size_t> clip_index = optional_clip(character, clip);
  py::array_t<float> result =
      out.is_none() ? py::array_t<float>({static_cast<py::ssize_t>(character.mesh.vertex_count()), py::ssize_t{3}})
                    : require_float_rows(out, static_cast<py::ssize_t>(character.mesh.vertex_count()), 3,
                                         "Stack.evaluate: out", true);
  {
    py::gil_scoped_release release;
    FrameInput frame{character, pose, time, {}, self.pool.get()};
    if (clip_index) {
      frame.pose_at = clip_sampler(character.rig, character.clips[*clip_index]);
    } else if (!pose_at.is_none()) {
      py::gil_scoped_acquire acquire;
      frame.pose_at = host_sampler(character, pose_at);
    }
    self.stack.evaluate(frame, self.positions, self.normals);
  }
  std::memcpy(result.mutable_data(), self.positions.data(), self.positions.size() * sizeof(Vec3f));
  return result;
}

void start_periodic(Stack& self, double cycle_start, double period, py::handle clip, py::handle pose_at,
                    std::optional<double> clip_time) {
  const Character& character = *self.character;
  if (clip.is_none() == pose_at.is_none()) fail_plain("Stack.start_periodic: give the clip or pose_at");
  PoseSampler sampler;
  if (!clip.is_none()) {
    const Clip& source = character.clips[clip_index(character, clip)];
    // The clip's poses over [cycle_start, cycle_start + period), repeated.
    sampler = [&character, &source, cycle_start, period](double t, Pose& other) {
      const double phase = t - cycle_start - std::floor((t - cycle_start) / period) * period;
      evaluate_pose(character.rig, &source, static_cast<float>(cycle_start + phase), other);
    };
  } else {
    sampler = host_sampler(character, pose_at);
  }
  py::gil_scoped_release release;
  self.stack.start_periodic(sampler, cycle_start, period, clip_time.value_or(std::nan("")));
}

BakeOptions bake_options(const Character& character, py::handle clip, const std::string& stack, py::handle settings,
                         double fps, std::optional<double> start, std::optional<double> end, bool loop,
                         std::optional<double> loop_period, bool loop_force, py::handle pre_roll) {
  BakeOptions options;
  options.motion.loop = loop || loop_force || loop_period.has_value();
  options.motion.cycle.force = loop_force;
  if (loop_period) options.motion.cycle.period = *loop_period;
  options.motion.pre_roll = PreRoll::parse(py::str(pre_roll).cast<std::string>(), "bake: pre_roll");
  options.clip = character.require_clip(py::str(clip).cast<std::string>());
  options.fps = fps;
  options.start = start;
  options.end = end;
  options.stack = StackDescription::parse(stack);
  options.settings = stack_settings_from(settings);
  return options;
}

// (times (F,) float64, positions (F, N, 3) float32) of a bake.
py::tuple bake_arrays(const Character& character, const BakeOptions& options, const BakedFrames& baked) {
  const auto frames = static_cast<py::ssize_t>(baked.times.size());
  const auto vertices = static_cast<py::ssize_t>(character.mesh.vertex_count());
  // The exact (double) frame times the bake used; BakedFrames keeps them as float.
  const std::vector<double> exact = bake_frame_times(character, options);
  py::array_t<double> times(frames);
  std::copy(exact.begin(), exact.end(), times.mutable_data());
  py::array_t<float> positions({frames, vertices, py::ssize_t{3}});
  for (py::ssize_t f = 0; f < frames; ++f) {
    std::memcpy(positions.mutable_data(f), baked.positions[f].data(), baked.positions[f].size() * sizeof(Vec3f));
  }
  return py::make_tuple(times, positions);
}

py::tuple bake_clip(const std::shared_ptr<Character>& character, py::handle clip, const std::string& stack,
                    py::handle settings, double fps, std::optional<double> start, std::optional<double> end,
                    std::size_t threads, const std::function<void(std::size_t, std::size_t)>& progress, bool loop,
                    std::optional<double> loop_period, bool loop_force, py::handle pre_roll, py::handle helper_bones,
                    py::handle helper_influences, py::handle helper_settings) {
  BakeOptions options =
      bake_options(*character, clip, stack, settings, fps, start, end, loop, loop_period, loop_force, pre_roll);
  const auto helpers = helper_bone_parameters(helper_bones, helper_influences, helper_settings);  // before the work
  BakedFrames baked;
  {
    py::gil_scoped_release release;
    ThreadPool pool(threads);
    options.pool = &pool;
    if (progress) {
      options.progress = [&progress](std::size_t done, std::size_t total) {
        py::gil_scoped_acquire acquire;
        progress(done, total);
      };
    }
    baked = bake(*character, options);
  }
  py::tuple arrays = bake_arrays(*character, options, baked);
  if (!helpers) return arrays;
  return py::make_tuple(arrays[0], arrays[1],
                        helper_bones_object(*character, options.clip, baked, *helpers, options.motion.loop, threads));
}

void write_pc2_array(const std::filesystem::path& path, py::handle positions_in, double fps, double start) {
  auto positions = py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(positions_in);
  if (!positions || positions.ndim() != 3 || positions.shape(2) != 3)
    fail(path, "positions: expected shape (frames, vertices, 3)");
  BakedFrames baked;
  const auto frames = static_cast<std::size_t>(positions.shape(0));
  const auto vertices = static_cast<std::size_t>(positions.shape(1));
  for (std::size_t f = 0; f < frames; ++f) {
    baked.times.push_back(static_cast<float>(start + static_cast<double>(f) / fps));
    const float* data = positions.data(static_cast<py::ssize_t>(f));
    baked.positions.emplace_back(vertices);
    std::memcpy(static_cast<void*>(baked.positions.back().data()), data, vertices * sizeof(Vec3f));
  }
  write_pc2(path, baked, static_cast<float>(fps));
}

py::array_t<float> read_pc2_array(const std::filesystem::path& path) {
  const auto frames = read_pc2(path);
  const auto vertices = static_cast<py::ssize_t>(frames.empty() ? 0 : frames.front().size());
  py::array_t<float> out({static_cast<py::ssize_t>(frames.size()), vertices, py::ssize_t{3}});
  for (std::size_t f = 0; f < frames.size(); ++f) {
    std::memcpy(out.mutable_data(static_cast<py::ssize_t>(f)), frames[f].data(), frames[f].size() * sizeof(Vec3f));
  }
  return out;
}

}  // namespace

void bind_stack(py::module_& m) {
  py::class_<Stack>(m, "Stack",
                    "A deformer stack bound to a character ('lbs', 'lbs,dynamic', 'dlbs,dynamic,deltamush', ...; "
                    "settings as the CLI's --settings file: {'dynamic': {'frequency': 2}}).")
      .def(py::init(&make_stack), py::arg("character"), py::arg("stack") = "lbs", py::arg("settings") = py::none(),
           py::arg("threads") = 1, py::keep_alive<1, 2>())
      .def("evaluate", &evaluate, py::arg("pose"), py::arg("time"), py::arg("clip") = py::none(),
           py::arg("out") = py::none(), py::arg("pose_at") = py::none(),
           "Deformed positions (N, 3) float32 for the pose at `time` (s). With `clip` (name or index) effects may "
           "sample the clip at other times (as wobble bake does), or with `pose_at` (a function of the time returning "
           "a Pose: a host's own animation, e.g. Blender's rig at sub-frames); without either they use the poses given "
           "so far. `out`: a float32 (N, 3) array to fill instead of a new one.")
      .def(
          "reset", [](Stack& s) { s.stack.reset(); }, "Forgets the history (the next frame starts afresh).")
      .def("start_periodic", &start_periodic, py::arg("cycle_start"), py::arg("period"), py::arg("clip") = py::none(),
           py::arg("pose_at") = py::none(), py::arg("clip_time") = py::none(),
           "Seamless loops: starts the history in the periodic steady state of a cycle of `period` s from "
           "`cycle_start` (Dynamic Skinning's, exactly, with the parameters at the cycle's start: keyed ones at "
           "`clip_time`, default cycle_start); the motion is the clip's, wrapped, or pose_at(t) (the cycle repeated "
           "forever). Evaluate the frames from cycle_start on.")
      .def("update", &update_stack, py::arg("settings"),
           "New settings (the same form as the constructor's) between frames: live parameters keep the motion's "
           "history; a deformer whose bind parameters changed is rebound. Returns the names of the rebound "
           "deformers (empty: every deformer kept its state).")
      .def_property_readonly(
          "settings", [](const Stack& s) { return json_to_python(s.stack.settings().to_json()); },
          "The settings in use, as a dict (only what differs from the defaults).")
      .def_property_readonly("spec", [](const Stack& s) { return s.stack.spec(); })
      .def_property_readonly("character",
                             [](const Stack& s) { return std::const_pointer_cast<Character>(s.character); });

  m.def(
      "deformers", [] { return json_to_python(deformer_descriptions_json()); },
      "Every deformer's description, as `wobble deformers --json`: name, stage, summary and parameters (key, flag, "
      "type, unit, default, minimum, maximum, soft_minimum, soft_maximum, choices, lifetime, help, fields).");
  m.def("bake", &bake_clip, py::arg("character"), py::arg("clip"), py::arg("stack") = "lbs",
        py::arg("settings") = py::none(), py::arg("fps") = 60.0, py::arg("start") = py::none(),
        py::arg("end") = py::none(), py::arg("threads") = 0, py::arg("progress") = nullptr, py::arg("loop") = false,
        py::arg("loop_period") = py::none(), py::arg("loop_force") = false, py::arg("pre_roll") = "hold",
        py::arg("helper_bones") = py::none(), py::arg("helper_influences") = py::none(),
        py::arg("helper_settings") = py::none(),
        "Bakes a clip as `wobble bake` does: returns (times (F,) float64, positions (F, N, 3) float32, world space). "
        "progress(done, total) is called after each frame. loop, loop_period, loop_force and pre_roll ('hold' or "
        "seconds) as --loop, --loop-period, --loop-force and --pre-roll (a loop bakes one cycle, both ends, by "
        "default). helper_bones=N (as --helper-bones; helper_influences as --helper-influences, helper_settings a "
        "dict of the other --helper-* settings: {'iterations': 20}) returns (times, positions, wobble.HelperBones): "
        "the motion as N helper joints that plain skinning plays.");
  m.def("write_pc2", &write_pc2_array, py::arg("path"), py::arg("positions"), py::arg("fps"), py::arg("start") = 0.0,
        "Writes positions (F, N, 3) as a PC2 point cache (frame k at time start + k / fps), atomically.");
  m.def("read_pc2", &read_pc2_array, py::arg("path"), "Reads a PC2 point cache: (F, N, 3) float32.");
}

}  // namespace wobble::python
