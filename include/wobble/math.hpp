#pragma once
// Small math vocabulary on top of Eigen: vectors, quaternions, TRS transforms.
#include <Eigen/Core>
#include <Eigen/Geometry>

namespace wobble {

using Vec2f = Eigen::Vector2f;
using Vec3f = Eigen::Vector3f;
using Vec3d = Eigen::Vector3d;  // double-precision sums, filters and physics
using Vec4f = Eigen::Vector4f;
using Quatf = Eigen::Quaternionf;
using Mat3f = Eigen::Matrix3f;
using Mat4f = Eigen::Matrix4f;  // column-major: the SIMD kernels read its columns directly

// A local transform as glTF stores it: M = T * R * S.
struct Transform {
  Vec3f translation = Vec3f::Zero();
  Quatf rotation = Quatf::Identity();
  Vec3f scale = Vec3f::Ones();

  Mat4f matrix() const;
  // Decomposes an affine matrix (no shear expected); a negative determinant goes into scale.x.
  static Transform from_matrix(const Mat4f& m);
};

// Spherical interpolation along the shortest arc, exactly as glTF 2.0 specifies it (the result
// is a unit quaternion for unit inputs; falls back to normalised lerp for nearly equal inputs).
Quatf slerp_shortest(const Quatf& a, const Quatf& b, float t);

// True when every coefficient is finite.
template <typename Derived>
bool all_finite(const Eigen::MatrixBase<Derived>& m) {
  return m.allFinite();
}

}  // namespace wobble
