#pragma once
// Physics-informed self-supervised training of the neural skinning fields (PhysSkin++ III-C):
// L_smooth + lambda_pot L_pot + lambda_orth L_orth on cubature points of procedural and real
// shapes, on-the-fly column normalisation, ConFIG, Adam with warm-up and cosine decay, seeds,
// checkpoints and resume, a loss CSV and its PNG plot. Every component can be switched off.
//
// Configuration file (JSON; every key optional, unknown keys are errors):
// {
//   "seed": 1, "steps": 1000, "learning_rate": 5e-4, "min_learning_rate": 5e-5, "warmup": 0.01,
//   "batch_points": 256, "z_samples": 16, "z_sigma": 0.2,
//   "shapes_per_step": 1,             (B: shapes per step and rank; N ranks train on N x B)
//   "losses": {"smooth": true, "potential": true, "orthogonality": true, "normalize": true,
//              "config": true, "weight_smooth": 1, "weight_potential": 1, "weight_orthogonality": 100,
//              "youngs_modulus": 1, "poisson_ratio": 0.45, "blend_fraction": 0.5,
//              "autograd_gradients": false, "difference_step": 1e-3, "kept_subspace": false,
//              "eigen_span": false, "weight_eigen_span": 1, "eigen_span_grid": 20},
//   "network": {... see NetworkConfig in src/neural/network.hpp ...; "orthonormal_output": true
//               orthonormalises the batch's columns instead of scaling them, and then L_orth,
//               zero by construction, is left out},
//   "data": {"procedural_shapes": 5000, "validation_procedural": 6, "real_fraction": 0.2,
//            "real_train": ["../shared/assets/shapes/cow.off"], "real_validation": [...],
//            "corpus": "corpus.json",   (more of both: {"train": [...], "validation": [...]})
//            "surface_points": 1024, "cubature_points": 1000, "grid_resolution": 16,
//            "augment_rotation": false, "augment_scaling": 1,   (real meshes, when drawn)
//            "resample_points": false},   (new surface and cubature points on every draw)
//   "output": "runs/small", "checkpoint_every": 100, "log_every": 10, "validate_every": 100,
//   "distributed_timeout": 300,      (seconds a rank waits for the others before giving up)
//   "rig": "character.glb"            (rig-complementary fields; losses.weight_complementarity)
// }
// Relative paths are relative to the configuration file.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <wobble/fields/shape_sample.hpp>
#include <wobble/neural/torchrun.hpp>
#include <wobble/fields/skinning_field.hpp>

namespace wobble::neural {

struct LossOptions {
  bool smooth = true, potential = true, orthogonality = true, normalize = true, config = true;
  double weight_smooth = 1, weight_potential = 1, weight_orthogonality = 100;
  double weight_complementarity = 1;                // L_comp (III-E), with a rig only
  double youngs_modulus = 1, poisson_ratio = 0.45;  // energy scales with E: E only rescales lambda_pot
  double blend_fraction = 0.5;                      // linear -> Neo-Hookean over this part of training
  // With ConFIG: L_orth's gradient added to the ConFIG update of the other losses (a penalty of
  // weight weight_orthogonality); false: L_orth takes an equal share of the ConFIG direction, as
  // the paper words it, which lets the fields drift into collapse (docs/neural.md, "ConFIG and L_orth").
  bool orthogonality_penalty = true;
  // With candidate fields (network.candidate_fields): L_smooth and L_pot on the batch's
  // Rayleigh-Ritz selection, the `handles` smoothest orthonormal directions inference keeps,
  // instead of on every candidate.
  bool kept_subspace = false;
  // The span loss (not in the paper; docs/neural.md, "Training the candidates' span"): the part of
  // the shape's `handles` lowest skinning eigenmodes (after the constant, on a grid of
  // eigen_span_grid cells) outside the span of the constant and every raw field, at the batch's
  // points: what the Rayleigh-Ritz selection cannot recover from the candidates. With
  // kept_subspace, outside the span of the selection itself.
  bool eigen_span = false;
  double weight_eigen_span = 1;
  int eigen_span_grid = 20;
  // The compliance loss (not in the paper; docs/neural.md, "Training for loads"): -log of the
  // kept subspace's compliance under gravity with the top pinned and `compliance_pokes` random
  // Gaussian pokes, as the fidelity measure loads a shape (its pin share, blend and poke width):
  // the Galerkin error in the energy norm falls as the compliance rises.
  bool compliance = false;
  double weight_compliance = 1;
  int compliance_pokes = 4;
  // Spatial gradients of the fields: central differences of this step (normalised units, the
  // reference's choice; first-order autograd only), or exact autograd with a double backward.
  bool autograd_gradients = false;
  double difference_step = 1e-3;
};

struct TrainingConfig {
  std::uint64_t seed = 1;
  int steps = 1000;
  double learning_rate = 5e-4, min_learning_rate = 5e-5, warmup = 0.01;
  int batch_points = 256, z_samples = 16;
  double z_sigma = 0.2;
  int shapes_per_step = 1;           // per rank
  double distributed_timeout = 300;  // seconds
  LossOptions losses;
  nlohmann::json network = nlohmann::json::object();
  int procedural_shapes = 5000, validation_procedural = 6;
  double real_fraction = 0.2;
  // Each draw of a real mesh: a uniformly random rotation, and random stretches in
  // [1/augment_scaling, augment_scaling] along x, y and z (1: none).
  bool augment_rotation = false;
  double augment_scaling = 1;
  // Every draw of a shape samples new surface and cubature points (its seed from the draw), so
  // that the losses cannot fit one fixed quadrature: trained on one mesh's fixed 1,000 points, the
  // network halves its Dirichlet energy there and grows rougher between them (docs/neural.md).
  bool resample_points = false;
  std::vector<std::filesystem::path> real_train, real_validation;
  fields::ShapeSampleOptions sample;
  std::filesystem::path output = "runs/fields";
  int checkpoint_every = 100, log_every = 10, validate_every = 100;
  // A rigged character: train its rig-complementary fields (III-E: + lambda_comp L_comp, the
  // character's mesh as the only training shape; use the fields without the constant column).
  std::filesystem::path rig;

  // Throws Error naming the file (and key) for bad input.
  static TrainingConfig load(const std::filesystem::path& file);
  static TrainingConfig from_json(const nlohmann::json& j, const std::filesystem::path& source);
};

struct TrainingReport {
  int steps = 0, ranks = 1;
  double seconds = 0, seconds_per_step = 0;
  double shapes_per_second = 0;                // over all ranks
  std::map<std::string, double> final_losses;  // mean over the last log interval (and all ranks)
  double validation_loss = 0;                  // mean total loss on the validation shapes
  double validation_quality = 0;               // median subspace quality ratio, connected validation meshes
  bool wrote_outputs = false;                  // rank 0 writes; the other ranks write nothing
  std::int64_t skipped_items = 0;              // items whose fields could not be orthonormalised
  std::filesystem::path model, csv, plot;
  std::int64_t parameters = 0;
};

// progress(step, total, line): called every log_every steps (on rank 0 only).
using TrainingProgress = std::function<void(int, int, const std::string&)>;
// Trains and writes OUTPUT/model.pt, OUTPUT/checkpoint.pt (+ .optim), OUTPUT/losses.csv and
// OUTPUT/losses.png, each atomically. With resume, continues from OUTPUT/checkpoint.pt (on every
// rank: the folder must be visible to all). With steps 0, writes OUTPUT/model.pt alone: the
// network as initialised from the seed, before any data or optimizer step (the "untrained"
// control of a configuration).
//
// Data parallel when environment.world_size > 1 (a c10d Gloo process group): each step, rank r
// draws items r*B .. r*B+B-1 of the step (B = shapes_per_step), each item's shape, points and z
// from its own seed (config seed, step, item); the per-loss gradients are averaged over all N x B
// items (all-reduce) and ConFIG is applied to those averages. So N ranks with B compute what one
// process with N x B computes: the same items, and the same sums up to the order of the additions
// (see docs/neural.md). Rank 0 alone writes. A rank that dies or stalls past distributed_timeout
// makes the others throw Error.
TrainingReport train_fields(const TrainingConfig& config, bool resume, const TrainingProgress& progress = {},
                            const TorchrunEnvironment& environment = {});
// Makes the output folder and checks that it takes files, so that a read-only or missing folder
// is an Error naming it before any step (train_fields does this on rank 0; `wobble fields train`
// before it starts ranks).
void prepare_training_output(const TrainingConfig& config);

// The validation split of a configuration (fixed procedural seeds disjoint from training, plus
// the real meshes never used for training).
std::vector<fields::ShapeSample> validation_shapes(const TrainingConfig& config);

// The per-object baseline (Simplicits-style MLP 3 -> 64 x 6, ELU) trained on one shape with the
// same losses for `steps` steps; its fields carry the constant column first.
struct PerObjectResult {
  std::shared_ptr<fields::SkinningField> field;
  double seconds = 0;
};
PerObjectResult train_per_object(const fields::ShapeSample& shape, int handles, int steps, const TrainingConfig& config,
                                 std::uint64_t seed);

}  // namespace wobble::neural
