// wobble fields: neural skinning fields (PhysSkin++ III-B/C, IV-B).
//   wobble fields train --config configs/small.json [--resume]
//   wobble fields infer [--model FILE] SHAPE [--points FILE] -o OUT.npy
//   wobble fields metrics [--model FILE] SHAPE... [--rig CHARACTER]... [--baseline-steps 2000]
//   wobble fields render [--model FILE] SHAPE -o OUT.png
//   wobble fields export MODEL.pt -o MODEL.wfield   (command_fields_export.cpp)
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include <wobble/error.hpp>
#include <wobble/io.hpp>
#include <wobble/neural/field_metrics.hpp>
#include <wobble/neural/field_render.hpp>
#include <wobble/neural/neural_field.hpp>
#include <wobble/neural/npy_writer.hpp>
#include <wobble/neural/training.hpp>
#include <wobble/physics/eigenmodes.hpp>
#include <wobble/physics/gaussians.hpp>
#include <wobble/physics/rig_weights_field.hpp>

#include "../commands.hpp"
#include "../progress.hpp"
#include "../value_options.hpp"
#include "fields_commands.hpp"

namespace wobble::cli {

namespace {

namespace fs = std::filesystem;
using namespace wobble::neural;
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
std::vector<Vec3d> metric_points(const Mesh& mesh, const physics::Normalization& n, std::size_t limit = 5000) {
  std::vector<Vec3d> out;
  const std::size_t stride = std::max<std::size_t>(1, mesh.vertex_count() / limit);
  for (std::size_t v = 0; v < mesh.vertex_count(); v += stride) out.push_back(n.to_normalized(mesh.positions[v].cast<double>()));
  return out;
}

Runner add_train(CLI::App& app) {
  struct Options { std::string config; bool resume = false, quiet = false; std::optional<int> steps; };
  auto o = std::make_shared<Options>();
  app.add_option("--config", o->config, "training configuration (JSON, see include/wobble/neural/training.hpp)")->required();
  app.add_flag("--resume", o->resume, "continue from OUTPUT/checkpoint.pt");
  add_integer_option(app, "--steps", o->steps, "override the configuration's step count", 1, 100'000'000);
  app.add_flag("-q,--quiet", o->quiet, "no progress");
  return [o] {
    TrainingConfig config = TrainingConfig::load(o->config);
    if (o->steps) config.steps = *o->steps;
    Progress bar("training", o->quiet);
    const TrainingReport report = train_fields(config, o->resume, [&](int step, int total, const std::string& line) {
      if (!o->quiet) spdlog::info("{}", line);
      bar.update(static_cast<std::size_t>(step), static_cast<std::size_t>(total));
    });
    bar.finish();
    std::string losses;
    for (const auto& [k, v] : report.final_losses) losses += fmt::format(" {} {:.5g}", k, v);
    fmt::print("model {}\nparameters {}\nsteps {}\nseconds {:.1f} ({:.3f} s/step)\nfinal losses{}\nvalidation loss {:.5g}\ncsv {}\nplot {}\n",
               report.model.string(), report.parameters, report.steps, report.seconds, report.seconds_per_step, losses,
               report.validation_loss, report.csv.string(), report.plot.string());
    return 0;
  };
}

Runner add_infer(CLI::App& app) {
  struct Options { std::string model, shape, points, output; bool no_constant = false; };
  auto o = std::make_shared<Options>();
  app.add_option("--model", o->model, "model file (default: the shipped models/physskin_small.pt)");
  app.add_option("SHAPE", o->shape, "the shape (OFF, OBJ, glTF, ...)")->required();
  app.add_option("--points", o->points, "query points instead of SHAPE's vertices: a mesh file's vertices or a 3DGS PLY's centres (SHAPE's coordinates)");
  app.add_option("-o,--output", o->output, "OUT.npy: float32, one row per point, one column per field")->required();
  app.add_flag("--no-constant", o->no_constant, "leave out the constant (rigid) first column");
  return [o] {
    const NeuralFieldModel model(model_path(o->model));
    const Mesh mesh = load_mesh(o->shape);
    const auto start = Clock::now();
    const ShapeSample sample = make_shape_sample(mesh, fs::path(o->shape).filename().string(), ShapeSampleOptions{}, 1);
    const auto field = model.fields_for(sample, !o->no_constant);
    std::vector<Vec3d> points;
    if (o->points.empty()) for (const Vec3f& p : mesh.positions) points.push_back(p.cast<double>());
    else points = load_points(o->points);
    for (auto& p : points) p = sample.normalization.to_normalized(p);
    const physics::FieldValues values = field->evaluate(points, false);
    const double seconds = seconds_since(start);
    write_npy(o->output, values.W);
    spdlog::info("{} fields at {} points in {:.3f} s -> {}", values.W.cols(), points.size(), seconds, o->output);
    return 0;
  };
}

Runner add_metrics(CLI::App& app) {
  struct Options {
    std::string model, config;
    std::vector<std::string> shapes, rigs;
    int baseline_steps = 2000, eigen_grid = 20;
    bool json = false, untrained = false;
  };
  auto o = std::make_shared<Options>();
  app.add_option("--model", o->model, "model file (default: the shipped model)");
  app.add_option("SHAPES", o->shapes, "shapes to evaluate (never trained on, for a fair test)");
  app.add_option("--rig", o->rigs, "rigged characters: also their own skin weights as a baseline");
  add_integer_option(app, "--baseline-steps", o->baseline_steps, "steps of the per-object MLP baseline (0: skip it)", 0,
                     100'000'000);
  app.add_option("--config", o->config, "training configuration whose losses and batch sizes the per-object baseline uses (default: built-in defaults with the model's batch size)");
  add_integer_option(app, "--eigen-grid", o->eigen_grid, "eigenmode grid cells along the longest side", 2, 256);
  app.add_flag("--json", o->json, "JSON rows instead of a table");
  return [o] {
    const NeuralFieldModel model(model_path(o->model));
    const int m = model.handles();
    nlohmann::json rows = nlohmann::json::array();
    // The three paper metrics at the mesh's vertices; the Dirichlet trace at the shape's cubature
    // points, with their volumes as quadrature weights.
    auto add = [&](const std::string& shape, const std::string& method, const physics::SkinningField& field,
                   const std::vector<Vec3d>& points, const std::vector<Vec3d>& cubature,
                   const Eigen::VectorXd& volumes, double seconds) {
      const FieldMetrics metrics = field_metrics(field.evaluate(points, false).W);
      const double dirichlet = dirichlet_trace(field.evaluate(cubature, true), volumes);
      rows.push_back({{"shape", shape}, {"method", method}, {"fields", field.handle_count()}, {"omega_orth", metrics.orthogonality},
                      {"kappa_log", metrics.log_condition}, {"h_spec", metrics.spectral_entropy},
                      {"dirichlet_trace", dirichlet}, {"seconds", seconds}});
      if (!o->json)
        fmt::print("{:<22} {:<28} {:>3} {:>10.4f} {:>10.3f} {:>8.4f} {:>10.2f} {:>9.2f}\n", shape, method, field.handle_count(),
                   metrics.orthogonality, metrics.log_condition, metrics.spectral_entropy, dirichlet, seconds);
      std::fflush(stdout);  // rows appear as they are computed (baselines take minutes)
    };
    if (!o->json)
      fmt::print("{:<22} {:<28} {:>3} {:>10} {:>10} {:>8} {:>10} {:>9}\n", "shape", "method", "K", "Omega_orth", "kappa_log",
                 "H_spec", "Dirichlet", "seconds");
    std::vector<std::pair<std::string, bool>> inputs;
    for (const auto& s : o->shapes) inputs.emplace_back(s, false);
    for (const auto& r : o->rigs) inputs.emplace_back(r, true);
    if (inputs.empty()) fail_plain("metrics needs at least one SHAPE or --rig CHARACTER");
    TrainingConfig config = o->config.empty() ? TrainingConfig{} : TrainingConfig::load(o->config);
    if (o->config.empty()) {  // the batch sizes the model was trained with
      config.batch_points = model.metadata().value("batch_points", config.batch_points);
      config.z_samples = model.metadata().value("z_samples", config.z_samples);
    }
    for (const auto& [file, rigged] : inputs) {
      const Character character = load_character(file);
      if (character.mesh.triangles.empty()) fail(file, "has no triangles");
      const std::string name = fs::path(file).stem().string();
      auto start = Clock::now();
      const ShapeSample sample = make_shape_sample(character.mesh, name, ShapeSampleOptions{}, 1);
      const std::vector<Vec3d> cubature = cubature_points(sample);
      const Eigen::VectorXd volumes = sample.volumes.cast<double>();
      const auto neural = model.fields_for(sample, true);
      const std::vector<Vec3d> points = metric_points(character.mesh, sample.normalization);
      neural->evaluate(points, false);
      add(name, "neural (feed-forward)", *neural, points, cubature, volumes, seconds_since(start));
      start = Clock::now();
      std::vector<Vec3d> cover = points;
      cover.insert(cover.end(), cubature.begin(), cubature.end());
      physics::EigenmodeOptions eigen;
      eigen.handles = m + 1;
      eigen.grid_resolution = o->eigen_grid;
      const auto modes = physics::skinning_eigenmodes(cover, eigen);
      add(name, "skinning eigenmodes", *modes, points, cubature, volumes, seconds_since(start));
      if (o->baseline_steps > 0) {
        const PerObjectResult mlp = train_per_object(sample, m, o->baseline_steps, config, 1);
        add(name, fmt::format("per-object MLP {} steps", o->baseline_steps), *mlp.field, points, cubature, volumes, mlp.seconds);
      }
      if (rigged) {
        if (!character.is_skinned()) fail(file, "--rig needs a rigged file with skin weights");
        const auto weights = physics::rig_weights_field(character, sample.normalization);
        add(name, "rig skin weights", *weights, points, cubature, volumes, 0);
      }
    }
    if (o->json) fmt::print("{}\n", rows.dump(2));
    return 0;
  };
}

Runner add_render(CLI::App& app) {
  struct Options { std::string model, shape, output; };
  auto o = std::make_shared<Options>();
  app.add_option("--model", o->model, "model file (default: the shipped model)");
  app.add_option("SHAPE", o->shape, "the shape")->required();
  app.add_option("-o,--output", o->output, "OUT.png")->required();
  return [o] {
    const NeuralFieldModel model(model_path(o->model));
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
  return [commands] {
    for (const auto& [sub, runner] : commands)
      if (sub->parsed()) return runner();
    return 1;
  };
}

}  // namespace wobble::cli
