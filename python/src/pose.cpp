// Python bindings of poses: the per-joint local transforms and the world and skinning matrices
// of one instant, from a clip (Character.pose) or from a host's world matrices (Pose.from_world).
#include <memory>

#include <wobble/character.hpp>
#include <wobble/error.hpp>
#include <wobble/pose.hpp>

#include "bindings.hpp"

namespace wobble::python {

namespace {

// A pose whose world matrices come from elsewhere (an animation package): local transforms
// relative to the parents for the effects that read joint motion, skinning = world * inverse bind.
Pose pose_from_world(const Character& character, py::handle world_in) {
  const Rig& rig = character.rig;
  Pose pose;
  pose.resize(rig.joint_count());
  pose.world = read_mat4(world_in, static_cast<py::ssize_t>(rig.joint_count()), "Pose.from_world: world");
  for (std::size_t j = 0; j < rig.joint_count(); ++j) {
    const int parent = rig.parents[j];
    const Mat4f local = parent < 0 ? pose.world[j] : Mat4f(pose.world[parent].inverse() * pose.world[j]);
    pose.local[j] = Transform::from_matrix(local);
    pose.skinning[j] = pose.world[j] * rig.inverse_bind[j];
  }
  return pose;
}

py::array_t<float> local_part(const Pose& pose, int part) {
  const int width = part == 1 ? 4 : 3;
  py::array_t<float> out({static_cast<py::ssize_t>(pose.local.size()), static_cast<py::ssize_t>(width)});
  float* data = out.mutable_data();
  for (const Transform& t : pose.local) {
    if (part == 0) data = std::copy(t.translation.data(), t.translation.data() + 3, data);
    if (part == 1) data = std::copy(t.rotation.coeffs().data(), t.rotation.coeffs().data() + 4, data);
    if (part == 2) data = std::copy(t.scale.data(), t.scale.data() + 3, data);
  }
  return out;
}

}  // namespace

void bind_pose(py::module_& m) {
  py::class_<Pose>(m, "Pose", "One instant of the skeleton. Matrix properties are read-only views.")
      .def_property_readonly("joint_count", [](const Pose& p) { return p.world.size(); })
      .def_property_readonly(
          "world", [](py::object self) { return mat4_view(self.cast<const Pose&>().world, self); },
          "joint -> model space, (J, 4, 4) float32")
      .def_property_readonly(
          "skinning", [](py::object self) { return mat4_view(self.cast<const Pose&>().skinning, self); },
          "bind space -> model space (world * inverse bind), (J, 4, 4) float32")
      .def_property_readonly(
          "local_translations", [](const Pose& p) { return local_part(p, 0); }, "(J, 3), a copy")
      .def_property_readonly(
          "local_rotations", [](const Pose& p) { return local_part(p, 1); },
          "unit quaternions x, y, z, w, (J, 4), a copy")
      .def_property_readonly(
          "local_scales", [](const Pose& p) { return local_part(p, 2); }, "(J, 3), a copy")
      .def_static("from_world", &pose_from_world, py::arg("character"), py::arg("world"),
                  "A pose from world (model-space) matrices, (J, 4, 4), one per joint of the character.");
}

}  // namespace wobble::python
