#include "eigenmode_targets.hpp"

#include <vector>

#include <wobble/physics/eigenmodes.hpp>

namespace wobble::neural {

namespace {

// The rows of an N x >=3 tensor's first three columns as points.
std::vector<Vec3d> points_of(const torch::Tensor& rows) {
  const torch::Tensor p = rows.detach().slice(1, 0, 3).to(torch::kFloat64).contiguous();
  const auto a = p.accessor<double, 2>();
  std::vector<Vec3d> out(static_cast<std::size_t>(p.size(0)));
  for (std::int64_t i = 0; i < p.size(0); ++i) out[static_cast<std::size_t>(i)] = Vec3d(a[i][0], a[i][1], a[i][2]);
  return out;
}

}  // namespace

torch::Tensor eigenmode_targets(const ShapeTensors& shape, const torch::Tensor& X, int count, int grid_resolution) {
  std::vector<Vec3d> cover = points_of(shape.surface);
  const std::vector<Vec3d> cubature = points_of(shape.cubature);
  cover.insert(cover.end(), cubature.begin(), cubature.end());
  const auto modes = physics::skinning_eigenmodes(cover, {count + 1, grid_resolution});
  return to_tensor(modes->evaluate(points_of(X), false).W.rightCols(count).cast<float>());
}

}  // namespace wobble::neural
