#pragma once
// The model a `wobble fields` command reads with --model: a LibTorch .pt (neural::NeuralFieldModel)
// or its torch-free export, a .wfield (fields::FieldNetwork), e.g. the shipped untrained control
// models/physskin_small_untrained.wfield. Both give the same fields (docs/neural.md, "Agreement").
#include <filesystem>
#include <memory>

#include <nlohmann/json.hpp>

#include <wobble/fields/shape_sample.hpp>
#include <wobble/fields/skinning_field.hpp>

namespace wobble::neural {
class NeuralFieldModel;
}
namespace wobble::fields {
class FieldNetwork;
}

namespace wobble::cli {

class FieldsModel {
 public:
  // Throws Error naming the file when it is neither.
  explicit FieldsModel(const std::filesystem::path& file);
  ~FieldsModel();

  int handles() const;
  nlohmann::json metadata() const;  // how it was trained (batch_points, z_samples, ...)
  const std::filesystem::path& file() const { return file_; }
  std::shared_ptr<const fields::SkinningField> fields_for(const fields::ShapeSample& shape, bool constant_column) const;
  // The torch-free evaluator of the model, as `wobble simulate --subspace neural` runs it: the
  // .wfield itself, or the .pt exported in memory (once).
  std::shared_ptr<const fields::FieldNetwork> runtime_network() const;

 private:
  std::filesystem::path file_;
  std::unique_ptr<neural::NeuralFieldModel> torch_;
  std::shared_ptr<const fields::FieldNetwork> network_;
  mutable std::shared_ptr<const fields::FieldNetwork> exported_;  // a .pt's runtime_network()
};

}  // namespace wobble::cli
