// Delayed LBS per frame (the delayed rotations sampled from the clip, the per-class chain
// matrices, the packed blend) against plain LBS of the same character in the same process, with
// positions and normals, on the bundled clonk (Walk) and the synthetic 1,000,000-vertex character;
// one thread and all threads. bench/report_dlbs.py prints the ratios (target: at most 2x LBS at
// 1,000,000 vertices).
#include <algorithm>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include <benchmark/benchmark.h>

#include <wobble/character.hpp>
#include <wobble/delayed_lbs.hpp>
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
  PackedSkin skin;
  Scene(Character c, const std::string& clip_name) : character(std::move(c)) {
    clip = character.find_clip(clip_name).value_or(0);
    skin = PackedSkin::from(character.skin);
  }
};

Scene& clonk() {
  static Scene s(load_character(std::string(WOBBLE_BUNDLED_ASSETS) + "/clonk.glb"), "Walk");
  return s;
}
Scene& million() {
  static Scene s(bench::synthetic_character(1'000'000), "swing");
  return s;
}

std::size_t threads_of(const benchmark::State& state) {
  return state.range(0) == 0 ? std::max(1u, std::thread::hardware_concurrency())
                             : static_cast<std::size_t>(state.range(0));
}

double frame_time(const Clip& clip, std::size_t frame) {
  return clip.start() +
         std::fmod(static_cast<double>(frame) / 60.0, std::max(1e-3, static_cast<double>(clip.duration())));
}

void lbs(benchmark::State& state, Scene& scene) {
  ThreadPool pool(threads_of(state));
  const Character& c = scene.character;
  const Clip& clip = c.clips[scene.clip];
  std::vector<Vec3f> positions(c.mesh.vertex_count()), normals(c.mesh.vertex_count());
  Pose pose;
  std::size_t frame = 0;
  for (auto _ : state) {
    evaluate_pose(c.rig, &clip, static_cast<float>(frame_time(clip, frame++)), pose);
    LbsJob job{pose.skinning, &scene.skin, c.mesh.positions, c.mesh.normals, positions, normals, true};
    job.run(&pool);
    benchmark::DoNotOptimize(positions.data());
  }
  state.counters["vertices"] = static_cast<double>(c.mesh.vertex_count());
}

void delayed(benchmark::State& state, Scene& scene) {
  ThreadPool pool(threads_of(state));
  const Character& c = scene.character;
  const Clip& clip = c.clips[scene.clip];
  DelayedLbs dlbs;
  dlbs.bind(c, DelayedLbsParameters{});
  const PoseSampler sampler = [&](double t, Pose& p) { evaluate_pose(c.rig, &clip, static_cast<float>(t), p); };
  std::vector<Vec3f> positions(c.mesh.vertex_count()), normals(c.mesh.vertex_count());
  Pose pose;
  std::size_t frame = 0;
  for (auto _ : state) {
    const double t = frame_time(clip, frame++);
    evaluate_pose(c.rig, &clip, static_cast<float>(t), pose);
    dlbs.evaluate(pose, t, sampler, positions, normals, &pool);
    benchmark::DoNotOptimize(positions.data());
  }
  state.counters["vertices"] = static_cast<double>(c.mesh.vertex_count());
  state.counters["delay_levels"] = dlbs.max_delay() / DelayedLbsParameters{}.delay_step;
}

void BM_LbsClonk(benchmark::State& state) { lbs(state, clonk()); }
void BM_DelayedLbsClonk(benchmark::State& state) { delayed(state, clonk()); }
void BM_LbsMillion(benchmark::State& state) { lbs(state, million()); }
void BM_DelayedLbsMillion(benchmark::State& state) { delayed(state, million()); }

}  // namespace

BENCHMARK(BM_LbsClonk)->Arg(1)->Arg(0)->ArgName("threads")->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_DelayedLbsClonk)->Arg(1)->Arg(0)->ArgName("threads")->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_LbsMillion)->Arg(1)->Arg(0)->ArgName("threads")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_DelayedLbsMillion)->Arg(1)->Arg(0)->ArgName("threads")->Unit(benchmark::kMillisecond)->UseRealTime();

BENCHMARK_MAIN();
