// wobble fields: neural skinning fields (PhysSkin++ III-B/C, IV-B).
//   wobble fields train CONFIG [--processes N] [--resume]     (CONFIG or --config CONFIG)
//   wobble fields infer [--model FILE] SHAPE [--points FILE] -o OUT.npy
//   wobble fields metrics [--model FILE] SHAPE... [--rig CHARACTER]... [--baseline-steps 2000] [--eigenmodes K]
//                         [--fidelity [--pin-blend 0.2] [--candidates]]
//   wobble fields render [--model FILE] SHAPE -o OUT.png
//   wobble fields export MODEL.pt -o MODEL.wfield   (command_fields_export.cpp)
//   wobble fields plot LOSSES.csv -o CURVES.png      (command_fields_plot.cpp)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include <wobble/error.hpp>
#include <wobble/fields/field_network.hpp>
#include <wobble/fields/span_projection.hpp>
#include <wobble/io/files.hpp>
#include <wobble/neural/field_metrics.hpp>
#include <wobble/neural/field_render.hpp>
#include <wobble/neural/neural_field.hpp>
#include <wobble/neural/npy_writer.hpp>
#include <wobble/neural/polynomial_field.hpp>
#include <wobble/neural/subspace_quality.hpp>
#include <wobble/neural/torchrun.hpp>
#include <wobble/neural/training.hpp>
#include <wobble/physics/eigenmodes.hpp>
#include <wobble/physics/gaussians.hpp>
#include <wobble/physics/rig_weights_field.hpp>
#include <wobble/physics/settings.hpp>

#include "../commands.hpp"
#include "../described_options.hpp"
#include "../progress.hpp"
#include "local_ranks.hpp"
#include "core/fail.hpp"
#include "../value_options.hpp"
#include "fields_commands.hpp"
#include "fields_model.hpp"
#include "metrics_fidelity.hpp"

namespace wobble::cli {

namespace {

namespace fs = std::filesystem;
using namespace wobble::neural;
using namespace wobble::fields;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

fs::path model_path(const std::string& option) { return option.empty() ? default_model_path() : fs::path(option); }

Mesh load_mesh(const fs::path& file) {
  Character c = load_character(file);
  if (c.mesh.triangles.empty()) fail(file, "has no triangles (fields need a surface to sample)");
  return c.mesh;
}

// Query points in the shape's file coordinates: vertices of a mesh file, or Gaussian centres.
std::vector<Vec3d> load_points(const fs::path& file) {
  std::vector<Vec3d> points;
  if (file.extension() == ".ply" && physics::is_gaussian_ply(file)) {
    const physics::GaussianCloud cloud = physics::read_gaussian_ply(file);
    for (std::size_t g = 0; g < cloud.count(); ++g) points.push_back(cloud.center(g));
  } else {
    for (const Vec3f& p : load_character(file).mesh.positions) points.push_back(p.cast<double>());
  }
  if (points.empty()) fail(file, "holds no points");
  return points;
}

// Every `stride`-th vertex, normalised: the points the metrics are computed at.
std::vector<Vec3d> metric_points(const Mesh& mesh, const fields::Normalization& n, std::size_t limit = 5000) {
  std::vector<Vec3d> out;
  const std::size_t stride = std::max<std::size_t>(1, mesh.vertex_count() / limit);
  for (std::size_t v = 0; v < mesh.vertex_count(); v += stride)
    out.push_back(n.to_normalized(mesh.positions[v].cast<double>()));
  return out;
}

Runner add_train(CLI::App& app) {
  struct Options {
    std::string config, config_option;
    bool resume = false, quiet = false;
    std::optional<int> steps, processes;
  };
  auto o = std::make_shared<Options>();
  app.add_option("CONFIG", o->config, "training configuration (JSON, see include/wobble/neural/training.hpp)");
  app.add_option("--config", o->config_option, "the same, as an option");
  app.add_flag("--resume", o->resume, "continue from OUTPUT/checkpoint.pt");
  add_integer_option(app, "--steps", o->steps,
                     "override the configuration's step count (0: write the network as initialised, no optimizer step)",
                     0, 100'000'000);
  add_integer_option(
      app, "--processes", o->processes,
      "start N local ranks of a data-parallel job (otherwise the torchrun environment decides: WORLD_SIZE, RANK, "
      "LOCAL_RANK, MASTER_ADDR, MASTER_PORT)",
      1, 256);
  app.add_flag("-q,--quiet", o->quiet, "no progress");
  return [o] {
    if (o->config.empty() == o->config_option.empty())
      fail_plain("fields train: give the configuration once (CONFIG or --config)");
    const std::string file = o->config.empty() ? o->config_option : o->config;
    TrainingConfig config = TrainingConfig::load(file);  // checked here, before any rank starts
    const TorchrunEnvironment environment = TorchrunEnvironment::from_environment();
    if (environment.rank == 0) prepare_training_output(config);  // a folder it cannot write: before any step
    if (o->processes) {
      if (environment.distributed())
        fail_plain("--processes: this process is already rank of a distributed job (WORLD_SIZE is set)");
      std::vector<std::string> arguments{"fields", "train", file};
      if (o->resume) arguments.push_back("--resume");
      if (o->steps) arguments.insert(arguments.end(), {"--steps", std::to_string(*o->steps)});
      if (o->quiet) arguments.push_back("--quiet");
      return run_local_ranks(*o->processes, arguments);  // ranks above 0 are quiet by themselves
    }
    if (o->steps) config.steps = *o->steps;
    const bool quiet = o->quiet || environment.rank > 0;
    Progress bar("training", quiet);
    const TrainingReport report = train_fields(
        config, o->resume,
        [&](int step, int total, const std::string& line) {
          if (!quiet) spdlog::info("{}", line);
          bar.update(static_cast<std::size_t>(step), static_cast<std::size_t>(total));
        },
        environment);
    bar.finish();
    if (!report.wrote_outputs) return 0;  // rank 0 reports
    if (config.steps == 0) {
      fmt::print("model {}\nparameters {}\nsteps 0 (the network as initialised from seed {})\n", report.model.string(),
                 report.parameters, config.seed);
      return 0;
    }
    std::string losses;
    for (const auto& [k, v] : report.final_losses) losses += fmt::format(" {} {:.5g}", k, v);
    fmt::print(
        "model {}\nparameters {}\nranks {}\nsteps {}\nseconds {:.1f} ({:.3f} s/step, {:.3f} shapes/s)\nfinal losses{}\n"
        "validation loss {:.5g}\nvalidation quality ratio {:.4g}\nskipped items {}\ncsv {}\nplot {}\n",
        report.model.string(), report.parameters, report.ranks, report.steps, report.seconds, report.seconds_per_step,
        report.shapes_per_second, losses, report.validation_loss, report.validation_quality, report.skipped_items,
        report.csv.string(), report.plot.string());
    return 0;
  };
}

Runner add_infer(CLI::App& app) {
  struct Options {
    std::string model, shape, points, output;
    bool no_constant = false;
  };
  auto o = std::make_shared<Options>();
  app.add_option("--model", o->model, "model file, .pt or .wfield (default: the shipped models/physskin_small.pt)");
  app.add_option("SHAPE", o->shape, "the shape (OFF, OBJ, glTF, ...)")->required();
  app.add_option(
      "--points", o->points,
      "query points instead of SHAPE's vertices: a mesh file's vertices or a 3DGS PLY's centres (SHAPE's coordinates)");
  app.add_option("-o,--output", o->output, "OUT.npy: float32, one row per point, one column per field")->required();
  app.add_flag("--no-constant", o->no_constant, "leave out the constant (rigid) first column");
  return [o] {
    const FieldsModel model(model_path(o->model));
    const Mesh mesh = load_mesh(o->shape);
    const auto start = Clock::now();
    const ShapeSample sample = make_shape_sample(mesh, fs::path(o->shape).filename().string(), ShapeSampleOptions{}, 1);
    const auto field = model.fields_for(sample, !o->no_constant);
    std::vector<Vec3d> points;
    if (o->points.empty())
      for (const Vec3f& p : mesh.positions) points.push_back(p.cast<double>());
    else
      points = load_points(o->points);
    for (auto& p : points) p = sample.normalization.to_normalized(p);
    const fields::FieldValues values = field->evaluate(points, false);
    const double seconds = seconds_since(start);
    write_npy(o->output, values.W);
    spdlog::info("{} fields at {} points in {:.3f} s -> {}", values.W.cols(), points.size(), seconds, o->output);
    return 0;
  };
}

// One shape's evaluation points: the mesh's vertices for the paper metrics, its cubature points
// for the volumetric Dirichlet trace and its welded surface for the quality ratio.
struct MetricShape {
  std::string name;
  ShapeSample sample;
  std::vector<Vec3d> points, cubature, surface;
  Eigen::VectorXd volumes;
  SurfaceOperator surface_operator;
  Eigen::VectorXd bound;  // the smallest non-zero surface eigenvalues, ascending

  // The bound of a subspace of K fields (Ky Fan): the K smallest (fewer if there are not K).
  Eigen::VectorXd lowest_eigenvalues(int K) const { return bound.head(std::min<Eigen::Index>(K, bound.size())); }
};

MetricShape metric_shape(const fs::path& file, const Mesh& mesh, int K) {
  MetricShape s;
  s.name = file.stem().string();
  s.sample = make_shape_sample(mesh, s.name, ShapeSampleOptions{}, 1);
  s.cubature = cubature_points(s.sample);
  s.volumes = s.sample.volumes.cast<double>();
  s.points = metric_points(mesh, s.sample.normalization);
  try {
    s.surface_operator = surface_operator(mesh);
    s.bound = lowest_nonzero_eigenvalues(s.surface_operator, K);
    std::sort(s.bound.begin(), s.bound.end());
  } catch (const Error& e) {
    fail(file, "{}", e.what());
  }
  for (const Vec3d& v : s.surface_operator.vertices) s.surface.push_back(s.sample.normalization.to_normalized(v));
  return s;
}

struct MetricsOptions {
  std::string model, config;
  std::vector<std::string> shapes, rigs;
  int baseline_steps = 2000, eigen_grid = 20, fidelity_grid = 20;
  std::optional<int> eigenmodes;  // the baseline's field count; unset: the model's
  bool json = false, fidelity = false, candidates = false;
  DescribedOptions physics{physics::physics_description(), ""};  // --pin-blend, for --fidelity
};

// The rows of `wobble fields metrics`, printed as they are computed (baselines take minutes) and
// kept for --json. The three paper metrics at the mesh's vertices; the volumetric Dirichlet trace
// at the cubature points (their volumes as quadrature weights); the quality ratio on the welded
// surface; with --fidelity, the physics against the shape's full-space reference.
class MetricsTable {
 public:
  MetricsTable(bool json, bool fidelity) : json_(json) {
    if (!json_)
      fmt::print(
          "{:<22} {:<28} {:>3} {:>10} {:>10} {:>8} {:>10} {:>8} {:>5} {:>9}{}\n", "shape", "method", "K", "Omega_orth",
          "kappa_log", "H_spec", "Dirichlet", "quality", "parts", "seconds",
          fidelity ? fmt::format(" {:>7} {:>7} {:>7} {:>7} {:>10}", "sag", "poke", "f1 err", "f err", "1st step") : "");
  }

  // The current shape's full-space reference (--fidelity) and its own columns.
  void set_reference(physics::FullSpaceReference reference, nlohmann::json columns) {
    reference_ = std::move(reference);
    reference_json_ = std::move(columns);
  }
  const std::optional<physics::FullSpaceReference>& reference() const { return reference_; }

  void add(const MetricShape& s, const std::string& method, const fields::SkinningField& field, bool constant_first,
           double seconds, double first_step = std::nan("")) {
    const FieldMetrics metrics = field_metrics(field.evaluate(s.points, false).W);
    const double dirichlet = dirichlet_trace(field.evaluate(s.cubature, true), s.volumes);
    const double quality = constant_first ? subspace_quality(s.surface_operator, field.evaluate(s.surface, false).W,
                                                             true, s.lowest_eigenvalues(field.handle_count() - 1))
                                                .ratio
                                          : std::nan("");
    rows_.push_back({{"shape", s.name},
                     {"method", method},
                     {"fields", field.handle_count()},
                     {"omega_orth", metrics.orthogonality},
                     {"kappa_log", metrics.log_condition},
                     {"h_spec", metrics.spectral_entropy},
                     {"dirichlet_trace", dirichlet},
                     {"quality_ratio", quality},
                     {"components", s.surface_operator.components},
                     {"seconds", seconds}});
    std::string physics;
    if (reference_) {
      const nlohmann::json columns = fidelity_columns(*reference_, field);
      rows_.back().update(columns);
      rows_.back().update(reference_json_);
      rows_.back()["first_step_seconds"] = first_step;
      physics = fidelity_text(columns) + fmt::format(" {:>10.2f}", first_step);
    }
    if (!json_)
      fmt::print("{:<22} {:<28} {:>3} {:>10.4f} {:>10.3f} {:>8.4f} {:>10.2f} {:>8.3f} {:>5} {:>9.2f}{}\n", s.name,
                 method, field.handle_count(), metrics.orthogonality, metrics.log_condition, metrics.spectral_entropy,
                 dirichlet, quality, s.surface_operator.components, seconds, physics);
    std::fflush(stdout);
  }

  void finish() const {
    if (json_) fmt::print("{}\n", rows_.dump(2));
  }

 private:
  bool json_;
  std::optional<physics::FullSpaceReference> reference_;
  nlohmann::json reference_json_;
  nlohmann::json rows_ = nlohmann::json::array();
};

// What every shape's rows share: the model, its field count, the per-object baseline's training
// settings and (with --fidelity) the runtime's evaluator of the model, as `wobble simulate
// --subspace neural` uses it (the .pt exported in memory).
struct MetricsContext {
  const FieldsModel& model;
  int handles;
  int eigenmodes;    // the eigenmode baseline's fields (--eigenmodes; the model's by default)
  double pin_blend;  // --pin-blend: the subspace's d(X) in the fidelity measure
  TrainingConfig config;
  std::shared_ptr<const fields::FieldNetwork> runtime_network;  // with --fidelity
};

TrainingConfig baseline_config(const MetricsOptions& o, const FieldsModel& model) {
  TrainingConfig config = o.config.empty() ? TrainingConfig{} : TrainingConfig::load(o.config);
  if (o.config.empty()) {  // the batch sizes the model was trained with
    config.batch_points = model.metadata().value("batch_points", config.batch_points);
    config.z_samples = model.metadata().value("z_samples", config.z_samples);
  }
  return config;
}

// --fidelity: the shape's full-space FEM reference, timed.
void add_reference(const MetricsOptions& o, const MetricsContext& c, const std::string& file,
                   const Character& character, const MetricShape& s, MetricsTable& table) {
  const auto start = Clock::now();
  physics::FidelityOptions options;
  options.grid_resolution = o.fidelity_grid;
  options.pin_blend = c.pin_blend;
  std::optional<physics::FullSpaceReference> reference;
  try {
    reference = physics::full_space_reference(character.mesh, s.sample.normalization, options);
  } catch (const Error& e) {
    fail(file, "{}", e.what());
  }
  nlohmann::json columns = reference_columns(*reference, seconds_since(start));
  table.set_reference(std::move(*reference), std::move(columns));
}

// The skinning eigenmodes of the shape's surface and cubature points (and the FEM's nodes: grid
// fields vanish outside the cells their cover reaches), the constant as mode 0.
std::shared_ptr<const fields::SkinningField> metric_eigenmodes(const MetricShape& s, const MetricsTable& table,
                                                               int handles, int eigen_grid) {
  std::vector<Vec3d> cover = s.surface;
  cover.insert(cover.end(), s.cubature.begin(), s.cubature.end());
  if (table.reference())
    cover.insert(cover.end(), table.reference()->mesh.nodes.begin(), table.reference()->mesh.nodes.end());
  physics::EigenmodeOptions eigen;
  eigen.handles = handles + 1;
  eigen.grid_resolution = eigen_grid;
  return physics::skinning_eigenmodes(cover, eigen);
}

// --candidates: the network's whole candidate span (the constant and every raw field), and the
// eigenmodes projected onto it at the FEM's nodes (least squares): what a per-shape selection of
// the model's field count from those candidates could reach for the eigenmodes' job.
void add_candidate_rows(const MetricsContext& c, const MetricShape& s, const fields::SkinningField& modes,
                        MetricsTable& table) {
  const auto start = Clock::now();
  const auto candidates = c.runtime_network->candidates_for(s.sample);
  table.add(s, "neural candidates (all)", *candidates, false, seconds_since(start));
  const auto projected = fields::projected_onto_span(candidates, modes, table.reference()->mesh.nodes);
  table.add(s, "eigenmodes in candidate span", *projected, true, seconds_since(start));
}

// Every method's rows for one shape: the model, eigenmodes, quadratic polynomials, the
// per-object MLP baseline and (a rig) its own skin weights.
void add_shape_rows(const MetricsOptions& o, const MetricsContext& c, const std::string& file, bool rigged,
                    MetricsTable& table) {
  const Character character = load_character(file);
  if (character.mesh.triangles.empty()) fail(file, "has no triangles");
  auto start = Clock::now();
  const auto quadratic = std::make_shared<QuadraticPolynomialField>();
  // The surface bound for every row's field count (the constant aside): the model's, the
  // eigenmodes', the quadratics'.
  const MetricShape s =
      metric_shape(file, character.mesh, std::max({c.handles, c.eigenmodes, quadratic->handle_count() - 1}));
  const double preparation = seconds_since(start);
  if (o.fidelity) add_reference(o, c, file, character, s, table);
  // The time to a first step, when asked: the subspace from `fields` (empty: the eigenmodes,
  // constant included; learned fields bring their own count).
  auto first_step = [&](const fields::MeshFields& fields) {
    return o.fidelity ? seconds_to_first_step(file, fields, c.eigenmodes + 1) : std::nan("");
  };
  start = Clock::now();
  const auto neural = c.model.fields_for(s.sample, true);
  neural->evaluate(s.points, false);
  table.add(s, "neural (feed-forward)", *neural, true, seconds_since(start),
            first_step(fields::network_mesh_fields(c.runtime_network)));
  start = Clock::now();
  const auto modes = metric_eigenmodes(s, table, c.eigenmodes, o.eigen_grid);
  table.add(s, "skinning eigenmodes", *modes, true, seconds_since(start), first_step({}));
  if (o.candidates) add_candidate_rows(c, s, *modes, table);
  table.add(s, "quadratic polynomials", *quadratic, true, preparation, first_step(fixed_fields(quadratic)));
  if (o.baseline_steps > 0) {
    const PerObjectResult mlp = train_per_object(s.sample, c.handles, o.baseline_steps, c.config, 1);
    table.add(s, fmt::format("per-object MLP {} steps", o.baseline_steps), *mlp.field, true, mlp.seconds,
              mlp.seconds + first_step(fixed_fields(mlp.field)));  // the fit comes first
  }
  if (rigged) {
    if (!character.is_skinned()) fail(file, "--rig needs a rigged file with skin weights");
    const auto weights = physics::rig_weights_field(character, s.sample.normalization);
    table.add(s, "rig skin weights", *weights, false, 0);  // a partition of unity: no separate constant column
  }
}

Runner add_metrics(CLI::App& app) {
  auto o = std::make_shared<MetricsOptions>();
  app.add_option("--model", o->model, "model file, .pt or .wfield (default: the shipped model)");
  app.add_option("SHAPES", o->shapes, "shapes to evaluate (never trained on, for a fair test)");
  app.add_option("--rig", o->rigs, "rigged characters: also their own skin weights as a baseline");
  add_integer_option(app, "--baseline-steps", o->baseline_steps, "steps of the per-object MLP baseline (0: skip it)", 0,
                     100'000'000);
  app.add_option("--config", o->config,
                 "training configuration whose losses and batch sizes the per-object baseline uses (default: built-in "
                 "defaults with the model's batch size)");
  add_integer_option(app, "--eigen-grid", o->eigen_grid, "eigenmode grid cells along the longest side", 2, 256);
  add_integer_option(app, "--eigenmodes", o->eigenmodes,
                     "fields of the eigenmode baseline, the constant aside (default: the model's)", 1, 255);
  app.add_flag("--json", o->json, "JSON rows instead of a table");
  app.add_flag(
      "--fidelity", o->fidelity,
      "also the physics fidelity against full-space FEM (sag, poke, frequency errors) and the seconds from reading the "
      "shape to its first simulation step");
  add_integer_option(app, "--fidelity-grid", o->fidelity_grid,
                     "cells along the longest side of the FEM's tetrahedral mesh", 4, 96);
  app.add_flag("--candidates", o->candidates,
               "with --fidelity: also the network's candidate fields all together, and the eigenmodes projected onto "
               "their span (what a selection from them could reach)")
      ->needs("--fidelity");
  o->physics.add_to(app, "Fidelity", [](const ParameterDescription& p) { return p.key == "pin_blend"; });
  return [o] {
    const FieldsModel model(model_path(o->model));
    const auto runtime_network = o->fidelity ? model.runtime_network() : nullptr;
    MetricsTable table(o->json, o->fidelity);
    std::vector<std::pair<std::string, bool>> inputs;
    for (const auto& s : o->shapes) inputs.emplace_back(s, false);
    for (const auto& r : o->rigs) inputs.emplace_back(r, true);
    if (inputs.empty()) fail_plain("metrics needs at least one SHAPE or --rig CHARACTER");
    const MetricsContext context{model,
                                 model.handles(),
                                 o->eigenmodes.value_or(model.handles()),
                                 o->physics.settings().as<physics::Settings>().pin_blend,
                                 baseline_config(*o, model),
                                 runtime_network};
    for (const auto& [file, rigged] : inputs) add_shape_rows(*o, context, file, rigged, table);
    table.finish();
    return 0;
  };
}

Runner add_render(CLI::App& app) {
  struct Options {
    std::string model, shape, output;
  };
  auto o = std::make_shared<Options>();
  app.add_option("--model", o->model, "model file, .pt or .wfield (default: the shipped model)");
  app.add_option("SHAPE", o->shape, "the shape")->required();
  app.add_option("-o,--output", o->output, "OUT.png")->required();
  return [o] {
    const FieldsModel model(model_path(o->model));
    Mesh mesh = load_mesh(o->shape);
    const ShapeSample sample = make_shape_sample(mesh, fs::path(o->shape).filename().string(), ShapeSampleOptions{}, 1);
    std::vector<Vec3d> points;
    for (Vec3f& p : mesh.positions) {
      p = sample.normalization.to_normalized(p.cast<double>()).cast<float>();
      points.push_back(p.cast<double>());
    }
    const auto field = model.fields_for(sample, true);
    render_fields_png(o->output, mesh, field->evaluate(points, false).W, 1);
    spdlog::info("{} fields of {} -> {}", model.handles(), o->shape, o->output);
    return 0;
  };
}

}  // namespace

Runner add_fields_command(CLI::App& app) {
  app.require_subcommand(1);
  std::vector<std::pair<CLI::App*, Runner>> commands;
  auto add = [&](const char* name, const char* description, Runner (*adder)(CLI::App&)) {
    CLI::App* sub = app.add_subcommand(name, description);
    commands.emplace_back(sub, adder(*sub));
  };
  add("train", "train a model without supervision (PISSL) from a JSON configuration", add_train);
  add("infer", "predict a shape's fields and write them as .npy (one row per point)", add_infer);
  add("metrics", "Omega_orth, kappa_log, H_spec of the model's fields and of baselines", add_metrics);
  add("render", "draw a shape's fields as colours (PNG)", add_render);
  add("export", "write a model as .wfield, for the evaluator without LibTorch", add_fields_export);
  add("plot", "draw a training run's loss and validation curves (losses.csv) as a PNG", add_fields_plot);
  return [commands] {
    for (const auto& [sub, runner] : commands)
      if (sub->parsed()) return runner();
    return 1;
  };
}

}  // namespace wobble::cli
