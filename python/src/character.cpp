// Python bindings of characters: wobble.load, wobble.Character (numpy views of the mesh, rig and
// skin, kept alive by the character) and Character.from_arrays for hosts that hold their own
// data (the Blender add-on).
#include <memory>

#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <wobble/character.hpp>
#include <wobble/error.hpp>
#include <wobble/io/files.hpp>
#include <wobble/pose.hpp>

#include "bindings.hpp"
#include "core/fail.hpp"

namespace wobble::python {

namespace {

using CharacterPtr = std::shared_ptr<Character>;

py::ssize_t ssize(std::size_t n) { return static_cast<py::ssize_t>(n); }

template <typename T>
py::array flat_view(const std::vector<T>& values, py::handle owner) {
  return view(values.data(), {ssize(values.size())}, {ssize(sizeof(T))}, owner);
}

// A character built from arrays: bind-space positions, triangles, joints given by their
// bind-pose world matrices (rest pose = bind pose), skin as compressed rows.
CharacterPtr from_arrays(py::handle positions_in, py::handle triangles_in, const std::vector<std::string>& names,
                         const std::vector<int>& parents, py::handle bind_world_in, py::handle offsets_in,
                         py::handle joints_in, py::handle weights_in, const std::string& name) {
  auto character = std::make_shared<Character>();
  character->source = name;
  const auto positions = as_float_rows(positions_in, -1, 3, name + ": positions");
  auto triangles = py::array_t<std::uint32_t, py::array::c_style | py::array::forcecast>::ensure(triangles_in);
  if (!triangles || triangles.ndim() != 2 || triangles.shape(1) != 3) fail(name, "triangles: expected shape (M, 3)");
  Mesh& mesh = character->mesh;
  mesh.positions.resize(static_cast<std::size_t>(positions.shape(0)));
  std::memcpy(static_cast<void*>(mesh.positions.data()), positions.data(), mesh.positions.size() * sizeof(Vec3f));
  mesh.triangles.resize(static_cast<std::size_t>(triangles.shape(0)));
  std::memcpy(mesh.triangles.data(), triangles.data(), mesh.triangles.size() * sizeof(Triangle));
  for (const Triangle& t : mesh.triangles) {
    for (std::uint32_t v : t) {
      if (v >= mesh.positions.size())
        fail(name, "triangle index {} is out of range ({} vertices)", v, mesh.positions.size());
    }
  }
  mesh.primitives.push_back({name, 0, 0, 0, static_cast<std::uint32_t>(mesh.positions.size()), 0,
                             static_cast<std::uint32_t>(mesh.triangles.size()), -1});
  mesh.compute_normals();

  if (parents.size() != names.size()) fail(name, "{} joint names but {} parents", names.size(), parents.size());
  const std::vector<Mat4f> bind_world = read_mat4(bind_world_in, ssize(names.size()), name + ": bind matrices");
  for (std::size_t j = 0; j < names.size(); ++j) {
    const int parent = parents[j];
    if (parent >= static_cast<int>(j) || parent < -1) {
      fail(name, "joint {} ('{}'): parent {} must be -1 or an earlier joint", j, names[j], parent);
    }
    const Mat4f local = parent < 0 ? bind_world[j] : Mat4f(bind_world[parent].inverse() * bind_world[j]);
    const Mat4f inverse_bind = bind_world[j].inverse();
    if (!inverse_bind.allFinite()) fail(name, "joint {} ('{}'): its bind matrix is not invertible", j, names[j]);
    character->rig.add_joint(names[j], parent, Transform::from_matrix(local), inverse_bind, true);
  }

  auto offsets = py::array_t<std::uint32_t, py::array::c_style | py::array::forcecast>::ensure(offsets_in);
  auto joints = py::array_t<std::uint32_t, py::array::c_style | py::array::forcecast>::ensure(joints_in);
  auto weights = py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(weights_in);
  if (!offsets || !joints || !weights || offsets.ndim() != 1 || joints.ndim() != 1 || weights.ndim() != 1) {
    fail(name, "skin: offsets, joints and weights must be one-dimensional arrays");
  }
  if (static_cast<std::size_t>(offsets.size()) != mesh.positions.size() + 1) {
    fail(name, "skin: {} offsets for {} vertices (expected vertices + 1)", offsets.size(), mesh.positions.size());
  }
  if (joints.size() != weights.size()) fail(name, "skin: {} joints but {} weights", joints.size(), weights.size());
  if (!names.empty()) {
    Skin skin;
    skin.offsets.clear();
    skin.offsets.push_back(0);
    std::vector<Influence> row;
    for (std::size_t v = 0; v < mesh.positions.size(); ++v) {
      const std::uint32_t begin = offsets.at(v), end = offsets.at(v + 1);
      if (begin > end || end > static_cast<std::uint32_t>(joints.size()))
        fail(name, "skin: offsets of vertex {} are out of order", v);
      row.clear();
      for (std::uint32_t k = begin; k < end; ++k) row.push_back({joints.at(k), weights.at(k)});
      skin.add_vertex(row);
    }
    // Vertices without weight follow joint 0 (give a static root there to keep them at rest).
    skin.normalize(names.size(), 0, character->diagnostics, character->source);
    character->skin = std::move(skin);
  }
  character->check();
  return character;
}

}  // namespace

std::size_t clip_index(const Character& character, py::handle clip) {
  if (py::isinstance<py::int_>(clip)) {
    const long long index = clip.cast<long long>();
    if (index < 0 || static_cast<std::size_t>(index) >= character.clips.size()) {
      fail(character.source, "has no clip {} (it has {})", index, character.clips.size());
    }
    return static_cast<std::size_t>(index);
  }
  return character.require_clip(clip.cast<std::string>());
}

void bind_character(py::module_& m) {
  py::class_<Clip>(m, "Clip", "An animation clip (read-only).")
      .def_readonly("name", &Clip::name)
      .def_property_readonly("start", &Clip::start, "first key time, s")
      .def_property_readonly("end", &Clip::end, "last key time, s")
      .def_property_readonly("duration", &Clip::duration, "s")
      .def_property_readonly("key_count", &Clip::key_count)
      .def_property_readonly("channel_count", [](const Clip& c) { return c.channels.size(); })
      .def("__repr__",
           [](const Clip& c) { return "<wobble.Clip '" + c.name + "' " + std::to_string(c.duration()) + " s>"; });

  py::class_<Character, CharacterPtr>(m, "Character",
                                      "A character: mesh, rig, skin and clips. Array properties are read-only numpy "
                                      "views of the character's own buffers (no copies).")
      .def_property_readonly("source", [](const Character& c) { return c.source.string(); })
      .def_property_readonly(
          "positions", [](py::object self) { return vec3_view(self.cast<const Character&>().mesh.positions, self); },
          "bind-space vertex positions, (N, 3) float32")
      .def_property_readonly(
          "normals", [](py::object self) { return vec3_view(self.cast<const Character&>().mesh.normals, self); },
          "bind-space normals, (N, 3) float32 (empty when the file had none)")
      .def_property_readonly(
          "uvs",
          [](py::object self) {
            const auto& uvs = self.cast<const Character&>().mesh.uvs;
            return view(uvs.empty() ? nullptr : uvs.front().data(), {ssize(uvs.size()), 2},
                        {ssize(sizeof(Vec2f)), ssize(sizeof(float))}, self);
          },
          "TEXCOORD_0, (N, 2) float32 (empty when absent)")
      .def_property_readonly(
          "triangles",
          [](py::object self) {
            const auto& t = self.cast<const Character&>().mesh.triangles;
            return view(t.empty() ? nullptr : t.front().data(), {ssize(t.size()), 3},
                        {ssize(sizeof(Triangle)), ssize(sizeof(std::uint32_t))}, self);
          },
          "vertex indices, (M, 3) uint32")
      .def_property_readonly("vertex_count", [](const Character& c) { return c.mesh.vertex_count(); })
      .def_property_readonly("triangle_count", [](const Character& c) { return c.mesh.triangle_count(); })
      .def_property_readonly(
          "size", [](const Character& c) { return c.mesh.size(); },
          "character size L: diagonal of the bind-pose bounding box")
      .def_property_readonly(
          "vertex_scalars",
          [](py::object self) {
            py::dict out;
            for (const auto& [key, values] : self.cast<const Character&>().mesh.vertex_scalars) {
              out[py::str(key)] = flat_view(values, self);
            }
            return out;
          },
          "per-vertex scalar attributes by name (e.g. _BEND_WEIGHT), float32 views")
      .def_property_readonly("joint_names", [](const Character& c) { return c.rig.names; })
      .def_property_readonly("joint_count", [](const Character& c) { return c.rig.joint_count(); })
      .def_property_readonly(
          "parents", [](py::object self) { return flat_view(self.cast<const Character&>().rig.parents, self); },
          "parent of each joint (-1 for roots; parents come first), int32")
      .def_property_readonly(
          "skinned_joints",
          [](const Character& c) { return std::vector<bool>(c.rig.skinned.begin(), c.rig.skinned.end()); })
      .def_property_readonly(
          "inverse_bind",
          [](py::object self) { return mat4_view(self.cast<const Character&>().rig.inverse_bind, self); },
          "bind space -> joint space, (J, 4, 4) float32")
      .def_property_readonly(
          "skin",
          [](py::object self) {
            const Skin& s = self.cast<const Character&>().skin;
            return py::make_tuple(flat_view(s.offsets, self), flat_view(s.joints, self), flat_view(s.weights, self));
          },
          "(offsets, joints, weights): the influences of vertex v are [offsets[v], offsets[v+1])")
      .def_property_readonly("clips", [](const Character& c) { return c.clips; })
      .def_property_readonly("clip_names",
                             [](const Character& c) {
                               std::vector<std::string> names;
                               for (const Clip& clip : c.clips) names.push_back(clip.name);
                               return names;
                             })
      .def_property_readonly(
          "diagnostics",
          [](const Character& c) {
            py::list out;
            for (const Repair& r : c.diagnostics.repairs()) out.append(py::make_tuple(r.kind, r.message, r.count));
            return out;
          },
          "repairs made while loading: (kind, message, count)")
      .def_property_readonly("is_skinned", &Character::is_skinned)
      .def(
          "find_clip", [](const Character& c, py::handle clip) { return clip_index(c, clip); }, py::arg("clip"),
          "index of a clip given by name or index; raises wobble.Error listing the clips")
      .def(
          "pose",
          [](const Character& c, py::handle clip, double t) {
            Pose pose;
            evaluate_pose(c.rig, &c.clips[clip_index(c, clip)], static_cast<float>(t), pose);
            return pose;
          },
          py::arg("clip"), py::arg("time"), "the pose of a clip (name or index) at a time in seconds")
      .def(
          "rest_pose",
          [](const Character& c) {
            Pose pose;
            evaluate_pose(c.rig, nullptr, 0.0f, pose);
            return pose;
          },
          "the rest pose")
      .def_static("from_arrays", &from_arrays, py::arg("positions"), py::arg("triangles"), py::arg("joint_names"),
                  py::arg("parents"), py::arg("bind_matrices"), py::arg("skin_offsets"), py::arg("skin_joints"),
                  py::arg("skin_weights"), py::arg("name") = "arrays",
                  "A character from arrays: positions (N, 3) in bind space, triangles (M, 3), joints with parents "
                  "(-1 or an earlier joint) and bind-pose world matrices (J, 4, 4; the rest pose), skin as compressed "
                  "rows. Weights are normalised; vertices without weight follow joint 0.")
      .def("__repr__", [](const Character& c) {
        return "<wobble.Character '" + c.source.string() + "': " + std::to_string(c.mesh.vertex_count()) +
               " vertices, " + std::to_string(c.rig.joint_count()) + " joints, " + std::to_string(c.clips.size()) +
               " clips>";
      });

  m.def(
      "load", [](const std::filesystem::path& path) { return std::make_shared<Character>(load_character(path)); },
      py::arg("path"), "Reads a character (glTF, FBX, Collada, OBJ, OFF, ...); raises wobble.Error naming the file.");
}

}  // namespace wobble::python
