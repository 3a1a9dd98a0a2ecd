#pragma once
// A trained neural skinning fields model (PhysSkin++ III-B) and the skinning fields it predicts
// for a new shape in one feed-forward pass: a fields::SkinningField (W and its spatial gradient
// at any points of the normalised frame), usable by the runtime like eigenmodes.
#include <filesystem>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include <wobble/mesh.hpp>
#include <wobble/fields/shape_sample.hpp>
#include <wobble/fields/skinning_field.hpp>

namespace wobble::fields {
class FieldNetwork;
}

namespace wobble::neural {

class NeuralFieldModel {
 public:
  // Throws Error naming the file when it is missing or not a wobble model.
  explicit NeuralFieldModel(const std::filesystem::path& file);
  ~NeuralFieldModel();

  int handles() const;  // learned fields m (the constant column comes on top)
  std::int64_t parameters() const;
  const nlohmann::json& metadata() const;  // how it was trained
  nlohmann::json network() const;          // its sizes
  const std::filesystem::path& file() const;

  // Fields of one shape: the constant column 1 first (when asked), then the m learned fields,
  // each scaled to mean square 1 over the shape's cubature points (as in training).
  std::shared_ptr<fields::SkinningField> fields_for(const fields::ShapeSample& shape,
                                                    bool constant_column = true) const;
  // The same from a mesh in its file coordinates (sampled with the training defaults).
  std::shared_ptr<fields::SkinningField> fields_for(const Mesh& mesh, bool constant_column = true,
                                                    std::uint64_t seed = 1) const;

  struct Impl;

 private:
  std::shared_ptr<Impl> impl_;
};

// The model shipped in the repository (models/physskin_small.pt), or the file named by the
// environment variable WOBBLE_NEURAL_MODEL.
std::filesystem::path default_model_path();
// The rig-complementary model shipped for the bundled character (models/physskin_clonk_rig.pt:
// trained with L_comp on clonk, use its fields without the constant column), or the file named by
// WOBBLE_NEURAL_RIG_MODEL.
std::filesystem::path default_rig_model_path();
// The fields of the model in `file` for any mesh, evaluated without LibTorch (the .wfield
// evaluator, wobble/fields/field_network.hpp); a .pt file is exported in memory first. An empty
// `file` means the shipped .wfield model (with `rig`, the rig-complementary one). Loads the model
// once, now: throws Error naming a bad file.
fields::MeshFields mesh_fields(const std::filesystem::path& file, bool rig);
// The same evaluator itself for the model in `file`: a .wfield loaded, a .pt exported in memory.
std::shared_ptr<const fields::FieldNetwork> runtime_network(const std::filesystem::path& file);

}  // namespace wobble::neural
