// The SkinningField of one shape from a torch-free FieldNetwork: the raw fields mapped by the
// output transform computed over the shape's cubature points exactly as
// src/neural/output_transform.cpp does (field_output.hpp), the constant column first; and the
// shipped models' paths.
#include <cstdlib>

#include <wobble/error.hpp>
#include <wobble/fields/field_network.hpp>

#include "field_output.hpp"
#include "core/fail.hpp"

#ifndef WOBBLE_MODELS_DIR
#define WOBBLE_MODELS_DIR "models"
#endif

namespace wobble::fields {

namespace {

class NetworkField : public SkinningField {
 public:
  NetworkField(std::shared_ptr<const FieldNetwork> network, std::shared_ptr<const FieldNetwork::Shape> shape,
               FieldOutputTransform normalize, bool constant_column, std::string description)
      : network_(std::move(network)),
        shape_(std::move(shape)),
        normalize_(std::move(normalize)),
        constant_column_(constant_column),
        description_(std::move(description)) {}

  int handle_count() const override {
    return static_cast<int>(normalize_.transform.cols()) + (constant_column_ ? 1 : 0);
  }
  std::string description() const override { return description_; }

  FieldValues evaluate(std::span<const Vec3d> points, bool with_gradient) const override {
    Eigen::MatrixXd raw;
    std::array<Eigen::MatrixXd, 3> raw_gradient;
    network_->raw_fields(*shape_, points, raw, with_gradient ? &raw_gradient : nullptr);
    const auto n = static_cast<Eigen::Index>(points.size());
    const int offset = constant_column_ ? 1 : 0;  // raw: N x raw_field_count()
    const auto m = normalize_.transform.cols();
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
  FieldOutputTransform normalize_;
  bool constant_column_;
  std::string description_;
};

}  // namespace

std::shared_ptr<const SkinningField> FieldNetwork::fields_for(const ShapeSample& shape, bool constant_column) const {
  std::shared_ptr<const FieldNetwork> self = shared_from_this();
  std::shared_ptr<const Shape> encoded = encode(shape.surface);
  const FieldOutputOptions& output = *output_;
  Eigen::MatrixXd raw;
  std::array<Eigen::MatrixXd, 3> raw_gradient;
  raw_fields(*encoded, cubature_points(shape), raw, output.needs_gradients() ? &raw_gradient : nullptr);
  const std::string name = std::filesystem::path(source_).filename().string();
  return std::make_shared<NetworkField>(self, std::move(encoded),
                                        field_output_transform(raw, raw_gradient, output, source_), constant_column,
                                        "neural fields (" + name + ", " + shape.name + ")");
}

std::shared_ptr<const SkinningField> FieldNetwork::candidates_for(const ShapeSample& shape) const {
  const FieldOutputTransform identity{Eigen::RowVectorXd::Zero(raw_fields_),
                                      Eigen::MatrixXd::Identity(raw_fields_, raw_fields_)};
  const std::string name = std::filesystem::path(source_).filename().string();
  return std::make_shared<NetworkField>(shared_from_this(), encode(shape.surface), identity, true,
                                        "neural candidate fields (" + name + ", " + shape.name + ")");
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
  return network_mesh_fields(FieldNetwork::load(chosen));
}

MeshFields network_mesh_fields(std::shared_ptr<const FieldNetwork> network) {
  return [network](const Mesh& mesh, bool constant_column) { return network->fields_for(mesh, constant_column); };
}

}  // namespace wobble::fields
