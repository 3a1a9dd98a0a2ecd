// PISSL training loop (PhysSkin++ III-C) and the per-object baseline, sharing one loss step.
#include <wobble/neural/training.hpp>

#include <chrono>
#include <cmath>
#include <fstream>
#include <numbers>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include <wobble/io/atomic_file.hpp>
#include <wobble/error.hpp>
#include <wobble/io/files.hpp>
#include <wobble/neural/loss_plot.hpp>
#include <wobble/neural/shape_generator.hpp>
#include <wobble/physics/rig_weights_field.hpp>

#include "core/fail.hpp"
#include "losses.hpp"
#include "network.hpp"
#include "torch_field.hpp"

namespace wobble::neural {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

template <typename T>
void read(const json& j, const char* key, T& value, const fs::path& source) {
  if (!j.contains(key)) return;
  try {
    value = j.at(key).get<T>();
  } catch (const json::exception&) {
    fail(source, "'{}' has the wrong type", key);
  }
}

void reject_unknown(const json& j, std::initializer_list<const char*> keys, const fs::path& source, const char* section) {
  for (const auto& [key, value] : j.items()) {
    bool known = false;
    for (const char* k : keys) known = known || key == k;
    if (!known) fail(source, "unknown key '{}' in {}", key, section);
  }
}

torch::Tensor to_tensor(const Eigen::MatrixXf& m) {
  return torch::from_blob(const_cast<float*>(m.data()), {m.cols(), m.rows()}, torch::kFloat32).t().contiguous();
}
torch::Tensor to_tensor(const Eigen::VectorXf& v) {
  return torch::from_blob(const_cast<float*>(v.data()), {v.size()}, torch::kFloat32).clone();
}

// The losses of one batch, each already weighted; undefined when switched off.
struct BatchLosses {
  torch::Tensor smooth, potential, orthogonality, complementarity;
  std::vector<torch::Tensor> active() const {
    std::vector<torch::Tensor> out;
    for (const torch::Tensor* t : {&smooth, &potential, &orthogonality, &complementarity})
      if (t->defined()) out.push_back(*t);
    return out;
  }
};

// The network's output normalisation (network.orthonormal_output, validated when the configuration
// was read) and the on-the-fly one of training, which losses.normalize can switch off.
ColumnNormalization output_normalization_of(const TrainingConfig& config) {
  return output_normalization(config.network.value("orthonormal_output", false));
}
ColumnNormalization normalization_of(const TrainingConfig& config) {
  return config.losses.normalize ? output_normalization_of(config) : ColumnNormalization::none;
}

// Losses at a random batch of the shape's cubature points, fields given by `raw` (N x 3 -> N x m).
BatchLosses batch_losses(const TorchField::RawFields& raw, const torch::Tensor& cubature, const torch::Tensor& volumes,
                         const TrainingConfig& config, double blend, bool create_graph,
                         const torch::Tensor& rig_weights = {}) {
  const LossOptions& o = config.losses;
  const auto available = cubature.size(0);
  const auto n = std::min<std::int64_t>(config.batch_points, available);
  const torch::Tensor index = torch::randperm(available, torch::kLong).slice(0, 0, n);
  const bool need_gradient = o.smooth || o.potential, by_autograd = need_gradient && o.autograd_gradients;
  const torch::Tensor X = cubature.index_select(0, index).clone().requires_grad_(by_autograd);
  const torch::Tensor V = volumes.index_select(0, index);
  FieldBatch computed;
  if (need_gradient && !by_autograd) {
    computed = fields_with_difference_gradients(raw, X, o.difference_step);
  } else {
    computed.W = raw(X);
    computed.dW = by_autograd ? spatial_gradients(computed.W, X, create_graph) : torch::zeros({n, computed.W.size(1), 3});
  }
  const ColumnNormalization normalization = normalization_of(config);
  const FieldBatch fields = assemble_fields(computed.W, computed.dW, normalization, true);
  BatchLosses out;
  if (o.smooth) out.smooth = o.weight_smooth * smoothness_loss(fields);
  // Orthonormalised columns make L_orth zero up to rounding; its unit-normalised rounding noise
  // would take a full share of a ConFIG step, so it is left out.
  if (o.orthogonality && normalization != ColumnNormalization::orthonormal) out.orthogonality = o.weight_orthogonality * orthogonality_loss(fields);
  if (rig_weights.defined()) {
    // The learned (complementary) columns only; divided by N^2 so the weight is batch-size free.
    out.complementarity = o.weight_complementarity / static_cast<double>(n * n) *
                          complementarity_loss(fields.W.slice(1, 1), X.detach(), rig_weights.index_select(0, index));
  }
  if (o.potential) {
    const double E = o.youngs_modulus, nu = o.poisson_ratio;
    const double mu = E / (2 * (1 + nu)), lambda = E * nu / ((1 + nu) * (1 - 2 * nu));
    const torch::Tensor Z = config.z_sigma * torch::randn({config.z_samples, fields.W.size(1), 3, 4});
    out.potential = o.weight_potential * potential_loss(fields, X, V, Z, mu, lambda, blend);
  }
  return out;
}

// One optimiser step: ConFIG combination of the loss gradients, or their plain sum.
void apply_gradients(const BatchLosses& losses, torch::optim::Optimizer& optimizer,
                     const std::vector<torch::Tensor>& parameters, bool use_config) {
  optimizer.zero_grad();
  const std::vector<torch::Tensor> active = losses.active();
  if (active.empty()) return;
  if (!use_config || active.size() == 1) {
    torch::Tensor total = active.front();
    for (std::size_t i = 1; i < active.size(); ++i) total = total + active[i];
    total.backward();
    return;
  }
  std::vector<torch::Tensor> flat;
  for (std::size_t i = 0; i < active.size(); ++i) {
    const auto grads = torch::autograd::grad({active[i]}, parameters, {}, /*retain_graph=*/i + 1 < active.size(),
                                             /*create_graph=*/false, /*allow_unused=*/true);
    std::vector<torch::Tensor> pieces;
    for (std::size_t p = 0; p < parameters.size(); ++p)
      pieces.push_back(grads[p].defined() ? grads[p].reshape(-1) : torch::zeros({parameters[p].numel()}));
    flat.push_back(torch::cat(pieces));
  }
  const torch::Tensor update = config_update(flat);
  std::int64_t offset = 0;
  for (const torch::Tensor& p : parameters) {
    p.mutable_grad() = update.slice(0, offset, offset + p.numel()).view_as(p).clone();
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

ShapeSample load_real(const fs::path& file, const ShapeSampleOptions& options, std::uint64_t seed) {
  const Character character = load_character(file);
  if (character.mesh.triangles.empty()) fail(file, "has no triangles");
  return make_shape_sample(character.mesh, file.stem().string(), options, seed);
}

// One shape's sample as the tensors the losses take (copies: they own their memory).
struct ShapeTensors {
  torch::Tensor surface, cubature, volumes, rig_weights;
  explicit ShapeTensors(const ShapeSample& s)
      : surface(to_tensor(s.surface)), cubature(to_tensor(s.cubature)), volumes(to_tensor(s.volumes)) {
    if (s.rig_weights.size() > 0) rig_weights = to_tensor(s.rig_weights);
  }
};

// Training shapes: procedural ones from seeds [0, procedural_shapes), generated when drawn, and
// the real training meshes (sampled and converted once).
class TrainingShapes {
 public:
  explicit TrainingShapes(const TrainingConfig& config) : config_(config) {
    if (!config.rig.empty()) {
      const Character character = load_character(config.rig);
      if (!character.is_skinned()) fail(config.rig, "rig-complementary training needs a rigged file with skin weights");
      ShapeSample rig = make_shape_sample(character.mesh, config.rig.stem().string(), config.sample, config.seed);
      rig.rig_weights =
          physics::rig_weights_field(character, rig.normalization)->evaluate(cubature_points(rig), false).W.cast<float>();
      rig_.emplace(rig);
      return;
    }
    for (const fs::path& file : config.real_train) real_.emplace_back(load_real(file, config.sample, config.seed));
  }
  ShapeTensors draw(physics::Random& random) {
    if (rig_) return *rig_;
    if (!real_.empty() && random.uniform() < config_.real_fraction) return real_[random.next() % real_.size()];
    const std::uint64_t seed = random.next() % static_cast<std::uint64_t>(std::max(1, config_.procedural_shapes));
    return ShapeTensors(make_shape_sample(procedural_shape(seed), fmt::format("procedural {}", seed), config_.sample, seed + 11));
  }

 private:
  const TrainingConfig& config_;
  std::vector<ShapeTensors> real_;
  std::optional<ShapeTensors> rig_;
};

double total_of(const BatchLosses& l) {
  double sum = 0;
  for (const torch::Tensor& t : l.active()) sum += t.item<double>();
  return sum;
}

}  // namespace

TrainingConfig TrainingConfig::load(const fs::path& file) {
  std::ifstream in(file);
  if (!in) fail(file, "cannot open the training configuration");
  json j;
  try {
    in >> j;
  } catch (const json::exception& e) {
    fail(file, "invalid JSON ({})", e.what());
  }
  return from_json(j, file);
}

TrainingConfig TrainingConfig::from_json(const json& j, const fs::path& source) {
  if (!j.is_object()) fail(source, "a training configuration must be a JSON object");
  reject_unknown(j, {"seed", "steps", "learning_rate", "min_learning_rate", "warmup", "batch_points", "z_samples", "z_sigma",
                     "losses", "network", "data", "output", "checkpoint_every", "log_every", "validate_every", "comment", "rig"},
                 source, "the configuration");
  TrainingConfig c;
  read(j, "seed", c.seed, source);
  read(j, "steps", c.steps, source);
  read(j, "learning_rate", c.learning_rate, source);
  read(j, "min_learning_rate", c.min_learning_rate, source);
  read(j, "warmup", c.warmup, source);
  read(j, "batch_points", c.batch_points, source);
  read(j, "z_samples", c.z_samples, source);
  read(j, "z_sigma", c.z_sigma, source);
  read(j, "checkpoint_every", c.checkpoint_every, source);
  read(j, "log_every", c.log_every, source);
  read(j, "validate_every", c.validate_every, source);
  const fs::path base = source.parent_path();
  if (j.contains("rig")) {
    std::string rig;
    read(j, "rig", rig, source);
    c.rig = base / rig;
  }
  if (j.contains("output")) c.output = base / j["output"].get<std::string>();
  if (j.contains("network")) {
    NetworkConfig::from_json(j["network"], source.string());  // validates
    c.network = j["network"];
  }
  if (j.contains("losses")) {
    const json& l = j["losses"];
    reject_unknown(l, {"smooth", "potential", "orthogonality", "normalize", "config", "weight_smooth", "weight_potential",
                       "weight_orthogonality", "weight_complementarity", "youngs_modulus", "poisson_ratio", "blend_fraction",
                       "autograd_gradients", "difference_step"},
                   source, "'losses'");
    LossOptions& o = c.losses;
    read(l, "smooth", o.smooth, source);
    read(l, "potential", o.potential, source);
    read(l, "orthogonality", o.orthogonality, source);
    read(l, "normalize", o.normalize, source);
    read(l, "config", o.config, source);
    read(l, "weight_smooth", o.weight_smooth, source);
    read(l, "weight_potential", o.weight_potential, source);
    read(l, "weight_orthogonality", o.weight_orthogonality, source);
    read(l, "weight_complementarity", o.weight_complementarity, source);
    read(l, "youngs_modulus", o.youngs_modulus, source);
    read(l, "poisson_ratio", o.poisson_ratio, source);
    read(l, "blend_fraction", o.blend_fraction, source);
    read(l, "autograd_gradients", o.autograd_gradients, source);
    read(l, "difference_step", o.difference_step, source);
    if (!(o.difference_step > 0 && o.difference_step < 0.1)) fail(source, "losses.difference_step must be in (0, 0.1)");
    if (!(o.youngs_modulus > 0) || !(o.poisson_ratio >= 0 && o.poisson_ratio < 0.5))
      fail(source, "losses need youngs_modulus > 0 and 0 <= poisson_ratio < 0.5");
  }
  if (j.contains("data")) {
    const json& d = j["data"];
    reject_unknown(d, {"procedural_shapes", "validation_procedural", "real_fraction", "real_train", "real_validation",
                       "surface_points", "cubature_points", "grid_resolution"},
                   source, "'data'");
    read(d, "procedural_shapes", c.procedural_shapes, source);
    read(d, "validation_procedural", c.validation_procedural, source);
    read(d, "real_fraction", c.real_fraction, source);
    read(d, "surface_points", c.sample.surface_points, source);
    read(d, "cubature_points", c.sample.cubature_points, source);
    read(d, "grid_resolution", c.sample.grid_resolution, source);
    std::vector<std::string> train, validation;
    read(d, "real_train", train, source);
    read(d, "real_validation", validation, source);
    for (const auto& f : train) c.real_train.push_back(base / f);
    for (const auto& f : validation) c.real_validation.push_back(base / f);
    for (const fs::path& f : c.real_validation)
      for (const fs::path& t : c.real_train)
        if (fs::weakly_canonical(f) == fs::weakly_canonical(t)) fail(source, "'{}' is both a training and a validation mesh", f.string());
  }
  if (c.steps < 1 || c.batch_points < 8 || c.z_samples < 1 || !(c.z_sigma > 0) || !(c.learning_rate > 0) ||
      c.log_every < 1 || c.checkpoint_every < 1 || c.procedural_shapes < 0 || c.sample.surface_points < 16 ||
      c.sample.cubature_points < 16)
    fail(source, "steps, batch_points (>= 8), z_samples, z_sigma, learning_rate, log_every, checkpoint_every and point counts must be positive");
  if (c.procedural_shapes == 0 && c.real_train.empty()) fail(source, "no training shapes (procedural_shapes is 0 and real_train is empty)");
  return c;
}

std::vector<ShapeSample> validation_shapes(const TrainingConfig& config) {
  std::vector<ShapeSample> out;
  // Validation seeds start far above any training seed.
  for (int k = 0; k < config.validation_procedural; ++k) {
    const std::uint64_t seed = 1'000'000'000ull + static_cast<std::uint64_t>(k);
    out.push_back(make_shape_sample(procedural_shape(seed), fmt::format("validation {}", k), config.sample, seed));
  }
  for (const fs::path& file : config.real_validation) out.push_back(load_real(file, config.sample, 5));
  return out;
}

TrainingReport train_fields(const TrainingConfig& config, bool resume, const TrainingProgress& progress) {
  torch::set_num_threads(1);
  torch::manual_seed(config.seed);
  fs::create_directories(config.output);
  const fs::path checkpoint = config.output / "checkpoint.pt", optimizer_file = config.output / "checkpoint.optim.pt";
  TrainingReport report;
  report.model = config.output / "model.pt";
  report.csv = config.output / "losses.csv";
  report.plot = config.output / "losses.png";

  if (resume && !fs::exists(checkpoint)) fail(checkpoint, "no checkpoint to resume from");
  json resumed;
  SkinningNetwork network = resume ? load_network(checkpoint.string(), &resumed)
                                   : SkinningNetwork(NetworkConfig::from_json(config.network, "network"));
  network->train();
  torch::optim::Adam optimizer(network->parameters(), torch::optim::AdamOptions(config.learning_rate));
  int first_step = 0;
  LossCurves curves;
  if (resume) {
    torch::serialize::InputArchive archive;
    archive.load_from(optimizer_file.string());
    optimizer.load(archive);
    first_step = resumed.value("step", 0);
    curves = read_loss_csv(report.csv, first_step);
    torch::manual_seed(config.seed + static_cast<std::uint64_t>(first_step));
  }
  report.parameters = parameter_count(*network);
  const std::vector<torch::Tensor> parameters = network->parameters();
  TrainingShapes shapes(config);
  const std::vector<ShapeSample> validation = config.validate_every > 0 ? validation_shapes(config) : std::vector<ShapeSample>{};
  physics::Random random(config.seed * 7919 + static_cast<std::uint64_t>(first_step));
  const auto start = std::chrono::steady_clock::now();
  auto metadata_at = [&](int step) {
    return json{{"step", step}, {"config", config.network}, {"seed", config.seed}, {"steps", config.steps},
                {"batch_points", config.batch_points}, {"z_samples", config.z_samples}};
  };
  auto validate = [&](double blend) {
    double sum = 0;
    for (const ShapeSample& s : validation) {
      const ShapeTensors t(s);
      const torch::Tensor latents = network->encode(t.surface);
      const auto raw = [&](const torch::Tensor& X) { return network->fields(latents, X); };
      sum += total_of(batch_losses(raw, t.cubature, t.volumes, config, blend, false));
    }
    return validation.empty() ? 0.0 : sum / static_cast<double>(validation.size());
  };
  std::map<std::string, double> window;
  int window_count = 0;
  for (int step = first_step; step < config.steps; ++step) {
    const double lr = learning_rate_at(config, step), blend = blend_at(config, step);
    for (auto& group : optimizer.param_groups()) static_cast<torch::optim::AdamOptions&>(group.options()).lr(lr);
    const ShapeTensors shape = shapes.draw(random);
    const torch::Tensor latents = network->encode(shape.surface);
    const auto raw = [&](const torch::Tensor& X) { return network->fields(latents, X); };
    const BatchLosses losses = batch_losses(raw, shape.cubature, shape.volumes, config, blend, true, shape.rig_weights);
    apply_gradients(losses, optimizer, parameters, config.losses.config);
    optimizer.step();
    auto value = [](const torch::Tensor& t) { return t.defined() ? t.item<double>() : 0.0; };
    const double smooth = value(losses.smooth), pot = value(losses.potential), orth = value(losses.orthogonality),
                 comp = value(losses.complementarity);
    window["smooth"] += smooth;
    window["potential"] += pot;
    window["orthogonality"] += orth;
    if (losses.complementarity.defined()) window["complementarity"] += comp;
    window["total"] += smooth + pot + orth + comp;
    ++window_count;
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    double validation_loss = std::nan("");
    if (!validation.empty() && ((step + 1) % config.validate_every == 0 || step + 1 == config.steps))
      validation_loss = report.validation_loss = validate(blend);
    std::vector<std::pair<std::string, double>> row{{"lr", lr}, {"blend", blend}, {"smooth", smooth}, {"potential", pot},
                                                    {"orthogonality", orth}, {"total", smooth + pot + orth + comp},
                                                    {"seconds", seconds}, {"validation", validation_loss}};
    if (losses.complementarity.defined()) row.emplace_back("complementarity", comp);
    curves.add(step + 1, row);
    if ((step + 1) % config.log_every == 0 || step + 1 == config.steps) {
      for (auto& [k, v] : window) report.final_losses[k] = v / window_count;
      const double per_step = seconds / (step + 1 - first_step);
      if (progress)
        progress(step + 1, config.steps,
                 fmt::format("step {}/{}  smooth {:.4g}  pot {:.4g}  orth {:.4g}  lr {:.2e}  {:.2f} s/step  eta {:.0f} s", step + 1,
                             config.steps, report.final_losses["smooth"], report.final_losses["potential"],
                             report.final_losses["orthogonality"], lr, per_step, per_step * (config.steps - step - 1)));
      window.clear();
      window_count = 0;
    }
    if ((step + 1) % config.checkpoint_every == 0 || step + 1 == config.steps) {
      {
        AtomicOutput out(checkpoint);
        save_network(network, out.temporary().string(), metadata_at(step + 1));
        out.commit();
      }
      {
        AtomicOutput out(optimizer_file);
        torch::serialize::OutputArchive archive;
        optimizer.save(archive);
        archive.save_to(out.temporary().string());
        out.commit();
      }
      curves.write_csv(report.csv);
      curves.write_plot(report.plot, {"smooth", "potential", "orthogonality", "complementarity", "total", "validation"});
    }
  }
  report.steps = config.steps;
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  report.seconds_per_step = report.seconds / std::max(1, config.steps - first_step);
  AtomicOutput out(report.model);
  save_network(network, out.temporary().string(), metadata_at(config.steps));
  out.commit();
  return report;
}

PerObjectResult train_per_object(const ShapeSample& shape, int handles, int steps, const TrainingConfig& config,
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
  for (int step = 0; step < steps; ++step) {
    for (auto& group : optimizer.param_groups())
      static_cast<torch::optim::AdamOptions&>(group.options()).lr(learning_rate_at(local, step));
    apply_gradients(batch_losses(raw, t.cubature, t.volumes, local, blend_at(local, step), true), optimizer, parameters,
                    local.losses.config);
    optimizer.step();
  }
  PerObjectResult result;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.field = std::make_shared<TorchField>(raw, t.cubature, output_normalization_of(local), true, fmt::format("per-object MLP ({} steps, {})", steps, shape.name));
  return result;
}

}  // namespace wobble::neural
