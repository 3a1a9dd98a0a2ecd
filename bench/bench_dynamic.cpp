// Dynamic Skinning's cost per frame (the whole effect: 60 Hz sampling of the clip, the filter and
// the bend kernel; the base skinning is not counted) and per (vertex, joint) pair with beta > 0,
// on the bundled character (clonk, Walk), on the Velocity Skinning reference's marine (run: the
// reference takes about 50 ms per frame there, ~880 ns per pair) and on a synthetic
// 1,000,000-vertex character. One thread and all threads. Frames advance by 1/60 s through the
// clip; each frame starts from the same base-skinned positions (the copy is not timed).
#include <chrono>
#include <cmath>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include <benchmark/benchmark.h>

#include <wobble/character.hpp>
#include <wobble/dynamic_skinning.hpp>
#include <wobble/io/files.hpp>
#include <wobble/lbs.hpp>
#include <wobble/parallel.hpp>
#include <wobble/pose.hpp>

#include "synthetic_character.hpp"

using namespace wobble;

namespace {

struct Scene {
  Character character;
  std::size_t clip = 0;
  DynamicSkinningParameters parameters;
  std::vector<Vec3f> base;  // LBS at mid-clip

  Scene(Character c, const std::string& clip_name) : character(std::move(c)) {
    clip = character.find_clip(clip_name).value_or(0);
    Pose pose;
    const Clip& k = character.clips[clip];
    evaluate_pose(character.rig, &k, 0.5f * (k.start() + k.end()), pose);
    base.resize(character.mesh.vertex_count());
    const PackedSkin skin = PackedSkin::from(character.skin);
    const LbsJob job{.skinning_matrices = pose.skinning,
                     .skin = &skin,
                     .in_positions = character.mesh.positions,
                     .in_normals = {},
                     .out_positions = base,
                     .out_normals = {}};
    job.run();
  }
};

Scene& clonk() {
  static Scene s(load_character(std::string(WOBBLE_BUNDLED_ASSETS) + "/clonk.glb"), "Walk");
  return s;
}
Scene& marine() {
  static Scene s(load_character(std::string(WOBBLE_SHARED_ASSETS) + "/characters/velocity_skinning/vs_marine.glb"),
                 "run");
  return s;
}
Scene& million() {
  static Scene s(bench::synthetic_character(1'000'000), "swing");
  return s;
}

void run(benchmark::State& state, Scene& scene) {
  const std::size_t threads = state.range(0) == 0 ? std::max(1u, std::thread::hardware_concurrency())
                                                  : static_cast<std::size_t>(state.range(0));
  ThreadPool pool(threads);
  const Character& c = scene.character;
  const Clip& clip = c.clips[scene.clip];
  DynamicSkinningState ds;
  ds.initialize(c, scene.parameters);
  const PoseSampler sampler = clip_sampler(c.rig, clip);
  Pose pose;
  std::vector<Vec3f> positions = scene.base;
  const double start = clip.start(), duration = std::max(1e-3f, clip.duration());
  std::size_t frame = 0, active = 0, frames = 0;
  double seconds = 0;
  // Warm up the history so that the oscillations are running.
  for (int k = 0; k < 30; ++k, ++frame) {
    const double t = start + std::fmod(static_cast<double>(frame) / 60.0, duration);
    evaluate_pose(c.rig, &clip, static_cast<float>(t), pose);
    ds.apply(scene.parameters, pose, positions, t, sampler, &pool);
  }
  for (auto _ : state) {
    const double t = start + std::fmod(static_cast<double>(frame++) / 60.0, duration);
    evaluate_pose(c.rig, &clip, static_cast<float>(t), pose);
    std::copy(scene.base.begin(), scene.base.end(), positions.begin());
    const auto begin = std::chrono::steady_clock::now();
    ds.apply(scene.parameters, pose, positions, t, sampler, &pool);
    const auto end = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(positions.data());
    const double elapsed = std::chrono::duration<double>(end - begin).count();
    state.SetIterationTime(elapsed);
    seconds += elapsed;
    active += ds.active_pair_count();
    ++frames;
  }
  const double pairs = static_cast<double>(ds.hierarchical_weights().pair_count());
  state.counters["pairs"] = pairs;
  state.counters["active_pairs"] = frames ? static_cast<double>(active) / static_cast<double>(frames) : 0;
  state.counters["threads"] = static_cast<double>(threads);
  state.counters["dense_lanes"] = static_cast<double>(ds.dense_lane_count());
  const double per_frame = frames ? seconds / static_cast<double>(frames) : 0;
  state.counters["ms_per_frame"] = per_frame * 1e3;
  state.counters["ns_per_pair"] = per_frame / pairs * 1e9;
}

void BM_DynamicClonkWalk(benchmark::State& state) { run(state, clonk()); }
void BM_DynamicMarineRun(benchmark::State& state) { run(state, marine()); }
void BM_DynamicMillionVertices(benchmark::State& state) { run(state, million()); }

}  // namespace

BENCHMARK(BM_DynamicClonkWalk)->Arg(1)->Arg(0)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_DynamicMarineRun)->Arg(1)->Arg(0)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_DynamicMillionVertices)->Arg(1)->Arg(0)->UseManualTime()->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
