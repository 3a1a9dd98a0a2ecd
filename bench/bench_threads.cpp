// Thread scaling: one frame of each deformer stack on one thread and on all threads, on the
// bundled clonk (1,814 vertices, Walk) and on 55 copies of it (99,770 vertices, each copy its own
// surface, shifted by 1% of the size so that no seam welds them). bench/report_threads.py prints
// the speed-ups. Every stack gives identical bytes for any thread count (tests check this).
// Whether Dynamic Skinning's 60 Hz sampling would pay off in parallel over joints: its cost per
// frame (BM_DynamicSampling: advance() without the per-vertex kernel), the pose evaluation in it
// (BM_PoseEvaluation), and where splitting work of a known size over two threads starts to pay
// (BM_ParallelChunks against BM_SerialChunks).
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <benchmark/benchmark.h>

#include <wobble/character.hpp>
#include <wobble/deformer.hpp>
#include <wobble/dynamic_skinning.hpp>
#include <wobble/io/files.hpp>
#include <wobble/parallel.hpp>
#include <wobble/pose.hpp>

#include "synthetic_character.hpp"

using namespace wobble;

namespace {

const char* const kStacks[] = {"lbs", "dqs", "dlbs", "lbs,dynamic", "lbs,deltamush", "dqs,deltamush", "lbs,ddm"};

Character copies_of(const Character& c, int copies) {
  Character out = c;
  out.mesh.positions.clear();
  out.mesh.normals.clear();
  out.mesh.triangles.clear();
  out.mesh.uvs.clear();
  out.mesh.primitives.clear();
  out.mesh.vertex_scalars.clear();
  out.skin = Skin{};
  const std::size_t n = c.mesh.vertex_count();
  const float shift = 0.01f * c.mesh.size();
  for (int k = 0; k < copies; ++k) {
    for (std::size_t v = 0; v < n; ++v) {
      out.mesh.positions.push_back(c.mesh.positions[v] + Vec3f(0, 0, shift * static_cast<float>(k)));
      if (!c.mesh.normals.empty()) out.mesh.normals.push_back(c.mesh.normals[v]);
      std::vector<Influence> influences;
      const auto joints = c.skin.joints_of(v);
      const auto weights = c.skin.weights_of(v);
      for (std::size_t i = 0; i < joints.size(); ++i) influences.push_back({joints[i], weights[i]});
      out.skin.add_vertex(influences);
    }
    for (const Triangle& t : c.mesh.triangles) {
      Triangle shifted = t;
      for (auto& index : shifted) index += static_cast<std::uint32_t>(k * n);
      out.mesh.triangles.push_back(shifted);
    }
  }
  return out;
}

const Character& clonk() {
  static const Character c = load_character(std::string(WOBBLE_BUNDLED_ASSETS) + "/clonk.glb");
  return c;
}
const Character& clonks() {
  static const Character c = copies_of(clonk(), 55);
  return c;
}

// Bound once per character and stack (repetitions reuse it: a ddm bind at 100,000 vertices takes
// seconds); the thread count is the evaluation's.
DeformerStack& bound_stack(const Character& c, const std::string& spec) {
  static std::map<std::pair<const Character*, std::string>, std::unique_ptr<DeformerStack>> stacks;
  auto& stack = stacks[{&c, spec}];
  if (!stack) {
    stack = std::make_unique<DeformerStack>(DeformerStack::parse(spec));
    stack->bind(c);
  }
  return *stack;
}

std::size_t thread_count(bool all) { return all ? std::max(1u, std::thread::hardware_concurrency()) : 1; }

void run(benchmark::State& state, const Character& c) {
  const std::string spec = kStacks[state.range(0)];
  const std::size_t threads = thread_count(state.range(1) != 0);
  ThreadPool pool(threads);
  DeformerStack& stack = bound_stack(c, spec);
  const std::size_t clip_index = c.find_clip("Walk").value_or(0);
  const Clip& clip = c.clips[clip_index];
  Pose pose;
  std::vector<Vec3f> positions, normals;
  std::size_t frame = 0;
  for (auto _ : state) {
    const double t = clip.start() + std::fmod(static_cast<double>(frame++) / 60.0,
                                              std::max(1e-3, static_cast<double>(clip.duration())));
    evaluate_pose(c.rig, &clip, static_cast<float>(t), pose);
    FrameInput input{c, pose, t, [&](double s, Pose& p) { evaluate_pose(c.rig, &clip, static_cast<float>(s), p); },
                     &pool};
    stack.evaluate(input, positions, normals);
    benchmark::DoNotOptimize(positions.data());
  }
  state.SetLabel(spec);
  state.counters["threads"] = static_cast<double>(threads);
  state.counters["vertices"] = static_cast<double>(c.mesh.vertex_count());
}

// Dynamic Skinning's per-frame joint work at a 30 fps frame rate (two 60 Hz samples per frame:
// the in-between pose, velocities, filters), without the per-vertex kernel.
void sampling(benchmark::State& state, const Character& c) {
  const DynamicSkinningParameters parameters;
  DynamicSkinningState dynamic;
  dynamic.initialize(c, parameters);
  const Clip& clip = c.clips[c.find_clip("Walk").value_or(0)];
  const PoseSampler pose_at = [&](double s, Pose& p) { evaluate_pose(c.rig, &clip, static_cast<float>(s), p); };
  const double duration = std::max(1e-3, static_cast<double>(clip.duration()));
  Pose pose;
  std::size_t frame = 0;
  for (auto _ : state) {
    const double t = static_cast<double>(frame++) / 30.0;
    evaluate_pose(c.rig, &clip, static_cast<float>(clip.start() + std::fmod(t, duration)), pose);
    dynamic.advance(parameters, pose, t, pose_at);
    benchmark::DoNotOptimize(dynamic.joint_table().data());
  }
  state.counters["joints"] = static_cast<double>(c.rig.joint_count());
}

const Character& synthetic() {
  static const Character c = bench::synthetic_character(1000);  // 64 joints; its clip swings them all
  return c;
}

void BM_DynamicSampling(benchmark::State& state) { sampling(state, state.range(0) ? synthetic() : clonk()); }

// The part of the sampling that is not per joint: evaluating a pose of the clip (the in-between
// 60 Hz pose), per call.
void BM_PoseEvaluation(benchmark::State& state) {
  const Character& c = state.range(0) ? synthetic() : clonk();
  const Clip& clip = c.clips[c.find_clip("Walk").value_or(0)];
  Pose pose;
  std::size_t k = 0;
  for (auto _ : state) {
    evaluate_pose(c.rig, &clip, clip.start() + 0.01f * static_cast<float>(k++ % 50), pose);
    benchmark::DoNotOptimize(pose.world.data());
  }
}

// A dependent chain of `steps` multiply-adds (about 4 cycles each): work of a known size.
float busy(std::size_t steps, float x) {
  for (std::size_t k = 0; k < steps; ++k) x = x * 0.999f + 1e-3f;
  return x;
}

// Two chunks of busy work split over all threads (Arg: steps per chunk), against the same two
// chunks on one thread (BM_SerialChunks): where the split starts to pay.
void BM_ParallelChunks(benchmark::State& state) {
  ThreadPool pool(thread_count(true));
  const auto steps = static_cast<std::size_t>(state.range(0));
  float out[2] = {0, 0};
  for (auto _ : state) {
    pool.parallel_for(2, 1, [&](std::size_t begin, std::size_t) { out[begin] = busy(steps, out[begin]); });
    benchmark::DoNotOptimize(out);
  }
  state.counters["threads"] = static_cast<double>(pool.thread_count());
}

void BM_SerialChunks(benchmark::State& state) {
  const auto steps = static_cast<std::size_t>(state.range(0));
  float out[2] = {0, 0};
  for (auto _ : state) {
    for (float& x : out) x = busy(steps, x);
    benchmark::DoNotOptimize(out);
  }
}

void BM_StackClonk(benchmark::State& state) { run(state, clonk()); }
void BM_StackClonk55(benchmark::State& state) { run(state, clonks()); }

void stacks(benchmark::internal::Benchmark* b) {
  b->ArgNames({"stack", "all_threads"});
  for (int s = 0; s < static_cast<int>(std::size(kStacks)); ++s) b->Args({s, 0})->Args({s, 1});
}

// Work of known size split into chunks, parallel against serial, both timed in wall time.
void chunk_sizes(benchmark::internal::Benchmark* b) {
  b->ArgName("steps")->Arg(500)->Arg(2000)->Arg(8000)->Unit(benchmark::kMicrosecond)->UseRealTime();
}

}  // namespace

BENCHMARK(BM_StackClonk)->Apply(stacks)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_StackClonk55)->Apply(stacks)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_DynamicSampling)->ArgName("synthetic64")->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_PoseEvaluation)->ArgName("synthetic64")->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_ParallelChunks)->Apply(chunk_sizes);
BENCHMARK(BM_SerialChunks)->Apply(chunk_sizes);

BENCHMARK_MAIN();
