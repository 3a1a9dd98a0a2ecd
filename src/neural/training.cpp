// PISSL training loop (PhysSkin++ III-C), data-parallel over ranks, and the per-object baseline,
// sharing one loss step.
#include <wobble/neural/training.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numbers>
#include <optional>

#include <fmt/format.h>

#include <wobble/error.hpp>
#include <wobble/io/atomic_file.hpp>
#include <wobble/io/files.hpp>
#include <wobble/neural/loss_plot.hpp>
#include <wobble/neural/subspace_quality.hpp>

#include <wobble/physics/elasticity.hpp>
#include <wobble/physics/subspace_fidelity.hpp>

#include "compliance_loss.hpp"
#include "distributed.hpp"
#include "eigenmode_targets.hpp"
#include "core/fail.hpp"
#include "loss_terms.hpp"
#include "losses.hpp"
#include "network.hpp"
#include "output_transform.hpp"
#include "torch_field.hpp"
#include "training_config.hpp"
#include "training_shapes.hpp"

namespace wobble::neural {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char* kOptimizerStepKey = "wobble_step";  // the step a checkpoint.optim.pt belongs to

// The network's output normalisation (network.orthonormal_output, validated when the configuration
// was read) and the on-the-fly one of training, which losses.normalize can switch off.
ColumnNormalization output_normalization_of(const TrainingConfig& config) {
  return output_normalization(config.network.value("orthonormal_output", false));
}
ColumnNormalization normalization_of(const TrainingConfig& config) {
  return config.losses.normalize ? output_normalization_of(config) : ColumnNormalization::none;
}
// Orthonormalised columns make L_orth zero up to rounding; its unit-normalised rounding noise
// would take a full share of a ConFIG step, so it is left out.
bool orthogonality_active(const TrainingConfig& config) {
  return config.losses.orthogonality && normalization_of(config) != ColumnNormalization::orthonormal;
}
// Whether a run computes the loss (batch_losses' rule).
bool loss_active(LossTerm term, const TrainingConfig& config) {
  const LossOptions& o = config.losses;
  switch (term) {
    case kSmooth: return o.smooth;
    case kPotential: return o.potential;
    case kOrthogonality: return orthogonality_active(config);
    case kComplementarity: return !config.rig.empty();
    case kSpan: return o.eigen_span;
    case kCompliance: return o.compliance;
    default: return false;
  }
}
bool loss_shown(LossTerm term, const TrainingConfig& config) { return always_shown(term) || loss_active(term, config); }

// The training material (its Lame parameters are the runtime's: physics::Material).
physics::Material training_material(const LossOptions& o) {
  physics::Material m;
  m.youngs_modulus = o.youngs_modulus;
  m.poisson_ratio = o.poisson_ratio;
  return m;
}

// The compliance loss's loads on a shape: pinned and poked as the fidelity measure does it.
ComplianceSetup compliance_setup(const ShapeTensors& shape, const LossOptions& o) {
  const physics::FidelityOptions fidelity;
  const physics::Material material = training_material(o);
  return {top_pins(shape.cubature, fidelity.pinned_fraction, fidelity.pin_blend), material.mu(), material.lambda(),
          o.compliance_pokes, fidelity.poke_radius};
}

// Losses at a random batch of the shape's cubature points (drawn with `generator`), fields given
// by `raw` (N x 3 -> N x m) of a model with `handles` kept fields.
BatchLosses batch_losses(const TorchField::RawFields& raw, int handles, const ShapeTensors& shape,
                         const TrainingConfig& config, double blend, bool create_graph, at::Generator& generator) {
  const LossOptions& o = config.losses;
  const auto available = shape.cubature.size(0);
  const auto n = std::min<std::int64_t>(config.batch_points, available);
  const torch::Tensor index = torch::randperm(available, generator, torch::kLong).slice(0, 0, n);
  // The Rayleigh-Ritz selection (kept_subspace) weighs the fields' gradients.
  const bool need_gradient = o.smooth || o.potential || o.kept_subspace || o.compliance;
  const bool by_autograd = need_gradient && o.autograd_gradients;
  const torch::Tensor X = shape.cubature.index_select(0, index).clone().requires_grad_(by_autograd);
  const torch::Tensor V = shape.volumes.index_select(0, index);
  FieldBatch computed;
  if (need_gradient && !by_autograd) {
    computed = fields_with_difference_gradients(raw, X, o.difference_step);
  } else {
    computed.W = raw(X);
    computed.dW =
        by_autograd ? spatial_gradients(computed.W, X, create_graph) : torch::zeros({n, computed.W.size(1), 3});
  }
  const ColumnNormalization normalization = normalization_of(config);
  const FieldBatch fields = o.kept_subspace ? kept_subspace(computed.W, computed.dW, handles)
                                            : assemble_fields(computed.W, computed.dW, normalization, true);
  BatchLosses out;
  if (loss_active(kSmooth, config)) out.terms[kSmooth] = o.weight_smooth * smoothness_loss(fields);
  if (loss_active(kOrthogonality, config))
    out.terms[kOrthogonality] = o.weight_orthogonality * orthogonality_loss(fields);
  if (shape.rig_weights.defined()) {
    // The learned (complementary) columns only; divided by N^2 so the weight is batch-size free.
    out.terms[kComplementarity] =
        o.weight_complementarity / static_cast<double>(n * n) *
        complementarity_loss(fields.W.slice(1, 1), X.detach(), shape.rig_weights.index_select(0, index));
  }
  if (loss_active(kPotential, config)) {
    const physics::Material material = training_material(o);
    const torch::Tensor Z = config.z_sigma * torch::randn({config.z_samples, fields.W.size(1), 3, 4}, generator);
    out.terms[kPotential] =
        o.weight_potential * potential_loss(fields, X, V, Z, material.mu(), material.lambda(), blend);
  }
  if (loss_active(kSpan, config)) {
    // With kept_subspace, the span of what inference keeps; else of every candidate.
    const torch::Tensor spanning = o.kept_subspace ? fields.W.slice(1, 1) : computed.W;
    const torch::Tensor targets = eigenmode_targets(shape, X, handles, o.eigen_span_grid);
    out.terms[kSpan] = o.weight_eigen_span * span_residual_loss(spanning, targets);
  }
  if (loss_active(kCompliance, config))
    out.terms[kCompliance] =
        o.weight_compliance * compliance_loss(fields, X.detach(), V, compliance_setup(shape, o), generator);
  return out;
}

// How a step combines its per-loss gradients: the gradient of their sum (one backward pass), or
// ConFIG over them, optionally with L_orth's gradient (row penalty_row) added to the ConFIG update
// of the others instead of taking part in it.
struct GradientCombination {
  bool per_loss = false;
  std::ptrdiff_t penalty_row = -1;
};

// Per-loss gradient rows come in LossTerm order (BatchLosses::active()): L_smooth, L_pot, L_orth, ...
int physics_rows(const TrainingConfig& config) {
  return (loss_active(kSmooth, config) ? 1 : 0) + (loss_active(kPotential, config) ? 1 : 0);
}

GradientCombination combination_of(const TrainingConfig& config) {
  const LossOptions& o = config.losses;
  GradientCombination c{o.config};
  const int before = physics_rows(config);  // L_orth's row follows theirs
  if (o.config && o.orthogonality_penalty && loss_active(kOrthogonality, config) && before > 0) c.penalty_row = before;
  return c;
}

// The gradients one step combines, flattened over the parameters: one per active loss for
// ConFIG, else the gradient of their sum (one backward pass).
std::vector<torch::Tensor> loss_gradients(const BatchLosses& losses, const std::vector<torch::Tensor>& parameters,
                                          bool per_loss) {
  std::vector<torch::Tensor> terms = losses.active();
  if (terms.empty()) fail_plain("training: every loss is switched off");
  if (!per_loss) {
    torch::Tensor total = terms.front();
    for (std::size_t i = 1; i < terms.size(); ++i) total = total + terms[i];
    terms = {total};
  }
  std::vector<torch::Tensor> flat;
  for (std::size_t i = 0; i < terms.size(); ++i) {
    const auto grads = torch::autograd::grad({terms[i]}, parameters, {}, /*retain_graph=*/i + 1 < terms.size(),
                                             /*create_graph=*/false, /*allow_unused=*/true);
    std::vector<torch::Tensor> pieces;
    for (std::size_t p = 0; p < parameters.size(); ++p)
      pieces.push_back(grads[p].defined() ? grads[p].reshape(-1) : torch::zeros({parameters[p].numel()}));
    flat.push_back(torch::cat(pieces));
  }
  return flat;
}

// The number of gradients loss_gradients returns under this configuration (batch_losses' rule).
std::int64_t gradient_rows(const TrainingConfig& config) {
  if (!config.losses.config) return 1;
  std::int64_t rows = 0;
  for (int k = 0; k < kLossTerms; ++k) rows += loss_active(LossTerm(k), config) ? 1 : 0;
  return rows;
}

// The step's update from the batch-averaged gradients (rows of `averaged`, in double): ConFIG
// over the per-loss gradients (plus the penalty's), or the gradient of the sum as it is.
void set_update(const torch::Tensor& averaged, const std::vector<torch::Tensor>& parameters,
                const GradientCombination& how) {
  std::vector<torch::Tensor> rows;
  for (std::int64_t k = 0; k < averaged.size(0); ++k) rows.push_back(averaged[k]);
  const torch::Tensor update =
      how.per_loss && rows.size() > 1 ? config_update_with_penalty(rows, how.penalty_row) : rows.front();
  std::int64_t offset = 0;
  for (const torch::Tensor& p : parameters) {
    p.mutable_grad() = update.slice(0, offset, offset + p.numel()).view_as(p).to(p.scalar_type());
    offset += p.numel();
  }
}

double learning_rate_at(const TrainingConfig& c, int step) {
  const int warmup = std::max(1, static_cast<int>(std::lround(c.warmup * c.steps)));
  if (step < warmup) return c.learning_rate * (step + 1) / warmup;
  const double t = static_cast<double>(step - warmup) / std::max(1, c.steps - warmup);
  return c.min_learning_rate + 0.5 * (c.learning_rate - c.min_learning_rate) * (1 + std::cos(std::numbers::pi * t));
}

double blend_at(const TrainingConfig& c, int step) {
  if (c.losses.blend_fraction <= 0) return 1;
  return std::min(1.0, step / (c.losses.blend_fraction * c.steps));
}

double median(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

// A validation shape: its tensors, fixed batch draws, and, for a connected real mesh, the surface
// operator of the quality ratio with its bound.
struct ValidationShape {
  ShapeTensors tensors;
  std::optional<SurfaceOperator> surface;
  Eigen::VectorXd bound;
  torch::Tensor surface_points;  // the surface operator's vertices, normalised frame
};

std::vector<ValidationShape> validation_set(const TrainingConfig& config, int handles) {
  std::vector<ValidationShape> out;
  for (ShapeTensors& t : validation_tensors(config)) out.push_back({std::move(t), std::nullopt, {}, {}});
  const std::size_t first_real = out.size() - config.real_validation.size();
  for (std::size_t k = 0; k < config.real_validation.size(); ++k) {
    const Character character = load_character(config.real_validation[k]);
    SurfaceOperator op = surface_operator(character.mesh);
    if (op.components != 1) continue;  // the ratio's bound holds for connected meshes only
    ValidationShape& v = out[first_real + k];
    const fields::Normalization n = fields::make_shape_sample(character.mesh, "", config.sample, 5).normalization;
    v.surface_points = torch::empty({static_cast<std::int64_t>(op.vertices.size()), 3}, torch::kFloat32);
    for (std::size_t p = 0; p < op.vertices.size(); ++p)
      for (int c = 0; c < 3; ++c)
        v.surface_points[static_cast<std::int64_t>(p)][c] = static_cast<float>(n.to_normalized(op.vertices[p])[c]);
    v.bound = lowest_nonzero_eigenvalues(op, handles);
    v.surface = std::move(op);
  }
  return out;
}

// The model's subspace quality ratio on a validation mesh, its fields normalised over the
// shape's cubature points as at inference.
double validation_quality(SkinningNetwork& network, const ValidationShape& v, const TrainingConfig& config) {
  torch::NoGradGuard no_grad;
  const torch::Tensor latents = network->encode(v.tensors.surface);
  const ColumnTransform t = output_transform([&](const torch::Tensor& X) { return network->fields(latents, X); },
                                             v.tensors.cubature, output_options(network->config));
  const torch::Tensor W = t.apply(network->fields(latents, v.surface_points)).to(torch::kFloat64).contiguous();
  Eigen::MatrixXd fields(W.size(0), W.size(1) + 1);
  fields.col(0).setOnes();
  fields.rightCols(W.size(1)) =
      Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(W.data_ptr<double>(),
                                                                                               W.size(0), W.size(1));
  return subspace_quality(*v.surface, fields, true, v.bound).ratio;
}

struct Validation {
  double loss = std::nan(""), quality = std::nan("");  // mean loss; median quality ratio over connected meshes
};

Validation validate(SkinningNetwork& network, const std::vector<ValidationShape>& shapes, const TrainingConfig& config,
                    double blend) {
  Validation out;
  if (shapes.empty()) return out;
  double sum = 0;
  std::vector<double> qualities;
  for (std::size_t k = 0; k < shapes.size(); ++k) {
    const ValidationShape& v = shapes[k];
    at::Generator generator =
        ItemRandom(config.seed, -1, static_cast<std::int64_t>(k)).generator;  // the same draw every time
    const torch::Tensor latents = network->encode(v.tensors.surface);
    const auto raw = [&](const torch::Tensor& X) { return network->fields(latents, X); };
    // Fields that cannot be orthonormalised on a shape count as infinitely bad there.
    try {
      sum += batch_losses(raw, network->config.handles, v.tensors, config, blend, false, generator)
                 .values()
                 .sum()
                 .item<double>();
    } catch (const DependentFields&) {
      sum = std::numeric_limits<double>::infinity();
    }
    if (!v.surface) continue;
    try {
      qualities.push_back(validation_quality(network, v, config));
    } catch (const DependentFields&) {
      qualities.push_back(std::numeric_limits<double>::infinity());
    }
  }
  out.loss = sum / static_cast<double>(shapes.size());
  out.quality = median(qualities);
  return out;
}

// The optimizer's state first, then the network: each file is renamed into place whole, and each
// holds the step, so that a run killed between the two is found out on resume (resumed_optimizer).
void write_checkpoint(SkinningNetwork& network, torch::optim::Adam& optimizer, const fs::path& checkpoint,
                      const fs::path& optimizer_file, const json& metadata) {
  torch::serialize::OutputArchive archive;
  optimizer.save(archive);
  archive.write(kOptimizerStepKey, c10::IValue(static_cast<std::int64_t>(metadata.value("step", 0))));
  save_archive(archive, optimizer_file);
  save_network(network, checkpoint.string(), metadata);
}

// Loads the optimizer state saved with checkpoint.pt at `step`, or says why the run cannot resume.
void resumed_optimizer(torch::optim::Adam& optimizer, const fs::path& optimizer_file, int step) {
  if (!fs::is_regular_file(optimizer_file))
    fail(optimizer_file, "cannot resume: the optimizer state is missing (train again without --resume)");
  torch::serialize::InputArchive archive;
  try {
    archive.load_from(optimizer_file.string());
  } catch (const c10::Error&) {
    fail(optimizer_file, "cannot resume: not a torch archive (train again without --resume)");
  }
  c10::IValue saved;
  if (archive.try_read(kOptimizerStepKey, saved) && saved.isInt() && saved.toInt() != step)
    fail(optimizer_file,
         "cannot resume: the optimizer state is of step {}, checkpoint.pt of step {} (the run was stopped between "
         "writing the two; train again without --resume)",
         saved.toInt(), step);
  optimizer.load(archive);
}

// The loss rows of steps 1 to `step` (the curves are written before each checkpoint), or says why
// the run cannot resume.
LossCurves resumed_curves(const fs::path& csv, int step) {
  LossCurves curves = read_loss_csv(csv, step);
  const int last = curves.steps().empty() ? 0 : curves.steps().back();
  if (step > 0 && last != step)
    fail(csv, "cannot resume: the loss rows end at step {}, checkpoint.pt is of step {} (train again without --resume)",
         last, step);
  return curves;
}

// The run's files: the network's checkpoint and the optimizer state saved with it.
struct CheckpointFiles {
  fs::path network, optimizer;
};

// Where the run's files go; rank 0 alone writes them.
TrainingReport report_outline(const TrainingConfig& config, const TorchrunEnvironment& environment) {
  TrainingReport report;
  report.model = config.output / "model.pt";
  report.csv = config.output / "losses.csv";
  report.plot = config.output / "losses.png";
  report.ranks = environment.world_size;
  report.wrote_outputs = environment.rank == 0;
  return report;
}

// The network as initialised from the seed (--steps 0): no data, no optimizer step.
TrainingReport write_untrained(SkinningNetwork& network, const TrainingConfig& config, TrainingReport report) {
  report.parameters = parameter_count(*network);
  if (report.wrote_outputs)  // whole or not at all (save_archive)
    save_network(network, report.model.string(),
                 json{{"step", 0},
                      {"config", config.network},
                      {"seed", config.seed},
                      {"steps", 0},
                      {"batch_points", config.batch_points},
                      {"z_samples", config.z_samples},
                      {"untrained", true}});
  return report;
}

// Where a run starts: step 0 with no rows, or a checkpoint's step with its optimizer state and loss rows.
struct StartPoint {
  int first_step = 0;
  LossCurves curves;
};

StartPoint resumed_start(torch::optim::Adam& optimizer, const json& checkpoint_metadata, const TrainingConfig& config,
                         const CheckpointFiles& files, const fs::path& csv) {
  StartPoint start;
  check_same_run(checkpoint_metadata, config, files.network);
  start.first_step = checkpoint_metadata.value("step", 0);
  resumed_optimizer(optimizer, files.optimizer, start.first_step);
  start.curves = resumed_curves(csv, start.first_step);
  return start;
}

// The training shapes; on rank 0, a line saying how long the real meshes took to sample.
TrainingShapes sampled_shapes(const TrainingConfig& config, const TrainingProgress& progress, bool root,
                              int first_step) {
  const auto loading = std::chrono::steady_clock::now();
  TrainingShapes shapes(config);
  if (progress && root && shapes.real_count() > 0)
    progress(first_step, config.steps,
             fmt::format("{} real training meshes sampled in {:.1f} s", shapes.real_count(),
                         std::chrono::duration<double>(std::chrono::steady_clock::now() - loading).count()));
  return shapes;
}

// Every rank has loaded its data: check that the ranks agree, and start from rank 0's parameters.
void start_together(DataParallelGroup& group, const TrainingConfig& config, int first_step,
                    std::int64_t parameter_total, std::vector<torch::Tensor> parameters) {
  group.check_same(first_step, "the step to start from");
  group.check_same(parameter_total, "the parameter count");
  group.check_same(config.steps, "steps");
  group.check_same(config.shapes_per_step, "shapes_per_step");
  torch::NoGradGuard no_grad;
  group.broadcast_from_root(parameters);
}

void set_learning_rate(torch::optim::Adam& optimizer, double lr) {
  for (auto& group : optimizer.param_groups()) static_cast<torch::optim::AdamOptions&>(group.options()).lr(lr);
}

// What every step of a run works with.
struct TrainingRun {
  const TrainingConfig& config;
  SkinningNetwork& network;
  torch::optim::Adam& optimizer;
  const std::vector<torch::Tensor>& parameters;
  std::int64_t parameter_total;
  GradientCombination combination;
  const TrainingShapes& shapes;
  DataParallelGroup& group;
};

// One step's sums over this rank's items, in double: the gradient rows, and the losses
// (BatchLosses::values) followed by the number of items used.
struct StepSums {
  torch::Tensor gradients, losses;
};

// This rank's items of the step's N x B: r*B .. r*B + B-1, each drawn from its own seed.
// Summed in double: the sum's rounding then no longer depends on the order of the items
// (ranks or not) at any level Adam could amplify (see docs/neural.md).
StepSums rank_item_sums(const TrainingRun& run, int step, double blend) {
  const TrainingConfig& config = run.config;
  const int items = config.shapes_per_step;
  StepSums sums{torch::zeros({gradient_rows(config), run.parameter_total}, torch::kFloat64),
                torch::zeros({kLossTerms + 1}, torch::kFloat64)};
  for (int j = 0; j < items; ++j) {
    ItemRandom item(config.seed, step, static_cast<std::int64_t>(run.group.rank()) * items + j);
    const ShapeTensors shape = run.shapes.draw(item.random);
    const torch::Tensor latents = run.network->encode(shape.surface);
    const auto raw = [&](const torch::Tensor& X) { return run.network->fields(latents, X); };
    BatchLosses batch;
    try {
      batch = batch_losses(raw, run.network->config.handles, shape, config, blend, true, item.generator);
    } catch (const DependentFields&) {
      continue;  // fields that cannot be orthonormalised on this batch: the item is left out (logged)
    }
    sums.gradients += torch::stack(loss_gradients(batch, run.parameters, run.combination.per_loss)).to(torch::kFloat64);
    sums.losses.slice(0, 0, kLossTerms) += batch.values();
    sums.losses[kLossTerms] += 1;
  }
  return sums;
}

// The step's mean losses over all ranks' items (BatchLosses::values), and how many items were
// left out.
struct StepLosses {
  torch::Tensor mean;
  int skipped = 0;
};

// One optimizer step from the mean over all N x B items: every rank computes the same (ConFIG) update.
StepLosses take_step(const TrainingRun& run, int step, double blend) {
  StepSums sums = rank_item_sums(run, step, blend);
  run.group.all_reduce_sum(sums.gradients);
  run.group.all_reduce_sum(sums.losses);
  const double used = sums.losses[kLossTerms].item<double>();
  StepLosses out;
  out.mean = sums.losses.slice(0, 0, kLossTerms) / std::max(used, 1.0);
  out.skipped = run.group.size() * run.config.shapes_per_step - static_cast<int>(used);
  if (used > 0) {
    set_update(sums.gradients / used, run.parameters, run.combination);
    run.optimizer.step();
  }
  return out;
}

json checkpoint_metadata(const TrainingConfig& config, int step, int world) {
  return json{{"step", step},
              {"config", config.network},
              {"seed", config.seed},
              {"steps", config.steps},
              {"batch_points", config.batch_points},
              {"z_samples", config.z_samples},
              {"shapes_per_step", config.shapes_per_step},
              {"ranks", world},
              {"run", run_identity(config)}};
}

// The losses summed since the last log line.
struct LossWindow {
  torch::Tensor sum = torch::zeros({kLossTerms}, torch::kFloat64);
  int count = 0;
};

// What rank 0 keeps over the steps and writes.
struct RunRecord {
  const std::vector<ValidationShape>& validation;
  const TrainingProgress& progress;
  CheckpointFiles files;
  int first_step = 0;
  LossCurves curves;
  LossWindow window;
};

// One step as rank 0 records it.
struct StepRecord {
  int step = 0;  // counted from 0
  bool last = false;
  double lr = 0, blend = 0, seconds = 0;
  StepLosses losses;
};

// The losses of `values` (LossTerm order) that the run shows, by name.
std::vector<std::pair<std::string, double>> shown_losses(const torch::Tensor& values, const TrainingConfig& config) {
  const auto v = values.accessor<double, 1>();
  std::vector<std::pair<std::string, double>> out;
  for (int k = 0; k < kLossTerms; ++k)
    if (loss_shown(LossTerm(k), config)) out.emplace_back(kLossNames[static_cast<std::size_t>(k)], v[k]);
  return out;
}

std::vector<std::pair<std::string, double>> loss_row(const StepRecord& s, const Validation& checked,
                                                     const TrainingConfig& config) {
  std::vector<std::pair<std::string, double>> row{{"lr", s.lr}, {"blend", s.blend}};
  for (const auto& [name, value] : shown_losses(s.losses.mean, config)) row.emplace_back(name, value);
  row.insert(row.end(), {{"total", s.losses.mean.sum().item<double>()},
                         {"seconds", s.seconds},
                         {"validation", checked.loss},
                         {"validation_quality", checked.quality},
                         {"skipped", s.losses.skipped}});
  return row;
}

// The mean losses since the last log line: the report's final losses and a progress line.
void log_window(const TrainingRun& run, RunRecord& record, const StepRecord& s, TrainingReport& report) {
  const TrainingConfig& config = run.config;
  const int items = config.shapes_per_step, world = run.group.size();
  const torch::Tensor mean = record.window.sum / record.window.count;
  report.final_losses.clear();
  std::string losses;
  for (const auto& [name, value] : shown_losses(mean, config)) {
    report.final_losses[name] = value;
    losses += fmt::format("  {} {:.4g}", name, value);
  }
  report.final_losses["total"] = mean.sum().item<double>();
  const double per_step = s.seconds / (s.step + 1 - record.first_step);
  if (record.progress)
    record.progress(
        s.step + 1, config.steps,
        fmt::format("step {}/{}{}  lr {:.2e}  {:.2f} s/step  {:.2f} shapes/s  eta {:.0f} s", s.step + 1, config.steps,
                    losses, s.lr, per_step, world * items / per_step, per_step * (config.steps - s.step - 1)));
  record.window.sum.zero_();
  record.window.count = 0;
}

// The curves first, the checkpoint last: the checkpoint is what says a step was saved, so a
// run killed in between resumes from the previous one with every row it needs.
void save_progress(const TrainingRun& run, const RunRecord& record, int steps_done, const TrainingReport& report) {
  record.curves.write_csv(report.csv);
  std::vector<std::string> plotted(kLossNames.begin(), kLossNames.end());
  plotted.insert(plotted.end(), {"total", "validation", "validation_quality"});
  record.curves.write_plot(report.plot, plotted);
  write_checkpoint(run.network, run.optimizer, record.files.network, record.files.optimizer,
                   checkpoint_metadata(run.config, steps_done, run.group.size()));
}

// Rank 0's part of a step: validation when due, the step's loss row, the log line and checkpoint when due.
void record_step(const TrainingRun& run, RunRecord& record, const StepRecord& s, TrainingReport& report) {
  const TrainingConfig& config = run.config;
  Validation checked;
  if (!record.validation.empty() && ((s.step + 1) % config.validate_every == 0 || s.last)) {
    checked = validate(run.network, record.validation, config, s.blend);
    report.validation_loss = checked.loss;
    report.validation_quality = checked.quality;
  }
  record.curves.add(s.step + 1, loss_row(s, checked, config));
  if ((s.step + 1) % config.log_every == 0 || s.last) log_window(run, record, s, report);
  if ((s.step + 1) % config.checkpoint_every == 0 || s.last) save_progress(run, record, s.step + 1, report);
}

}  // namespace

void prepare_training_output(const TrainingConfig& config) {
  std::error_code error;
  fs::create_directories(config.output, error);
  if (error) fail(config.output, "cannot make the output folder: {}", error.message());
  AtomicOutput::check(config.output / "model.pt");
}

TrainingReport train_fields(const TrainingConfig& config, bool resume, const TrainingProgress& progress,
                            const TorchrunEnvironment& environment) {
  if (environment.rank == 0) prepare_training_output(config);
  torch::set_num_threads(1);
  torch::manual_seed(config.seed);
  const CheckpointFiles files{config.output / "checkpoint.pt", config.output / "checkpoint.optim.pt"};
  TrainingReport report = report_outline(config, environment);

  if (resume && !fs::exists(files.network)) fail(files.network, "no checkpoint to resume from");
  json resumed;
  SkinningNetwork network = resume ? load_network(files.network.string(), &resumed)
                                   : SkinningNetwork(NetworkConfig::from_json(config.network, "network"));
  if (config.steps == 0) {
    if (resume) fail(files.network, "--steps 0 writes the initial network: there is nothing to resume");
    return write_untrained(network, config, std::move(report));
  }
  network->train();
  torch::optim::Adam optimizer(network->parameters(), torch::optim::AdamOptions(config.learning_rate));
  StartPoint start_point = resume ? resumed_start(optimizer, resumed, config, files, report.csv) : StartPoint{};
  const int first_step = start_point.first_step;
  report.parameters = parameter_count(*network);
  const std::vector<torch::Tensor> parameters = network->parameters();
  const TrainingShapes shapes = sampled_shapes(config, progress, environment.rank == 0, first_step);
  const std::vector<ValidationShape> validation = report.wrote_outputs && config.validate_every > 0
                                                      ? validation_set(config, network->config.handles)
                                                      : std::vector<ValidationShape>{};

  DataParallelGroup group(environment,
                          std::chrono::milliseconds(static_cast<std::int64_t>(config.distributed_timeout * 1000)));
  start_together(group, config, first_step, report.parameters, parameters);

  const TrainingRun run{config, network, optimizer, parameters, report.parameters, combination_of(config),
                        shapes, group};
  RunRecord record{validation, progress, files, first_step, std::move(start_point.curves), {}};
  const int items = config.shapes_per_step, world = group.size();
  const auto start = std::chrono::steady_clock::now();
  for (int step = first_step; step < config.steps; ++step) {
    const double lr = learning_rate_at(config, step), blend = blend_at(config, step);
    set_learning_rate(optimizer, lr);
    const StepLosses losses = take_step(run, step, blend);
    report.skipped_items += losses.skipped;
    record.window.sum += losses.mean;
    ++record.window.count;
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (group.is_root()) record_step(run, record, {step, step + 1 == config.steps, lr, blend, seconds, losses}, report);
  }
  report.steps = config.steps;
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  report.seconds_per_step = report.seconds / std::max(1, config.steps - first_step);
  report.shapes_per_second = world * items / report.seconds_per_step;
  if (group.is_root()) {
    save_network(network, report.model.string(), checkpoint_metadata(config, config.steps, world));
  }
  return report;
}

PerObjectResult train_per_object(const fields::ShapeSample& shape, int handles, int steps, const TrainingConfig& config,
                                 std::uint64_t seed) {
  torch::set_num_threads(1);
  torch::manual_seed(seed);
  const auto start = std::chrono::steady_clock::now();
  auto mlp = std::make_shared<PerObjectMlp>(handles);
  // Simplicits' learning rate, with the same warm-up and cosine schedule.
  TrainingConfig local = config;
  local.steps = steps;
  local.learning_rate = 1e-3;
  local.min_learning_rate = 1e-4;
  torch::optim::Adam optimizer((*mlp)->parameters(), torch::optim::AdamOptions(local.learning_rate));
  const std::vector<torch::Tensor> parameters = (*mlp)->parameters();
  const ShapeTensors t(shape);
  const auto raw = [mlp](const torch::Tensor& X) { return (*mlp)->forward(X); };
  const GradientCombination combination = combination_of(local);
  for (int step = 0; step < steps; ++step) {
    set_learning_rate(optimizer, learning_rate_at(local, step));
    ItemRandom item(seed, step, 0);
    const BatchLosses batch = batch_losses(raw, handles, t, local, blend_at(local, step), true, item.generator);
    set_update(torch::stack(loss_gradients(batch, parameters, combination.per_loss)).to(torch::kFloat64), parameters,
               combination);
    optimizer.step();
  }
  PerObjectResult result;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.field = std::make_shared<TorchField>(raw, t.cubature, OutputOptions{output_normalization_of(local)}, true,
                                              fmt::format("per-object MLP ({} steps, {})", steps, shape.name));
  return result;
}

}  // namespace wobble::neural
