#pragma once
// Torch-free inference of trained neural skinning fields (PhysSkin++ III-B): a network read from
// a .wfield file (docs/neural.md, "The .wfield format"; `wobble fields export MODEL.pt`) and
// evaluated with Eigen only. The file's description lists the layers of two stages:
//   encoder  the shape's surface cloud (N x 6: position, normal) -> per-shape constants (the
//            handle latents), once per shape;
//   field    query points (N x 3, normalised frame) -> raw fields (N x m), each point on its own,
//            with the spatial gradient by forward-mode differentiation (three tangents carried
//            through every layer, stacked under the values so that a linear layer is one GEMM).
// The network runs in float32, as LibTorch does; the output normalisation over the shape's
// cubature points (scale, orthonormalise or the Rayleigh-Ritz selection of candidate fields, as
// src/neural/output_transform.cpp) is in double.
#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <nlohmann/json.hpp>

#include <wobble/mesh.hpp>
#include <wobble/fields/shape_sample.hpp>
#include <wobble/fields/skinning_field.hpp>

namespace wobble {
class ThreadPool;
}

namespace wobble::fields {

struct FieldOutputOptions;

// A float32 tensor in C order.
struct FieldTensor {
  std::vector<std::int64_t> shape;
  std::vector<float> values;
};

// The contents of a .wfield file: the model description and its tensors by name.
struct FieldNetworkFile {
  nlohmann::json description;
  std::map<std::string, FieldTensor> tensors;
};

// Reads a .wfield file (a safetensors container; the description is the JSON text in
// __metadata__.wobble). Throws Error naming `source` for a truncated or malformed file.
FieldNetworkFile parse_field_network_file(std::span<const std::uint8_t> bytes, const std::string& source);
FieldNetworkFile read_field_network_file(const std::filesystem::path& path);
// The same bytes for the same contents (tensors in name order, the header padded to 8 bytes).
std::vector<std::uint8_t> serialize_field_network_file(const FieldNetworkFile& file);
// Writes through AtomicOutput.
void write_field_network_file(const std::filesystem::path& path, const FieldNetworkFile& file);

// Held in a shared_ptr (load(), or std::make_shared): the fields it gives share it.
class FieldNetwork : public std::enable_shared_from_this<FieldNetwork> {
 public:
  // Checks the description against the tensors (every layer's shapes): throws Error naming
  // `source` and the layer. `threads`: for evaluating many points (0: one per hardware thread).
  FieldNetwork(const FieldNetworkFile& file, std::string source, std::size_t threads = 0);
  static std::shared_ptr<const FieldNetwork> load(const std::filesystem::path& path, std::size_t threads = 0);
  ~FieldNetwork();

  int handles() const { return handles_; }  // learned fields m (the constant column comes on top)
  int raw_field_count() const {
    return raw_fields_;
  }  // the field stage's columns: m, or more candidates (rayleigh_ritz)
  const std::string& source() const { return source_; }
  const nlohmann::json& description() const { return description_; }
  std::int64_t parameters() const { return parameters_; }
  // How the model samples a shape (its training defaults) and with which seed.
  const ShapeSampleOptions& sample_options() const { return sample_options_; }
  std::uint64_t sample_seed() const { return sample_seed_; }

  // The fields of one shape: the constant column 1 first (when asked), then the m learned fields
  // normalised over the shape's cubature points as the model was trained.
  std::shared_ptr<const SkinningField> fields_for(const ShapeSample& shape, bool constant_column = true) const;
  // Every raw field of the field stage as it comes (no output map), the constant column first:
  // the span a Rayleigh-Ritz model's per-shape selection keeps `handles()` combinations of.
  std::shared_ptr<const SkinningField> candidates_for(const ShapeSample& shape) const;
  // The same from a mesh in its file coordinates (sampled with sample_options() and sample_seed()).
  std::shared_ptr<const SkinningField> fields_for(const Mesh& mesh, bool constant_column = true) const;

  // Lower level (tests, benchmarks). The per-shape constants of the field stage.
  struct Shape;
  std::shared_ptr<const Shape> encode(const Eigen::MatrixXf& surface) const;
  // Raw (unnormalised) fields at points of the normalised frame: W (N x raw_field_count()) and, when
  // `gradient` is given, dW/dx_c (N x raw_field_count() each).
  void raw_fields(const Shape& shape, std::span<const Vec3d> points, Eigen::MatrixXd& W,
                  std::array<Eigen::MatrixXd, 3>* gradient) const;

  struct Program;

 private:
  std::string source_;
  nlohmann::json description_;
  int handles_ = 0, raw_fields_ = 0;
  std::unique_ptr<FieldOutputOptions> output_;  // the parsed output_normalization
  std::int64_t parameters_ = 0;
  ShapeSampleOptions sample_options_;
  std::uint64_t sample_seed_ = 1;
  std::unique_ptr<Program> encoder_, field_;
  std::unique_ptr<ThreadPool> pool_;
  mutable std::mutex pool_mutex_;  // a pool runs one loop at a time
};

// The shipped models (models/physskin_small.wfield, and with `rig` models/physskin_clonk_rig.wfield,
// trained with L_comp on the bundled clonk), or the files named by $WOBBLE_NEURAL_MODEL and
// $WOBBLE_NEURAL_RIG_MODEL.
std::filesystem::path default_field_network_path(bool rig);
// The fields of the .wfield model in `file` for any mesh (empty `file`: the default, with `rig`
// the rig-complementary one). Loads the model once, now: throws Error naming a bad file, and
// says how to export a LibTorch .pt file.
MeshFields field_network_mesh_fields(const std::filesystem::path& file, bool rig);
// The fields of an evaluator already loaded, for any mesh.
MeshFields network_mesh_fields(std::shared_ptr<const FieldNetwork> network);

}  // namespace wobble::fields
