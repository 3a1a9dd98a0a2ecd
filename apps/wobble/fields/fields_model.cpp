// A .pt or .wfield model for the `wobble fields` commands (see fields_model.hpp).
#include "fields_model.hpp"

#include <wobble/neural/neural_field.hpp>
#include <wobble/fields/field_network.hpp>

namespace wobble::cli {

FieldsModel::FieldsModel(const std::filesystem::path& file) : file_(file) {
  if (file.extension() == ".wfield")
    network_ = fields::FieldNetwork::load(file);
  else
    torch_ = std::make_unique<neural::NeuralFieldModel>(file);
}

FieldsModel::~FieldsModel() = default;

int FieldsModel::handles() const { return network_ ? network_->handles() : torch_->handles(); }

nlohmann::json FieldsModel::metadata() const {
  return network_ ? network_->description().value("metadata", nlohmann::json::object()) : torch_->metadata();
}

std::shared_ptr<const fields::SkinningField> FieldsModel::fields_for(const fields::ShapeSample& shape,
                                                                     bool constant_column) const {
  if (network_) return network_->fields_for(shape, constant_column);
  return torch_->fields_for(shape, constant_column);
}

std::shared_ptr<const fields::FieldNetwork> FieldsModel::runtime_network() const {
  if (network_) return network_;
  if (!exported_) exported_ = neural::runtime_network(file_);
  return exported_;
}

}  // namespace wobble::cli
