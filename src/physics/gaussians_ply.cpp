// 3DGS PLY reading and writing, covariance conversions (see gaussians.hpp).
#include <wobble/physics/gaussians.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include <Eigen/Eigenvalues>
#include <Eigen/Geometry>

#include <wobble/io/atomic_file.hpp>
#include <wobble/io/output_file.hpp>
#include <wobble/error.hpp>
#include <wobble/parse.hpp>
#include <wobble/io/read_limits.hpp>

#include "core/fail.hpp"

namespace wobble::physics {

int GaussianCloud::find(const std::string& name) const {
  const auto it = std::find(properties.begin(), properties.end(), name);
  return it == properties.end() ? -1 : static_cast<int>(it - properties.begin());
}

void GaussianCloud::require_geometry(const std::filesystem::path& source) const {
  for (const char* name : {"x", "y", "z", "scale_0", "scale_1", "scale_2", "rot_0", "rot_1", "rot_2", "rot_3"})
    if (find(name) < 0) fail(source, "Gaussian PLY lacks the vertex property '{}'", name);
}

Eigen::Vector3d GaussianCloud::center(std::size_t i) const {
  const float* row = values.data() + i * properties.size();
  return {row[find("x")], row[find("y")], row[find("z")]};
}

Eigen::Matrix3d GaussianCloud::covariance(std::size_t i) const {
  const float* row = values.data() + i * properties.size();
  const Eigen::Vector3d s(row[find("scale_0")], row[find("scale_1")], row[find("scale_2")]);
  const Eigen::Vector4d q(row[find("rot_0")], row[find("rot_1")], row[find("rot_2")], row[find("rot_3")]);
  return covariance_from(s, q);
}

void GaussianCloud::set(std::size_t i, const Eigen::Vector3d& c, const Eigen::Matrix3d& covariance) {
  float* row = values.data() + i * properties.size();
  row[find("x")] = static_cast<float>(c.x());
  row[find("y")] = static_cast<float>(c.y());
  row[find("z")] = static_cast<float>(c.z());
  Eigen::Vector3d s;
  Eigen::Vector4d q;
  decompose_covariance(covariance, s, q);
  for (int k = 0; k < 3; ++k) row[find("scale_" + std::to_string(k))] = static_cast<float>(s[k]);
  for (int k = 0; k < 4; ++k) row[find("rot_" + std::to_string(k))] = static_cast<float>(q[k]);
}

Eigen::Matrix3d covariance_from(const Eigen::Vector3d& log_scales, const Eigen::Vector4d& wxyz) {
  Eigen::Quaterniond q(wxyz[0], wxyz[1], wxyz[2], wxyz[3]);
  if (!(q.norm() > 0)) q = Eigen::Quaterniond::Identity();
  q.normalize();
  const Eigen::Matrix3d R = q.toRotationMatrix();
  const Eigen::Vector3d s = log_scales.array().exp();
  return R * (s.array().square().matrix().asDiagonal()) * R.transpose();
}

void decompose_covariance(const Eigen::Matrix3d& covariance, Eigen::Vector3d& log_scales, Eigen::Vector4d& wxyz) {
  Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> eig(0.5 * (covariance + covariance.transpose()));
  Eigen::Matrix3d R = eig.eigenvectors();
  if (R.determinant() < 0) R.col(2) = -R.col(2);
  for (int k = 0; k < 3; ++k) log_scales[k] = 0.5 * std::log(std::max(eig.eigenvalues()[k], 1e-30));
  Eigen::Quaterniond q(R);
  q.normalize();
  if (q.w() < 0) q.coeffs() = -q.coeffs();
  wxyz = Eigen::Vector4d(q.w(), q.x(), q.y(), q.z());
}

namespace {

struct Header {
  std::vector<std::string> properties;
  std::size_t count = 0;
  std::size_t data_offset = 0;
  bool binary = false;
};

Header read_header(const std::filesystem::path& path, std::ifstream& in) {
  Header h;
  std::string line;
  if (!std::getline(in, line) || line.rfind("ply", 0) != 0) fail(path, "not a PLY file");
  bool in_vertex = false, seen_vertex = false;
  for (;;) {
    if (!std::getline(in, line)) fail(path, "PLY header has no end_header");
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::istringstream words(line);
    std::string word;
    words >> word;
    if (word == "format") {
      std::string format;
      words >> format;
      if (format != "binary_little_endian")
        fail(path, "PLY format '{}' is not supported (only binary_little_endian, as 3DGS writes)", format);
      h.binary = true;
    } else if (word == "element") {
      std::string name, count_text;
      words >> name >> count_text;
      const auto n = static_cast<std::size_t>(
          parse_integer(count_text, fmt::format("{}: PLY element '{}' count", path.string(), name), 0));
      if (seen_vertex && name != "vertex")
        fail(path, "PLY has an element '{}' after 'vertex' (not a Gaussian PLY)", name);
      in_vertex = name == "vertex";
      if (in_vertex) {
        seen_vertex = true;
        h.count = n;
      }
    } else if (word == "property") {
      std::string type, name;
      words >> type >> name;
      if (!in_vertex) fail(path, "PLY has properties before the vertex element");
      if (type != "float" && type != "float32")
        fail(path, "vertex property '{}' has type '{}' (only float is supported)", name, type);
      h.properties.push_back(name);
    } else if (word == "end_header") {
      break;
    }
  }
  if (!h.binary) fail(path, "PLY lacks a format line");
  if (!seen_vertex || h.properties.empty()) fail(path, "PLY has no vertex properties");
  h.data_offset = static_cast<std::size_t>(in.tellg());
  return h;
}

// Every float property of a binary PLY's vertices, unchecked.
GaussianCloud read_vertex_table(const std::filesystem::path& path, const char* what) {
  require_regular_file(path, what);
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "cannot open for reading");
  const Header h = read_header(path, in);
  GaussianCloud cloud;
  cloud.properties = h.properties;
  // The data must hold count x properties floats: checked against the file before allocating.
  std::error_code ec;
  const std::uintmax_t file_bytes = std::filesystem::file_size(path, ec);
  const std::uintmax_t data_bytes = ec || file_bytes < h.data_offset ? 0 : file_bytes - h.data_offset;
  const std::uintmax_t row_bytes = h.properties.size() * sizeof(float);
  if (h.count > data_bytes / row_bytes)
    fail(path, "PLY data is truncated: {} Gaussians of {} properties need {} bytes, the file holds {}", h.count,
         h.properties.size(), static_cast<double>(h.count) * static_cast<double>(row_bytes), data_bytes);
  cloud.values.resize(h.count * h.properties.size());
  in.read(reinterpret_cast<char*>(cloud.values.data()),
          static_cast<std::streamsize>(cloud.values.size() * sizeof(float)));
  if (static_cast<std::size_t>(in.gcount()) != cloud.values.size() * sizeof(float))
    fail(path, "PLY data is truncated ({} Gaussians declared)", h.count);
  static_assert(std::endian::native == std::endian::little, "big-endian hosts need byte swapping");
  for (float v : cloud.values)
    if (!std::isfinite(v)) fail(path, "PLY holds a value that is not finite");
  return cloud;
}

}  // namespace

bool is_gaussian_ply(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::string line, text;
  for (int k = 0; k < 400 && std::getline(in, line); ++k) {
    text += line + "\n";
    if (line.rfind("end_header", 0) == 0) break;
  }
  return text.rfind("ply", 0) == 0 && text.find("property float scale_0") != std::string::npos &&
         text.find("property float rot_0") != std::string::npos;
}

GaussianCloud read_gaussian_ply(const std::filesystem::path& path) {
  GaussianCloud cloud = read_vertex_table(path, "a Gaussian PLY file");
  cloud.require_geometry(path);
  return cloud;
}

bool is_point_cloud_ply(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::string line, text;
  int elements = 0;
  for (int k = 0; k < 400 && std::getline(in, line); ++k) {
    if (line.rfind("element", 0) == 0) ++elements;
    text += line + "\n";
    if (line.rfind("end_header", 0) == 0) break;
  }
  return text.rfind("ply", 0) == 0 && elements == 1 && text.find("element vertex") != std::string::npos &&
         text.find(" x\n") != std::string::npos && !is_gaussian_ply(path);
}

std::vector<Eigen::Vector3d> read_ply_points(const std::filesystem::path& path) {
  const GaussianCloud table = read_vertex_table(path, "a point cloud PLY file");
  for (const char* name : {"x", "y", "z"})
    if (table.find(name) < 0) fail(path, "PLY lacks the vertex property '{}'", name);
  if (table.count() == 0) fail(path, "PLY holds no point");
  std::vector<Eigen::Vector3d> points(table.count());
  for (std::size_t i = 0; i < points.size(); ++i) points[i] = table.center(i);
  return points;
}

void write_gaussian_ply(const std::filesystem::path& path, const GaussianCloud& cloud) {
  std::string header = "ply\nformat binary_little_endian 1.0\nelement vertex " + std::to_string(cloud.count()) + "\n";
  for (const auto& name : cloud.properties) header += "property float " + name + "\n";
  header += "end_header\n";
  AtomicOutput output(path);
  OutputFile out(output.temporary(), output.target());
  out.write(header);
  out.write(cloud.values.data(), cloud.values.size() * sizeof(float));
  out.close();
  output.commit();
}

}  // namespace wobble::physics
