// Loading a trained model and predicting a new shape's fields (feed-forward inference).
#include <wobble/neural/neural_field.hpp>

#include <cstdlib>

#include <wobble/neural/field_export.hpp>
#include <wobble/fields/field_network.hpp>

#include "network.hpp"
#include "torch_field.hpp"

#ifndef WOBBLE_DEFAULT_MODEL
#define WOBBLE_DEFAULT_MODEL "models/physskin_small.pt"
#endif
#ifndef WOBBLE_DEFAULT_RIG_MODEL
#define WOBBLE_DEFAULT_RIG_MODEL "models/physskin_clonk_rig.pt"
#endif

namespace wobble::neural {

struct NeuralFieldModel::Impl {
  SkinningNetwork network{nullptr};
  nlohmann::json metadata;
  std::filesystem::path file;
};

NeuralFieldModel::NeuralFieldModel(const std::filesystem::path& file) : impl_(std::make_shared<Impl>()) {
  torch::set_num_threads(1);  // one intra-op thread: OpenMP threads busy-wait on shared cores
  impl_->network = load_network(file.string(), &impl_->metadata);
  impl_->file = file;
}

NeuralFieldModel::~NeuralFieldModel() = default;

int NeuralFieldModel::handles() const { return impl_->network->config.handles; }
std::int64_t NeuralFieldModel::parameters() const { return parameter_count(*impl_->network); }
const nlohmann::json& NeuralFieldModel::metadata() const { return impl_->metadata; }
nlohmann::json NeuralFieldModel::network() const { return impl_->network->config.to_json(); }
const std::filesystem::path& NeuralFieldModel::file() const { return impl_->file; }

std::shared_ptr<fields::SkinningField> NeuralFieldModel::fields_for(const fields::ShapeSample& shape,
                                                                    bool constant_column) const {
  torch::NoGradGuard no_grad;
  const torch::Tensor surface = torch::from_blob(const_cast<float*>(shape.surface.data()),
                                                 {shape.surface.cols(), shape.surface.rows()}, torch::kFloat32)
                                    .t()
                                    .contiguous();
  const torch::Tensor cubature = torch::from_blob(const_cast<float*>(shape.cubature.data()),
                                                  {shape.cubature.cols(), shape.cubature.rows()}, torch::kFloat32)
                                     .t()
                                     .contiguous();
  const torch::Tensor latents = impl_->network->encode(surface);
  std::shared_ptr<Impl> impl = impl_;
  auto raw = [impl, latents](const torch::Tensor& X) { return impl->network->fields(latents, X); };
  return std::make_shared<TorchField>(raw, cubature, output_options(impl_->network->config), constant_column,
                                      "neural fields (" + impl_->file.filename().string() + ", " + shape.name + ")");
}

std::shared_ptr<fields::SkinningField> NeuralFieldModel::fields_for(const Mesh& mesh, bool constant_column,
                                                                    std::uint64_t seed) const {
  return fields_for(fields::make_shape_sample(mesh, "shape", fields::ShapeSampleOptions{}, seed), constant_column);
}

namespace {
// The file named by the environment variable when set, else the one in the source tree.
std::filesystem::path model_path(const char* variable, const char* in_source_tree) {
  if (const char* path = std::getenv(variable); path && *path) return path;
  return in_source_tree;
}
}  // namespace

std::filesystem::path default_model_path() { return model_path("WOBBLE_NEURAL_MODEL", WOBBLE_DEFAULT_MODEL); }
std::filesystem::path default_rig_model_path() {
  return model_path("WOBBLE_NEURAL_RIG_MODEL", WOBBLE_DEFAULT_RIG_MODEL);
}

std::shared_ptr<const fields::FieldNetwork> runtime_network(const std::filesystem::path& file) {
  if (file.extension() != ".pt") return fields::FieldNetwork::load(file);
  // A LibTorch model: exported in memory, then evaluated like a .wfield file.
  return std::make_shared<const fields::FieldNetwork>(export_field_network(file), file.string());
}

fields::MeshFields mesh_fields(const std::filesystem::path& file, bool rig) {
  return fields::network_mesh_fields(runtime_network(!file.empty() ? file : fields::default_field_network_path(rig)));
}

}  // namespace wobble::neural
