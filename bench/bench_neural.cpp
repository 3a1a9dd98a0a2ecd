// Cost of the neural skinning fields (PhysSkin++ III-B, III-C), on one core (one torch thread):
// - inference per point: W alone and W with its spatial gradient (autograd), against the network
//   width, the number of handles (fields) and the number of query points;
// - per new shape: encode the surface cloud, calibrate the columns, evaluate W and its gradient;
// - training step time (the project's own train_fields: losses, ConFIG, Adam) against width,
//   handles and batch points, on one fixed mesh and on procedural shapes drawn every step;
// - the shipped model's feed-forward time per validation mesh (target: at most 1 s per shape);
// - the torch-free evaluator (.wfield, fields::FieldNetwork) against LibTorch on the shipped
//   models, W and W + grad W per point, one thread each, in the same run.
// Parameter counts are counters. On a shared machine wall time includes waiting for a core, so the
// report uses CPU time (one thread) and shows wall time beside it. bench/report_neural.py prints
// the tables from the JSON output.
#include <algorithm>
#include <ctime>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include <benchmark/benchmark.h>

#include <wobble/io/files.hpp>
#include <wobble/neural/loss_plot.hpp>
#include <wobble/neural/neural_field.hpp>
#include <wobble/neural/shape_generator.hpp>
#include <wobble/fields/shape_sample.hpp>
#include <wobble/neural/training.hpp>
#include <wobble/fields/field_network.hpp>

#include "neural/field_export.hpp"
#include "neural/network.hpp"

using namespace wobble;
using namespace wobble::neural;
using namespace wobble::fields;
namespace fs = std::filesystem;

namespace {

const fs::path kShapes = fs::path(WOBBLE_SHARED_ASSETS) / "shapes";
const char* kValidationMeshes[] = {"bull.off", "cow.off", "dino.off", "elk.off", "femur.off", "knot1.off"};
const char* kTrainingMesh = "cow.off";

// The shipped model's sizes except width and handles (configs/small.json).
nlohmann::json network_json(int width, int handles) {
  return {{"width", width}, {"latents", 32},   {"encoder_layers", 2}, {"heads", 4},         {"handles", handles},
          {"octaves", 6},   {"mlp_blocks", 2}, {"oni", true},         {"oni_iterations", 5}};
}

// An untrained model of the given sizes (fixed seed; cost does not depend on the values), cached.
const NeuralFieldModel& model_of(int width, int handles) {
  static std::map<std::pair<int, int>, std::unique_ptr<NeuralFieldModel>> cache;
  auto& slot = cache[{width, handles}];
  if (!slot) {
    torch::manual_seed(1);
    SkinningNetwork network(NetworkConfig::from_json(network_json(width, handles), "bench"));
    const fs::path file = fs::temp_directory_path() / "wobble_bench_neural_model.pt";
    save_network(network, file.string());
    slot = std::make_unique<NeuralFieldModel>(file);
    fs::remove(file);
  }
  return *slot;
}

// An unseen procedural shape (a validation seed) with the training sampling.
const ShapeSample& shape() {
  static const ShapeSample s = make_shape_sample(procedural_shape(1'000'000'007ull), "bench", ShapeSampleOptions{}, 3);
  return s;
}

// n query points spread over the shape's cubature points (repeated, slightly jittered).
std::vector<Vec3d> query_points(std::int64_t n) {
  const Eigen::MatrixXf& c = shape().cubature;
  std::vector<Vec3d> out(static_cast<std::size_t>(n));
  for (std::int64_t p = 0; p < n; ++p) {
    const Eigen::Index row = p % c.rows();
    out[static_cast<std::size_t>(p)] =
        c.row(row).transpose().cast<double>() * (1.0 - 1e-3 * static_cast<double>(p / c.rows()));
  }
  return out;
}

double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

void set_model_counters(benchmark::State& state, const NeuralFieldModel& model, std::int64_t points) {
  state.counters["parameters"] = static_cast<double>(model.parameters());
  state.counters["points"] = static_cast<double>(points);
  state.counters["per_point"] = benchmark::Counter(
      static_cast<double>(points), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

// Args: width, handles, points, gradient (0: W only, 1: W and grad W).
void BM_InferencePerPoint(benchmark::State& state) {
  torch::set_num_threads(1);
  const NeuralFieldModel& model = model_of(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
  const auto field = model.fields_for(shape());
  const std::vector<Vec3d> points = query_points(state.range(2));
  const bool gradient = state.range(3) != 0;
  for (auto _ : state) benchmark::DoNotOptimize(field->evaluate(points, gradient));
  set_model_counters(state, model, state.range(2));
}

// Args: width, handles, points. Encode + column calibration + W and grad W at the points.
void BM_NewShape(benchmark::State& state) {
  torch::set_num_threads(1);
  const NeuralFieldModel& model = model_of(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
  const std::vector<Vec3d> points = query_points(state.range(2));
  for (auto _ : state) benchmark::DoNotOptimize(model.fields_for(shape())->evaluate(points, true));
  state.counters["parameters"] = static_cast<double>(model.parameters());
}

// Args: width, handles, batch points, procedural (0: one fixed mesh sampled once; 1: a procedural
// shape generated and sampled every step, as in real training). Manual time: CPU seconds per step
// of the project's trainer, (run of 1 + kSteps steps - run of 1 step) / kSteps, so that set-up,
// the first step's allocations and saving cancel; the median wall step is the counter wall_s.
void BM_TrainingStep(benchmark::State& state) {
  constexpr int kSteps = 5;
  const fs::path dir = fs::temp_directory_path() / "wobble_bench_neural_training";
  nlohmann::json data = {{"validation_procedural", 0}};
  if (state.range(3) != 0) {
    data["procedural_shapes"] = 5000;
  } else {
    data["procedural_shapes"] = 0;
    data["real_train"] = {(kShapes / kTrainingMesh).string()};
    data["real_fraction"] = 1.0;
  }
  nlohmann::json config = {
      {"seed", 1},
      {"batch_points", state.range(2)},
      {"z_samples", 16},
      {"network", network_json(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)))},
      {"data", data},
      {"output", dir.string()},
      {"checkpoint_every", 1000},
      {"log_every", 1000},
      {"validate_every", 0}};
  auto run = [&](int steps, std::vector<double>* wall_steps) {
    config["steps"] = steps;
    fs::remove_all(dir);
    const double start = process_cpu_seconds();
    const TrainingReport report = train_fields(TrainingConfig::from_json(config, "bench.json"), false);
    const double cpu = process_cpu_seconds() - start;
    state.counters["parameters"] = static_cast<double>(report.parameters);
    if (wall_steps) {
      // The CSV's seconds column is cumulative wall time at the end of each step.
      const std::vector<double> seconds = read_loss_csv(report.csv, 1'000'000).series("seconds");
      for (std::size_t k = 1; k < seconds.size(); ++k) wall_steps->push_back(seconds[k] - seconds[k - 1]);
    }
    return cpu;
  };
  for (auto _ : state) {
    std::vector<double> wall;
    const double short_run = run(1, nullptr), long_run = run(1 + kSteps, &wall);
    state.SetIterationTime(std::max(0.0, long_run - short_run) / kSteps);
    std::nth_element(wall.begin(), wall.begin() + static_cast<long>(wall.size() / 2), wall.end());
    state.counters["wall_s"] = wall[wall.size() / 2];
  }
  fs::remove_all(dir);
}

// Args: validation mesh index, sampling (1: the runtime's sampler is included). The shipped
// model's feed-forward work for a new shape, as `wobble simulate --subspace neural` needs it:
// W and grad W at the 1,000 cubature points, W at every vertex.
void BM_ShippedModelPerShape(benchmark::State& state) {
  torch::set_num_threads(1);
  static const NeuralFieldModel model(default_model_path());
  const fs::path file = kShapes / kValidationMeshes[state.range(0)];
  const Mesh mesh = load_character(file).mesh;
  const ShapeSample presampled = make_shape_sample(mesh, file.stem().string(), ShapeSampleOptions{}, 1);
  const bool sampling = state.range(1) != 0;
  // The normalised frame depends on the mesh alone: the same for every fresh sample.
  std::vector<Vec3d> vertices;
  for (const Vec3f& v : mesh.positions) vertices.push_back(presampled.normalization.to_normalized(v.cast<double>()));
  std::optional<ShapeSample> fresh;
  for (auto _ : state) {
    const ShapeSample& sample =
        sampling ? fresh.emplace(make_shape_sample(mesh, file.stem().string(), ShapeSampleOptions{}, 1)) : presampled;
    const auto field = model.fields_for(sample);
    const std::vector<Vec3d> cubature = cubature_points(sample);
    benchmark::DoNotOptimize(field->evaluate(cubature, true));
    benchmark::DoNotOptimize(field->evaluate(vertices, false));
  }
  state.SetLabel(file.stem().string());
  state.counters["vertices"] = static_cast<double>(mesh.vertex_count());
  state.counters["parameters"] = static_cast<double>(model.parameters());
}

// Args: model (0: models/physskin_small.pt, 1: models/physskin_clonk_rig.pt), evaluator (0:
// LibTorch, 1: torch-free, exported in memory from the same .pt), gradient (0: W, 1: W + grad W).
// 4,096 points of the benchmark shape, one thread.
void BM_EvaluatorPerPoint(benchmark::State& state) {
  torch::set_num_threads(1);
  const fs::path file =
      default_model_path().parent_path() / (state.range(0) ? "physskin_clonk_rig.pt" : "physskin_small.pt");
  const NeuralFieldModel model(file);
  std::shared_ptr<const fields::SkinningField> field;
  if (state.range(1)) {
    nlohmann::json metadata;
    SkinningNetwork network = load_network(file.string(), &metadata);
    const auto evaluator =
        std::make_shared<const fields::FieldNetwork>(export_field_network(network, metadata, "bench"), "bench", 1);
    field = evaluator->fields_for(shape());
  } else {
    field = model.fields_for(shape());
  }
  const std::vector<Vec3d> points = query_points(4096);
  const bool gradient = state.range(2) != 0;
  for (auto _ : state) benchmark::DoNotOptimize(field->evaluate(points, gradient));
  state.SetLabel(std::string(state.range(1) ? "torch-free" : "LibTorch") + (gradient ? ", W + grad W" : ", W"));
  set_model_counters(state, model, 4096);
}

// (width, handles): the width sweep at 8 handles, then the handle sweep at width 64.
const std::vector<std::pair<int, int>> kSizes{{32, 8}, {64, 8}, {128, 8}, {64, 4}, {64, 16}};

// The size sweeps, then the point sweep at (64, 8).
void sizes(benchmark::internal::Benchmark* b, const std::vector<std::int64_t>& points,
           const std::vector<std::int64_t>& extra) {
  for (const auto& [w, m] : kSizes)
    for (std::int64_t e : extra) b->Args({w, m, points[1], e});
  for (std::int64_t n : {points[0], points[2]})
    for (std::int64_t e : extra) b->Args({64, 8, n, e});
}

}  // namespace

BENCHMARK(BM_InferencePerPoint)
    ->ArgNames({"width", "handles", "points", "gradient"})
    ->Apply([](auto* b) {
      sizes(b, {256, 4096, 16384}, {0, 1});
    }) -> Unit(benchmark::kMillisecond) -> MinTime(0.2);
BENCHMARK(BM_NewShape)
    ->ArgNames({"width", "handles", "points"})
    ->Apply([](auto* b) {
      for (const auto& [w, m] : kSizes) b->Args({w, m, 1000});
      for (int n : {250, 4000}) b->Args({64, 8, n});
    }) -> Unit(benchmark::kMillisecond) -> MinTime(0.2);
BENCHMARK(BM_TrainingStep)
    ->ArgNames({"width", "handles", "batch", "procedural"})
    ->Apply([](auto* b) {
      sizes(b, {64, 256, 512}, {0});
      b->Args({64, 8, 256, 1});
    }) -> UseManualTime() -> Iterations(1) -> Repetitions(1) -> Unit(benchmark::kMillisecond);
BENCHMARK(BM_ShippedModelPerShape)
    ->ArgNames({"mesh", "sampling"})
    ->ArgsProduct({{0, 1, 2, 3, 4, 5}, {0, 1}})
    ->Unit(benchmark::kMillisecond)
    ->MinTime(0.2);

BENCHMARK(BM_EvaluatorPerPoint)
    ->ArgNames({"model", "torch_free", "gradient"})
    ->ArgsProduct({{0, 1}, {0, 1}, {0, 1}})
    ->Unit(benchmark::kMillisecond)
    ->MinTime(0.2);

BENCHMARK_MAIN();
