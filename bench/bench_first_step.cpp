// Time from reading a shape to its first simulation step (issue 35's "time to first step"), split
// into the stages `wobble simulate SHAPE` goes through, for the two subspaces it offers: the
// shipped neural fields (models/physskin_small.wfield, the torch-free evaluator) and skinning
// eigenmodes. On mannequin-devil (12,977 vertices), with the settings of `wobble fields metrics
// --fidelity` (9 columns: the network's 8 fields and the constant, or 9 eigenmodes, the
// constant among them). Stages:
//   read             the OFF file
//   sample           the body's cubature samples (fields::sample_mesh, 24 cells), both paths
//   encoder_sample   neural: the encoder's own sample of the mesh (make_shape_sample: 1,024
//                    surface points and 1,000 cubature points on a 16-cell grid)
//   encode           neural: the encoder on the surface cloud (once per shape)
//   candidates       neural: the 64 candidate fields and their gradients at the 1,000 cubature points
//   fields_for       neural: encode + candidates + the Rayleigh-Ritz selection, as simulate does it
//   eigenmodes       eigenmodes over the cover (samples and vertices), 20-cell grid
//   body             World::add_body: the basis and its derivatives at the samples, masses, Hessian set-up
//   bind             the basis at every vertex (what is shown moves with the body)
//   step             one implicit step under gravity
//   total            quick_scene + one step, as `wobble fields metrics --fidelity` times it
// Candidates and the neural total also run with Eigen's products and functions in place of the
// evaluator's SIMD kernels (Isa::scalar, src/fields/field_kernels.hpp: the evaluator before
// them), for their ratio.
// bench/report_first_step.py prints the split and the neural-to-eigenmodes ratio of each path.
// Both paths use the machine's threads as `wobble simulate` does (the evaluator's pool); CPU time
// is the process's (every thread), shown beside wall time.
#include <filesystem>
#include <memory>
#include <string>

#include <benchmark/benchmark.h>

#include <wobble/fields/field_network.hpp>
#include <wobble/fields/sampling.hpp>
#include <wobble/fields/shape_sample.hpp>
#include <wobble/io/files.hpp>
#include <wobble/physics/scene.hpp>
#include <wobble/physics/shape_body.hpp>

#include "isa_scope.hpp"

using namespace wobble;
namespace fs = std::filesystem;

namespace {

const fs::path kShape = fs::path(WOBBLE_SHARED_ASSETS) / "shapes" / "mannequin-devil.off";
// Eigenmodes with the constant as mode 0: as many columns as the shipped network's 8 fields and
// its constant, as `wobble fields metrics --fidelity` times them.
constexpr int kEigenmodes = 9;

const physics::Settings& settings() {
  static const physics::Settings s = [] {
    physics::Settings s;
    s.handles = kEigenmodes;
    s.frames = 1;
    return s;
  }();
  return s;
}

const Character& character() {
  static const Character c = load_character(kShape);
  return c;
}

fields::SamplePoints body_samples() {
  fields::SampleOptions options;
  options.grid_resolution = settings().sample_grid;
  return fields::subsample(fields::sample_mesh(character().mesh, options), settings().points);
}

const fields::SamplePoints& samples() {
  static const fields::SamplePoints s = body_samples();
  return s;
}

const std::vector<Vec3d>& normalised_vertices() {
  static const std::vector<Vec3d> v = [] {
    std::vector<Vec3d> out;
    for (const Vec3f& p : character().mesh.positions)
      out.push_back(samples().normalization.to_normalized(p.cast<double>()));
    return out;
  }();
  return v;
}

const fields::FieldNetwork& network() {
  static const std::shared_ptr<const fields::FieldNetwork> n =
      fields::FieldNetwork::load(fields::default_field_network_path(false));
  return *n;
}

const fields::ShapeSample& encoder_sample() {
  static const fields::ShapeSample s =
      fields::make_shape_sample(character().mesh, "shape", network().sample_options(), network().sample_seed());
  return s;
}

std::shared_ptr<const fields::SkinningField> field_of(bool neural) {
  if (neural) return network().fields_for(encoder_sample());
  return physics::shape_eigenmodes(physics::shape_cover(samples(), normalised_vertices()), kEigenmodes,
                                   settings().field_grid);
}

physics::BodyDescription body_of(bool neural) {
  static const std::shared_ptr<const fields::SkinningField> fields[2] = {field_of(false), field_of(true)};
  return physics::shape_body("bench", samples(), fields[neural ? 1 : 0], normalised_vertices(), {},
                             settings().material(), settings().model);
}

void BM_Read(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(load_character(kShape));
  state.counters["vertices"] = static_cast<double>(character().mesh.positions.size());
}

void BM_Sample(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(body_samples());
}

void BM_EncoderSample(benchmark::State& state) {
  for (auto _ : state)
    benchmark::DoNotOptimize(
        fields::make_shape_sample(character().mesh, "shape", network().sample_options(), network().sample_seed()));
}

void BM_Encode(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(network().encode(encoder_sample().surface));
}

void BM_Candidates(benchmark::State& state) {
  IsaScope products(state, state.range(0) != 0);  // 1: Eigen's products and functions (the reference)
  const auto encoded = network().encode(encoder_sample().surface);
  const std::vector<Vec3d> points = fields::cubature_points(encoder_sample());
  Eigen::MatrixXd W;
  std::array<Eigen::MatrixXd, 3> gradient;
  for (auto _ : state) {
    network().raw_fields(*encoded, points, W, &gradient);
    benchmark::DoNotOptimize(W.data());
  }
  state.counters["candidates"] = static_cast<double>(network().raw_field_count());
  state.counters["points"] = static_cast<double>(points.size());
}

void BM_FieldsFor(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(network().fields_for(encoder_sample()));
}

void BM_Eigenmodes(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(field_of(false));
}

void BM_Body(benchmark::State& state) {
  const bool neural = state.range(0) != 0;
  for (auto _ : state) {
    state.PauseTiming();
    physics::BodyDescription description = body_of(neural);
    physics::World world;
    state.ResumeTiming();
    world.add_body(std::move(description));
  }
}

void BM_Bind(benchmark::State& state) {
  const bool neural = state.range(0) != 0;
  physics::World world;
  world.add_body(body_of(neural));
  for (auto _ : state) benchmark::DoNotOptimize(world.body(0).basis_at(normalised_vertices(), false));
  state.counters["points"] = static_cast<double>(normalised_vertices().size());
}

void BM_Step(benchmark::State& state) {
  const bool neural = state.range(0) != 0;
  for (auto _ : state) {
    state.PauseTiming();
    physics::World world;
    world.solver.time_step = settings().time_step();
    world.add_body(body_of(neural));
    state.ResumeTiming();
    benchmark::DoNotOptimize(world.step());
  }
}

void BM_NeuralTotal(benchmark::State& state) {
  IsaScope products(state, state.range(0) != 0);  // 1: Eigen's products and functions (the reference)
  physics::QuickSceneOptions options;
  options.settings = settings();
  options.field_source = fields::field_network_mesh_fields({}, false);
  for (auto _ : state) {
    physics::Scene scene = physics::quick_scene(kShape, options);
    benchmark::DoNotOptimize(scene.world.step());
  }
}

void BM_Total(benchmark::State& state) {
  const bool neural = state.range(0) != 0;
  physics::QuickSceneOptions options;
  options.settings = settings();
  if (neural) options.field_source = fields::field_network_mesh_fields({}, false);
  for (auto _ : state) {
    physics::Scene scene = physics::quick_scene(kShape, options);
    benchmark::DoNotOptimize(scene.world.step());
  }
}

// Milliseconds of wall time, with the CPU time of every thread of the process beside it.
void timed(benchmark::internal::Benchmark* b) {
  b->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime()->UseRealTime();
}

// Both paths: neural 0 (eigenmodes) and 1.
void both_paths(benchmark::internal::Benchmark* b) { timed(b->ArgName("neural")->Arg(0)->Arg(1)); }

// The evaluator's kernels (0) and Eigen's products (1).
void both_products(benchmark::internal::Benchmark* b) { timed(b->ArgName("eigen_products")->Arg(0)->Arg(1)); }

}  // namespace

BENCHMARK(BM_Read)->Apply(timed);
BENCHMARK(BM_Sample)->Apply(timed);
BENCHMARK(BM_EncoderSample)->Apply(timed);
BENCHMARK(BM_Encode)->Apply(timed);
BENCHMARK(BM_Candidates)->Apply(both_products);
BENCHMARK(BM_FieldsFor)->Apply(timed);
BENCHMARK(BM_Eigenmodes)->Apply(timed);
BENCHMARK(BM_Body)->Apply(both_paths);
BENCHMARK(BM_Bind)->Apply(both_paths);
BENCHMARK(BM_Step)->Apply(both_paths);
BENCHMARK(BM_Total)->Apply(both_paths);
BENCHMARK(BM_NeuralTotal)->Apply(both_products);
BENCHMARK_MAIN();
