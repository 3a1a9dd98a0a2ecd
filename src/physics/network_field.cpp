// The SkinningField of one shape from a torch-free FieldNetwork: the raw fields normalised over
// the shape's cubature points exactly as src/neural/torch_field.cpp and column_transform do, the
// constant column first; and the shipped models' paths.
#include <cmath>
#include <cstdlib>

#include <Eigen/Cholesky>

#include <wobble/error.hpp>
#include <wobble/physics/field_network.hpp>

#ifndef WOBBLE_MODELS_DIR
#define WOBBLE_MODELS_DIR "models"
#endif

namespace wobble::physics {

namespace {

// W' = offset + W transform (offset 1 x m, transform m x m), per column of the raw fields.
struct ColumnTransform {
  Eigen::RowVectorXd offset;
  Eigen::MatrixXd transform;
};

// Scale: each column to mean square 1 (or unit norm) over the points. Orthonormal: with
// G = [1, W]^T [1, W] / N = L L^T, [1, W] L^-T keeps the constant column 1 and makes the columns
// orthonormal in the mean-square product (the span of [1, W] is unchanged).
ColumnTransform column_transform(const Eigen::MatrixXd& W, const nlohmann::json& normalization, const std::string& source) {
  const auto n = W.rows(), m = W.cols();
  // A text key or its fallback; anything but a string is the model file's error, named.
  auto text = [&](const char* key, const char* fallback) -> std::string {
    if (!normalization.is_object()) fail(source, "output_normalization must be an object");
    if (!normalization.contains(key)) return fallback;
    if (!normalization[key].is_string()) fail(source, "output_normalization.{} must be a string", key);
    return normalization[key].get<std::string>();
  };
  const std::string kind = text("kind", "");
  ColumnTransform t{Eigen::RowVectorXd::Zero(m), Eigen::MatrixXd::Identity(m, m)};
  if (kind == "none") return t;
  if (kind == "scale") {
    const std::string target = text("target", "mean_square_one");
    if (target != "mean_square_one" && target != "unit_norm") fail(source, "unknown output_normalization target '{}'", target);
    const double norm = target == "unit_norm" ? 1.0 : std::sqrt(static_cast<double>(n));
    t.transform = (norm / (W.colwise().norm().array() + 1e-12)).matrix().asDiagonal();
    return t;
  }
  if (kind != "orthonormal") fail(source, "unknown output_normalization kind '{}' (none, scale, orthonormal)", kind);
  Eigen::MatrixXd Y(n, m + 1);
  Y << Eigen::VectorXd::Ones(n), W;
  const Eigen::MatrixXd G = Y.transpose() * Y / static_cast<double>(n);
  const Eigen::LLT<Eigen::MatrixXd> llt(G);
  const Eigen::MatrixXd L = llt.matrixL();
  // L_ii / sqrt(G_ii): the part of field i independent of the ones before it, relative to its size.
  if (llt.info() != Eigen::Success || (L.diagonal().array() / G.diagonal().array().sqrt()).minCoeff() < 1e-5)
    fail(source, "the {} fields are linearly dependent on {} points: they cannot be orthonormalised", m, n);
  const Eigen::MatrixXd inverse =
      L.transpose().triangularView<Eigen::Upper>().solve(Eigen::MatrixXd::Identity(m + 1, m + 1));
  t.offset = inverse.row(0).tail(m);
  t.transform = inverse.bottomRightCorner(m, m);
  return t;
}

class NetworkField : public SkinningField {
 public:
  NetworkField(std::shared_ptr<const FieldNetwork> network, std::shared_ptr<const FieldNetwork::Shape> shape,
               ColumnTransform normalize, bool constant_column, std::string description)
      : network_(std::move(network)), shape_(std::move(shape)), normalize_(std::move(normalize)),
        constant_column_(constant_column), description_(std::move(description)) {}

  int handle_count() const override { return network_->handles() + (constant_column_ ? 1 : 0); }
  std::string description() const override { return description_; }

  FieldValues evaluate(std::span<const Vec3d> points, bool with_gradient) const override {
    Eigen::MatrixXd raw;
    std::array<Eigen::MatrixXd, 3> raw_gradient;
    network_->raw_fields(*shape_, points, raw, with_gradient ? &raw_gradient : nullptr);
    const auto n = static_cast<Eigen::Index>(points.size());
    const int offset = constant_column_ ? 1 : 0, m = network_->handles();
    FieldValues out;
    out.W.resize(n, m + offset);
    if (constant_column_) out.W.col(0).setOnes();
    out.W.rightCols(m) = (raw * normalize_.transform).rowwise() + normalize_.offset;
    if (with_gradient)
      for (int c = 0; c < 3; ++c) {
        out.dW[c].resize(n, m + offset);
        if (constant_column_) out.dW[c].col(0).setZero();
        out.dW[c].rightCols(m) = raw_gradient[c] * normalize_.transform;
      }
    return out;
  }

 private:
  std::shared_ptr<const FieldNetwork> network_;
  std::shared_ptr<const FieldNetwork::Shape> shape_;
  ColumnTransform normalize_;
  bool constant_column_;
  std::string description_;
};

}  // namespace

std::shared_ptr<const SkinningField> FieldNetwork::fields_for(const ShapeSample& shape, bool constant_column) const {
  std::shared_ptr<const FieldNetwork> self = shared_from_this();
  std::shared_ptr<const Shape> encoded = encode(shape.surface);
  Eigen::MatrixXd raw;
  raw_fields(*encoded, cubature_points(shape), raw, nullptr);
  const nlohmann::json normalization =
      description_.contains("output_normalization") ? description_["output_normalization"] : nlohmann::json::object();
  const std::string name = std::filesystem::path(source_).filename().string();
  return std::make_shared<NetworkField>(self, std::move(encoded), column_transform(raw, normalization, source_),
                                        constant_column, "neural fields (" + name + ", " + shape.name + ")");
}

std::shared_ptr<const SkinningField> FieldNetwork::fields_for(const Mesh& mesh, bool constant_column) const {
  return fields_for(make_shape_sample(mesh, "shape", sample_options_, sample_seed_), constant_column);
}

std::filesystem::path default_field_network_path(bool rig) {
  const char* variable = rig ? "WOBBLE_NEURAL_RIG_MODEL" : "WOBBLE_NEURAL_MODEL";
  if (const char* path = std::getenv(variable); path && *path) return path;
  return std::filesystem::path(WOBBLE_MODELS_DIR) / (rig ? "physskin_clonk_rig.wfield" : "physskin_small.wfield");
}

MeshFields field_network_mesh_fields(const std::filesystem::path& file, bool rig) {
  const std::filesystem::path chosen = file.empty() ? default_field_network_path(rig) : file;
  if (chosen.extension() == ".pt")
    fail(chosen, "is a LibTorch model: export it first (`wobble fields export {} -o {}`, in a build with LibTorch)",
         chosen.string(), std::filesystem::path(chosen).replace_extension(".wfield").string());
  std::shared_ptr<const FieldNetwork> network = FieldNetwork::load(chosen);
  return [network](const Mesh& mesh, bool constant_column) { return network->fields_for(mesh, constant_column); };
}

}  // namespace wobble::physics
