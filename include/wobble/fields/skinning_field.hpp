#pragma once
// Skinning fields: m continuous weight functions W_i(X) of a rest point X (normalised frame) and
// their spatial gradients, the ingredients of the deformation map (PhysSkin++ eq. 1)
//   phi(X, z) = X + sum_i W_i(X) Z_i [X; 1].
// Sources: skinning eigenmodes (eigenmodes.hpp), a rig's own skin weights (rig_weights_field.hpp),
// and later learned neural fields; all are queried through this interface.
#include <array>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <Eigen/Core>

#include <wobble/math.hpp>

namespace wobble {
struct Mesh;
}

namespace wobble::fields {

// Values at N points: W (N x m) and the three partial derivatives dW/dx, dW/dy, dW/dz (N x m each).
struct FieldValues {
  Eigen::MatrixXd W;
  Eigen::MatrixXd dW[3];
};

class SkinningField {
 public:
  virtual ~SkinningField() = default;
  virtual int handle_count() const = 0;
  virtual std::string description() const = 0;
  // W and its gradient at the given points (normalised frame). Without `with_gradient` dW is left empty.
  virtual FieldValues evaluate(std::span<const Vec3d> points, bool with_gradient = true) const = 0;
};

// A source of fields for any mesh (in its file coordinates), with or without the constant column:
// how `--subspace neural` hands a trained model to the simulators.
using MeshFields = std::function<std::shared_ptr<const SkinningField>(const Mesh& mesh, bool constant_column)>;

// A field stored at the nodes of a regular grid and interpolated trilinearly (C0 across cells,
// gradient piecewise bilinear). Points outside the grid are clamped onto it.
class GridField : public SkinningField {
 public:
  // origin: position of node (0,0,0); spacing h; dims: node counts; values: (nodes x m), node
  // index (k * dims[1] + j) * dims[0] + i.
  GridField(Vec3d origin, double spacing, std::array<int, 3> dims, Eigen::MatrixXd values, std::string description);

  int handle_count() const override { return static_cast<int>(values_.cols()); }
  std::string description() const override { return description_; }
  FieldValues evaluate(std::span<const Vec3d> points, bool with_gradient = true) const override;

  const Eigen::MatrixXd& node_values() const { return values_; }
  const Vec3d& origin() const { return origin_; }
  double spacing() const { return spacing_; }
  const std::array<int, 3>& dims() const { return dims_; }
  // The 8 node indices and trilinear weights of a point (for assembling interpolation matrices).
  void stencil(const Vec3d& p, int nodes[8], double weights[8], double gradients[8][3]) const;

 private:
  Vec3d origin_;
  double spacing_;
  std::array<int, 3> dims_;
  Eigen::MatrixXd values_;
  std::string description_;
};

}  // namespace wobble::fields
