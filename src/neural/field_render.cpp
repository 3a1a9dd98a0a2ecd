// Z-buffered triangle rasteriser for field pictures (orthographic, fixed three-quarter view).
#include <wobble/neural/field_render.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <Eigen/Geometry>

#include <wobble/error.hpp>
#include <wobble/io/image.hpp>
#include <wobble/math.hpp>

#include "core/fail.hpp"

namespace wobble::neural {

namespace {

Vec3d hue(double h) {  // h in [0, 1): a saturated colour
  const double r = std::clamp(std::abs(h * 6 - 3) - 1, 0.0, 1.0), g = std::clamp(2 - std::abs(h * 6 - 2), 0.0, 1.0),
               b = std::clamp(2 - std::abs(h * 6 - 4), 0.0, 1.0);
  return {r, g, b};
}

Vec3d diverging(double t) {  // t in [-1, 1]: blue, white, red
  t = std::clamp(t, -1.0, 1.0);
  const Vec3d white(1, 1, 1), red(0.8, 0.1, 0.1), blue(0.1, 0.2, 0.8);
  return t >= 0 ? Vec3d(white + t * (red - white)) : Vec3d(white - t * (blue - white));
}

}  // namespace

void render_fields_png(const std::filesystem::path& file, const Mesh& mesh, const Eigen::MatrixXd& W, int skip_columns,
                       int panel_size) {
  const int fields = static_cast<int>(W.cols()) - skip_columns;
  if (fields < 1 || W.rows() != static_cast<Eigen::Index>(mesh.vertex_count()))
    fail(file, "need one row of fields per vertex and at least one field to render");
  const int panels = fields + 1, width = panels * panel_size, height = panel_size;
  RgbaImage image(width, height, 0xffffffff);
  // View: yaw 30 degrees, pitch 20 degrees; light from the viewer's upper left.
  const Eigen::Matrix3d view =
      (Eigen::AngleAxisd(0.35, Vec3d::UnitX()) * Eigen::AngleAxisd(-0.52, Vec3d::UnitY())).toRotationMatrix();
  const Vec3d light = Vec3d(-0.4, 0.6, 1).normalized();
  std::vector<Vec3d> projected(mesh.vertex_count());
  for (std::size_t v = 0; v < mesh.vertex_count(); ++v) projected[v] = view * mesh.positions[v].cast<double>();
  // Per-panel vertex colours.
  Eigen::VectorXd max_abs(fields);
  for (int i = 0; i < fields; ++i) max_abs[i] = std::max(1e-12, W.col(skip_columns + i).cwiseAbs().maxCoeff());
  auto colour = [&](int panel, std::size_t v) -> Vec3d {
    const auto r = static_cast<Eigen::Index>(v);
    if (panel > 0) return diverging(W(r, skip_columns + panel - 1) / max_abs[panel - 1]);
    Vec3d c = Vec3d::Zero();
    double total = 0;
    for (int i = 0; i < fields; ++i) {
      const double w = std::pow(W(r, skip_columns + i) / max_abs[i], 2);
      c += w * hue(static_cast<double>(i) / fields);
      total += w;
    }
    return total > 0 ? Vec3d(c / total) : Vec3d(0.8, 0.8, 0.8);
  };
  std::vector<double> depth(static_cast<std::size_t>(panel_size * panel_size));
  for (int panel = 0; panel < panels; ++panel) {
    std::fill(depth.begin(), depth.end(), -std::numeric_limits<double>::infinity());
    const double scale = 0.28 * panel_size, centre = 0.5 * panel_size;  // |x| <= sqrt(3) after the rotation
    for (const Triangle& t : mesh.triangles) {
      Vec3d p[3];
      for (int k = 0; k < 3; ++k)
        p[k] = Vec3d(centre + scale * projected[t[k]].x(), centre - scale * projected[t[k]].y(), projected[t[k]].z());
      const Vec3d normal = (projected[t[1]] - projected[t[0]]).cross(projected[t[2]] - projected[t[0]]);
      if (normal.norm() == 0) continue;
      const double shade = 0.35 + 0.65 * std::abs(normal.normalized().dot(light));
      const Vec3d c[3] = {colour(panel, t[0]), colour(panel, t[1]), colour(panel, t[2])};
      const double area = (p[1].x() - p[0].x()) * (p[2].y() - p[0].y()) - (p[2].x() - p[0].x()) * (p[1].y() - p[0].y());
      if (std::abs(area) < 1e-12) continue;
      const int x0 = std::max(0, static_cast<int>(std::floor(std::min({p[0].x(), p[1].x(), p[2].x()})))),
                x1 = std::min(panel_size - 1, static_cast<int>(std::ceil(std::max({p[0].x(), p[1].x(), p[2].x()})))),
                y0 = std::max(0, static_cast<int>(std::floor(std::min({p[0].y(), p[1].y(), p[2].y()})))),
                y1 = std::min(panel_size - 1, static_cast<int>(std::ceil(std::max({p[0].y(), p[1].y(), p[2].y()}))));
      for (int y = y0; y <= y1; ++y)
        for (int x = x0; x <= x1; ++x) {
          const double px = x + 0.5, py = y + 0.5;
          const double b0 = ((p[1].x() - px) * (p[2].y() - py) - (p[2].x() - px) * (p[1].y() - py)) / area;
          const double b1 = ((p[2].x() - px) * (p[0].y() - py) - (p[0].x() - px) * (p[2].y() - py)) / area;
          const double b2 = 1 - b0 - b1;
          if (b0 < 0 || b1 < 0 || b2 < 0) continue;
          const double z = b0 * p[0].z() + b1 * p[1].z() + b2 * p[2].z();
          double& d = depth[static_cast<std::size_t>(y * panel_size + x)];
          if (z <= d) continue;
          d = z;
          const Vec3d rgb = shade * (b0 * c[0] + b1 * c[1] + b2 * c[2]);
          std::uint8_t* out = image.at(panel * panel_size + x, y);
          for (int k = 0; k < 3; ++k) out[k] = static_cast<unsigned char>(std::clamp(rgb[k] * 255, 0.0, 255.0));
        }
    }
  }
  write_png(file, image);
}

}  // namespace wobble::neural
