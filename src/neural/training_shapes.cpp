// Training shapes, per-item seeds and augmentation (see training_shapes.hpp).
#include "training_shapes.hpp"

#include <cmath>
#include <numbers>

#include <ATen/CPUGeneratorImpl.h>
#include <Eigen/Geometry>
#include <fmt/format.h>

#include <wobble/error.hpp>
#include <wobble/io/files.hpp>
#include <wobble/neural/shape_generator.hpp>
#include <wobble/physics/rig_weights_field.hpp>
#include "core/fail.hpp"

namespace wobble::neural {

namespace fs = std::filesystem;

torch::Tensor to_tensor(const Eigen::MatrixXf& m) {
  // Eigen is column-major: read as cols x rows and transpose.
  return torch::from_blob(const_cast<float*>(m.data()), {m.cols(), m.rows()}, torch::kFloat32).t().contiguous();
}

namespace {

torch::Tensor to_tensor(const Eigen::VectorXf& v) {
  return torch::from_blob(const_cast<float*>(v.data()), {v.size()}, torch::kFloat32).clone();
}

// SplitMix64's finaliser: a well-mixed 64-bit value from any input.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

double gaussian(fields::Random& random) {  // Box-Muller
  const double u = 1.0 - random.uniform(), v = random.uniform();
  return std::sqrt(-2.0 * std::log(u)) * std::cos(2 * std::numbers::pi * v);
}

Mesh load_real(const fs::path& file) {
  Character character = load_character(file);
  if (character.mesh.triangles.empty()) fail(file, "has no triangles");
  return std::move(character.mesh);
}

// A real mesh's sample, or an error naming its file.
fields::ShapeSample sample_real(const fs::path& file, const Mesh& mesh, const fields::ShapeSampleOptions& options,
                                std::uint64_t seed) {
  try {
    return fields::make_shape_sample(mesh, file.stem().string(), options, seed);
  } catch (const Error& e) {
    fail(file, "cannot be sampled for training: {}", e.what());
  }
}

}  // namespace

ShapeTensors::ShapeTensors(const fields::ShapeSample& s)
    : surface(to_tensor(s.surface)), cubature(to_tensor(s.cubature)), volumes(to_tensor(s.volumes)) {
  if (s.rig_weights.size() > 0) rig_weights = to_tensor(s.rig_weights);
}

ShapeTensors::ShapeTensors(const fields::ShapeSample& s, const Mesh& mesh) : ShapeTensors(s) {
  Eigen::MatrixXf v(static_cast<Eigen::Index>(mesh.positions.size()), 3);
  for (std::size_t i = 0; i < mesh.positions.size(); ++i)
    v.row(static_cast<Eigen::Index>(i)) =
        s.normalization.to_normalized(mesh.positions[i].cast<double>()).cast<float>().transpose();
  vertices = to_tensor(v);
}

ItemRandom::ItemRandom(std::uint64_t seed, int step, std::int64_t item)
    : random(mix(mix(mix(seed) ^ static_cast<std::uint64_t>(step)) ^ static_cast<std::uint64_t>(item))),
      generator(at::detail::createCPUGenerator(mix(random.next()))) {}

ShapeTensors augmented(const ShapeTensors& shape, fields::Random& random, bool rotate, double scaling) {
  if (!shape.vertices.defined()) fail_plain("augmented: the shape carries no vertices");
  Eigen::Matrix3d A = Eigen::Matrix3d::Identity();
  if (rotate) {
    Eigen::Quaterniond q(gaussian(random), gaussian(random), gaussian(random), gaussian(random));  // uniform on SO(3)
    A = q.normalized().toRotationMatrix();
  }
  if (scaling > 1) {
    Eigen::Vector3d factors;
    for (int c = 0; c < 3; ++c) factors[c] = std::exp((2 * random.uniform() - 1) * std::log(scaling));  // log-uniform
    A = factors.asDiagonal() * A;
  }
  const torch::Tensor linear =
      torch::from_blob(Eigen::Matrix3f(A.cast<float>()).data(), {3, 3}, torch::kFloat32).t().clone();
  const torch::Tensor normal_map = torch::linalg::inv(linear).t();
  ShapeTensors out = shape;
  const torch::Tensor vertices = torch::mm(shape.vertices, linear.t());
  const torch::Tensor low = std::get<0>(vertices.min(0)), high = std::get<0>(vertices.max(0));
  const torch::Tensor center = 0.5 * (low + high);
  const double scale = 2.0 / (high - low).max().item<double>();
  auto place = [&](const torch::Tensor& points) { return (torch::mm(points, linear.t()) - center) * scale; };
  out.vertices = (vertices - center) * scale;
  out.cubature = place(shape.cubature);
  const torch::Tensor normals = torch::mm(shape.surface.slice(1, 3, 6), normal_map.t());
  out.surface =
      torch::cat({place(shape.surface.slice(1, 0, 3)), normals / normals.norm(2, 1, true).clamp_min(1e-12)}, 1);
  out.volumes = shape.volumes * (std::abs(A.determinant()) * scale * scale * scale);
  return out;
}

TrainingShapes::TrainingShapes(const TrainingConfig& config) : config_(config) {
  if (!config.rig.empty()) {
    const Character character = load_character(config.rig);
    if (!character.is_skinned()) fail(config.rig, "rig-complementary training needs a rigged file with skin weights");
    fields::ShapeSample rig =
        fields::make_shape_sample(character.mesh, config.rig.stem().string(), config.sample, config.seed);
    rig.rig_weights = physics::rig_weights_field(character, rig.normalization)
                          ->evaluate(fields::cubature_points(rig), false)
                          .W.cast<float>();
    rig_.emplace(rig);
    return;
  }
  for (const fs::path& file : config.real_train) {
    Mesh mesh = load_real(file);
    ShapeTensors fixed(sample_real(file, mesh, config.sample, config.seed), mesh);
    real_.push_back({file, std::move(mesh), std::move(fixed)});
  }
}

// With resample_points off a draw takes nothing more from the random stream, so that runs from
// before the option repeat exactly.
ShapeTensors TrainingShapes::real_shape(std::size_t index, fields::Random& random) const {
  const RealShape& real = real_[index];
  if (!config_.resample_points) return real.fixed;
  return ShapeTensors(sample_real(real.file, real.mesh, config_.sample, random.next()), real.mesh);
}

ShapeTensors TrainingShapes::draw(fields::Random& random) const {
  if (rig_) return *rig_;
  if (!real_.empty() && (config_.procedural_shapes == 0 || random.uniform() < config_.real_fraction)) {
    const ShapeTensors shape = real_shape(random.next() % real_.size(), random);
    if (!config_.augment_rotation && !(config_.augment_scaling > 1)) return shape;
    return augmented(shape, random, config_.augment_rotation, config_.augment_scaling);
  }
  const std::uint64_t seed = random.next() % static_cast<std::uint64_t>(std::max(1, config_.procedural_shapes));
  const std::uint64_t sample_seed = config_.resample_points ? random.next() : seed + 11;
  return ShapeTensors(fields::make_shape_sample(procedural_shape(seed), fmt::format("procedural {}", seed),
                                                config_.sample, sample_seed));
}

std::vector<fields::ShapeSample> validation_shapes(const TrainingConfig& config) {
  std::vector<fields::ShapeSample> out;
  // Validation seeds start far above any training seed.
  for (int k = 0; k < config.validation_procedural; ++k) {
    const std::uint64_t seed = 1'000'000'000ull + static_cast<std::uint64_t>(k);
    out.push_back(
        fields::make_shape_sample(procedural_shape(seed), fmt::format("validation {}", k), config.sample, seed));
  }
  for (const fs::path& file : config.real_validation)
    out.push_back(sample_real(file, load_real(file), config.sample, 5));
  return out;
}

std::vector<ShapeTensors> validation_tensors(const TrainingConfig& config) {
  std::vector<ShapeTensors> out;
  for (const fields::ShapeSample& s : validation_shapes(config)) out.emplace_back(s);
  return out;
}

}  // namespace wobble::neural
