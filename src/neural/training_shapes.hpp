#pragma once
// The shapes a training step sees (internal: LibTorch). Every draw is a function of its item's
// seed alone, so that N ranks drawing items r*B .. r*B+B-1 of a step see exactly the shapes, points
// and z one process drawing items 0 .. N*B-1 sees (distributed training), and a resumed run
// continues exactly as an uninterrupted one.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <vector>

#include <torch/torch.h>

#include <wobble/fields/shape_sample.hpp>
#include <wobble/neural/training.hpp>
#include <wobble/fields/sampling.hpp>

namespace wobble::neural {

// An Eigen matrix as a tensor of the same rows and columns that owns its memory.
torch::Tensor to_tensor(const Eigen::MatrixXf& m);

// One shape's sample as the tensors the losses take (they own their memory).
struct ShapeTensors {
  torch::Tensor surface, cubature, volumes, rig_weights;  // N x 6, C x 3, C, C x joints (or undefined)
  torch::Tensor vertices;  // V x 3, the mesh's vertices (normalised frame): the frame of an augmented copy
  explicit ShapeTensors(const fields::ShapeSample& s);
  ShapeTensors(const fields::ShapeSample& s, const Mesh& mesh);
};

// The random sources of one item of one step: the shape it draws and its augmentation
// (fields::Random), its batch points and z (a torch generator).
struct ItemRandom {
  fields::Random random;
  at::Generator generator;
  ItemRandom(std::uint64_t seed, int step, std::int64_t item);
};

// `shape` rotated by a uniformly random rotation, then stretched by random factors in
// [1/scaling, scaling] (log-uniform) along x, y and z, then put back into the normalised frame (centred
// on its vertices' bounding box, longest side 2): points, normals and volumes alike.
ShapeTensors augmented(const ShapeTensors& shape, fields::Random& random, bool rotate, double scaling);

// Training shapes: procedural ones from seeds [0, procedural_shapes), generated when drawn, and
// the real training meshes (sampled and converted once, or sampled anew on every draw with
// data.resample_points), augmented when drawn; or, for rig-complementary training, the rig's mesh alone.
class TrainingShapes {
 public:
  explicit TrainingShapes(const TrainingConfig& config);
  ShapeTensors draw(fields::Random& random) const;
  std::size_t real_count() const { return real_.size(); }

 private:
  struct RealShape {
    std::filesystem::path file;
    Mesh mesh;           // sampled anew on every draw with resample_points
    ShapeTensors fixed;  // its one sample otherwise
  };
  ShapeTensors real_shape(std::size_t index, fields::Random& random) const;

  const TrainingConfig& config_;
  std::vector<RealShape> real_;
  std::optional<ShapeTensors> rig_;
};

// The validation shapes (validation_shapes in training.hpp) as tensors.
std::vector<ShapeTensors> validation_tensors(const TrainingConfig& config);

}  // namespace wobble::neural
