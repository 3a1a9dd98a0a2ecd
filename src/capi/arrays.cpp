#include "capi/arrays.hpp"

#include <cmath>
#include <cstring>
#include <string>

#include <wobble/error.hpp>

#include "core/fail.hpp"

namespace wobble::capi {

namespace {

constexpr std::uint32_t kMaxInfluences = 64;
constexpr std::uint32_t kMaxJoints = 65535;  // joints are 16-bit indices

const std::filesystem::path kSource = "wobble_character_create";

const float* row(const float* base, std::size_t stride, std::size_t i) {
  return reinterpret_cast<const float*>(reinterpret_cast<const char*>(base) + i * stride);
}

std::vector<Vec3f> read_rows(const float* base, std::size_t stride, std::size_t count, const char* what) {
  const std::size_t step = row_stride(stride, what);
  std::vector<Vec3f> rows(count);
  for (std::size_t i = 0; i < count; ++i) {
    const float* p = row(base, step, i);
    rows[i] = Vec3f(p[0], p[1], p[2]);
    if (!rows[i].allFinite()) fail(kSource, "{}[{}] is not finite", what, i);
  }
  return rows;
}

std::vector<Triangle> read_triangles(const wobble_skinned_mesh& mesh) {
  if (mesh.triangle_count > 0 && !mesh.triangles)
    fail(kSource, "triangles is NULL for {} triangles", mesh.triangle_count);
  std::vector<Triangle> triangles(mesh.triangle_count);
  for (std::size_t t = 0; t < triangles.size(); ++t) {
    for (int k = 0; k < 3; ++k) {
      const std::uint32_t v = mesh.triangles[3 * t + k];
      if (v >= mesh.vertex_count) fail(kSource, "triangle {} uses vertex {}, the mesh has {}", t, v, mesh.vertex_count);
      triangles[t][k] = v;
    }
  }
  return triangles;
}

Rig read_rig(const wobble_skinned_mesh& mesh) {
  if (mesh.joint_count == 0 || mesh.joint_count > kMaxJoints) {
    fail(kSource, "joint_count is {} (1 to {})", mesh.joint_count, kMaxJoints);
  }
  if (!mesh.joint_parents) fail(kSource, "joint_parents is NULL");
  if (!mesh.inverse_bind_matrices) fail(kSource, "inverse_bind_matrices is NULL");
  Rig rig;
  std::vector<Mat4f> rest_world(mesh.joint_count);
  for (std::uint32_t j = 0; j < mesh.joint_count; ++j) {
    const int parent = mesh.joint_parents[j];
    if (parent < -1 || parent >= static_cast<int>(j)) {
      fail(kSource, "joint {} has parent {}: parents must be -1 or come before their children", j, parent);
    }
    const Mat4f inverse_bind = Eigen::Map<const Mat4f>(mesh.inverse_bind_matrices + 16 * std::size_t(j));
    const Eigen::Affine3f bind(inverse_bind);
    if (!inverse_bind.allFinite() || !(std::abs(bind.linear().determinant()) > 1e-12f)) {
      fail(kSource, "inverse bind matrix of joint {} is not finite and invertible", j);
    }
    // The rest pose is the bind pose: world = inverse bind^-1, local = parent world^-1 world.
    rest_world[j] = bind.inverse(Eigen::Affine).matrix();
    const Mat4f local =
        parent < 0 ? rest_world[j]
                   : Mat4f(Eigen::Affine3f(rest_world[parent]).inverse(Eigen::Affine).matrix() * rest_world[j]);
    rig.add_joint("joint" + std::to_string(j), parent, Transform::from_matrix(local), inverse_bind, true);
  }
  return rig;
}

Skin read_skin(const wobble_skinned_mesh& mesh, Diagnostics& diagnostics) {
  const std::uint32_t k = mesh.influences_per_vertex;
  if (k == 0 || k > kMaxInfluences) fail(kSource, "influences_per_vertex is {} (1 to {})", k, kMaxInfluences);
  if (!mesh.influence_joints || !mesh.influence_weights) fail(kSource, "influence_joints or influence_weights is NULL");
  Skin skin;
  std::vector<Influence> influences;
  for (std::size_t v = 0; v < mesh.vertex_count; ++v) {
    influences.clear();
    for (std::uint32_t s = 0; s < k; ++s) {
      const std::uint16_t joint = mesh.influence_joints[v * k + s];
      const float weight = mesh.influence_weights[v * k + s];
      if (!std::isfinite(weight)) fail(kSource, "influence_weights[{}] of vertex {} is not finite", s, v);
      if (weight == 0.0f) continue;  // an unused slot
      if (joint >= mesh.joint_count) fail(kSource, "vertex {} uses joint {}, there are {}", v, joint, mesh.joint_count);
      influences.push_back({joint, weight});
    }
    skin.add_vertex(influences);
  }
  skin.normalize(mesh.joint_count, 0, diagnostics, kSource);
  return skin;
}

}  // namespace

std::size_t row_stride(std::size_t stride, const char* what) {
  if (stride == 0) return 3 * sizeof(float);
  if (stride < 3 * sizeof(float) || stride % sizeof(float) != 0) {
    fail_plain("{} stride {} bytes: must be 0 or a multiple of 4 of at least 12", what, stride);
  }
  return stride;
}

Character character_from_arrays(const wobble_skinned_mesh& mesh) {
  if (mesh.vertex_count == 0) fail(kSource, "vertex_count is 0");
  if (!mesh.positions) fail(kSource, "positions is NULL");
  Character c;
  c.source = kSource;
  c.mesh.positions = read_rows(mesh.positions, mesh.positions_stride, mesh.vertex_count, "positions");
  c.mesh.triangles = read_triangles(mesh);
  if (mesh.normals) {
    c.mesh.normals = read_rows(mesh.normals, mesh.normals_stride, mesh.vertex_count, "normals");
  } else {
    c.mesh.compute_normals();
  }
  c.rig = read_rig(mesh);
  c.skin = read_skin(mesh, c.diagnostics);
  c.check();
  c.diagnostics.log_warnings(kSource.string());
  return c;
}

void copy_out(std::span<const Vec3f> rows, float* out, std::size_t stride) {
  if (stride == 3 * sizeof(float)) {
    std::memcpy(out, rows.data(), rows.size() * sizeof(Vec3f));
    return;
  }
  char* bytes = reinterpret_cast<char*>(out);
  for (std::size_t i = 0; i < rows.size(); ++i) std::memcpy(bytes + i * stride, rows[i].data(), 3 * sizeof(float));
}

}  // namespace wobble::capi
