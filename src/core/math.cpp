#include <wobble/math.hpp>

#include <cmath>

namespace wobble {

Mat4f Transform::matrix() const {
  Mat4f m = Mat4f::Identity();
  m.topLeftCorner<3, 3>() = rotation.normalized().toRotationMatrix() * scale.asDiagonal();
  m.topRightCorner<3, 1>() = translation;
  return m;
}

Transform Transform::from_matrix(const Mat4f& m) {
  Transform t;
  t.translation = m.topRightCorner<3, 1>();
  Mat3f linear = m.topLeftCorner<3, 3>();
  Vec3f scale(linear.col(0).norm(), linear.col(1).norm(), linear.col(2).norm());
  if (linear.determinant() < 0) scale.x() = -scale.x();  // keep handedness in the scale
  Mat3f rotation = linear;
  for (int c = 0; c < 3; ++c) {
    if (scale[c] != 0) rotation.col(c) /= scale[c];
  }
  // Re-orthonormalise (exports carry rounding) before taking the quaternion.
  Eigen::JacobiSVD<Mat3f> svd(rotation, Eigen::ComputeFullU | Eigen::ComputeFullV);
  Mat3f orthonormal = svd.matrixU() * svd.matrixV().transpose();
  if (orthonormal.determinant() < 0) orthonormal = -orthonormal;
  t.rotation = Quatf(orthonormal).normalized();
  t.scale = scale;
  return t;
}

Quatf slerp_shortest(const Quatf& a, const Quatf& b, float t) {
  float d = a.dot(b);
  const float sign = d < 0 ? -1.0f : 1.0f;
  d = std::abs(d);
  if (d > 0.9995f) {
    // Nearly equal: the sines vanish; a normalised lerp is exact to float precision here.
    Vec4f v = (1 - t) * a.coeffs() + sign * t * b.coeffs();
    Quatf q;
    q.coeffs() = v.normalized();
    return q;
  }
  const float angle = std::acos(std::min(d, 1.0f));
  const float s = std::sin(angle);
  const float wa = std::sin(angle * (1 - t)) / s;
  const float wb = sign * std::sin(angle * t) / s;
  Quatf q;
  q.coeffs() = wa * a.coeffs() + wb * b.coeffs();
  return q;
}

}  // namespace wobble
