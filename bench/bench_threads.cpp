// Thread scaling: one frame of each deformer stack on one thread and on all threads, on the
// bundled clonk (1,814 vertices, Walk) and on 55 copies of it (99,770 vertices, each copy its own
// surface, shifted by 1% of the size so that no seam welds them). bench/report_threads.py prints
// the speed-ups. Every stack gives identical bytes for any thread count (tests check this).
#include <algorithm>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include <benchmark/benchmark.h>

#include <wobble/character.hpp>
#include <wobble/deformer.hpp>
#include <wobble/io.hpp>
#include <wobble/parallel.hpp>
#include <wobble/pose.hpp>

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

void run(benchmark::State& state, const Character& c) {
  const std::string spec = kStacks[state.range(0)];
  const std::size_t threads = state.range(1) ? std::max(1u, std::thread::hardware_concurrency()) : 1;
  ThreadPool pool(threads);
  DeformerStack stack = DeformerStack::parse(spec);
  stack.bind(c);
  const std::size_t clip_index = c.find_clip("Walk").value_or(0);
  const Clip& clip = c.clips[clip_index];
  Pose pose;
  std::vector<Vec3f> positions, normals;
  std::size_t frame = 0;
  for (auto _ : state) {
    const double t = clip.start() + std::fmod(static_cast<double>(frame++) / 60.0, std::max(1e-3, static_cast<double>(clip.duration())));
    evaluate_pose(c.rig, &clip, static_cast<float>(t), pose);
    FrameInput input{c, pose, t, [&](double s, Pose& p) { evaluate_pose(c.rig, &clip, static_cast<float>(s), p); }, &pool};
    stack.evaluate(input, positions, normals);
    benchmark::DoNotOptimize(positions.data());
  }
  state.SetLabel(spec);
  state.counters["threads"] = static_cast<double>(threads);
  state.counters["vertices"] = static_cast<double>(c.mesh.vertex_count());
}

void BM_StackClonk(benchmark::State& state) { run(state, clonk()); }
void BM_StackClonk55(benchmark::State& state) { run(state, clonks()); }

void stacks(benchmark::internal::Benchmark* b) {
  b->ArgNames({"stack", "all_threads"});
  for (int s = 0; s < static_cast<int>(std::size(kStacks)); ++s) b->Args({s, 0})->Args({s, 1});
}

}  // namespace

BENCHMARK(BM_StackClonk)->Apply(stacks)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_StackClonk55)->Apply(stacks)->Unit(benchmark::kMillisecond)->UseRealTime();

BENCHMARK_MAIN();
