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
#include <wobble/io.hpp>
#include <wobble/lbs.hpp>
#include <wobble/parallel.hpp>
#include <wobble/pose.hpp>

using namespace wobble;

namespace {

// A biped-like tree of 64 joints (spine, neck and head, two arms, two legs, a tail) with
// 1,000,000 vertices spread along the bones, 4 influences each, and a clip that swings every joint.
Character synthetic_character(std::size_t vertex_count) {
  Character c;
  c.source = "synthetic-1M";
  std::vector<Vec3f> world_position;
  auto add = [&](int parent, const Vec3f& offset) {
    Transform rest;
    rest.translation = offset;
    const Vec3f position = (parent >= 0 ? world_position[parent] : Vec3f::Zero()) + offset;
    Mat4f inverse_bind = Mat4f::Identity();
    inverse_bind.topRightCorner<3, 1>() = -position;
    world_position.push_back(position);
    return c.rig.add_joint("joint" + std::to_string(c.rig.joint_count()), parent, rest, inverse_bind, true);
  };
  auto limb = [&](int parent, const Vec3f& direction, int count) {
    int j = parent;
    for (int k = 0; k < count; ++k) j = add(j, direction);
  };
  const int root = add(-1, Vec3f(0, 1, 0));
  int spine = root;
  std::vector<int> spine_joints;
  for (int k = 0; k < 8; ++k) spine_joints.push_back(spine = add(spine, Vec3f(0, 0.08f, 0)));
  limb(spine, Vec3f(0, 0.06f, 0), 8);                        // neck and head
  limb(spine_joints[6], Vec3f(0.07f, -0.01f, 0), 10);        // arms
  limb(spine_joints[6], Vec3f(-0.07f, -0.01f, 0), 10);
  limb(root, Vec3f(0.03f, -0.11f, 0), 9);                    // legs
  limb(root, Vec3f(-0.03f, -0.11f, 0), 9);
  limb(root, Vec3f(0, -0.02f, -0.08f), 64 - static_cast<int>(c.rig.joint_count()));  // tail
  const int joints = static_cast<int>(c.rig.joint_count());

  std::mt19937 random(3);
  std::uniform_real_distribution<float> unit(-1, 1);
  c.mesh.positions.reserve(vertex_count);
  for (std::size_t v = 0; v < vertex_count; ++v) {
    // Neighbouring vertices on the same bone, as a real mesh would have them.
    const int j = 1 + static_cast<int>((v * static_cast<std::size_t>(joints - 1)) / vertex_count);
    const int parent = c.rig.parents[j];
    const float s = (static_cast<float>(v % 997) + 0.5f) / 997.0f;
    const Vec3f p = world_position[parent] + s * (world_position[j] - world_position[parent]) +
                    0.02f * Vec3f(unit(random), unit(random), unit(random));
    c.mesh.positions.push_back(p);
    const int grand = c.rig.parents[parent] >= 0 ? c.rig.parents[parent] : parent;
    std::vector<Influence> influences = {{static_cast<std::uint32_t>(parent), 0.5f * (1 - s) + 0.1f},
                                         {static_cast<std::uint32_t>(j), 0.5f * s + 0.1f},
                                         {static_cast<std::uint32_t>(grand), 0.1f}};
    float sum = 0;
    for (const Influence& i : influences) sum += i.weight;
    for (Influence& i : influences) i.weight /= sum;
    c.skin.add_vertex(influences);
  }
  Clip clip;
  clip.name = "swing";
  for (int j = 0; j < joints; ++j) {
    Channel channel;
    channel.joint = static_cast<std::uint32_t>(j);
    channel.path = ChannelPath::Rotation;
    const Vec3f axis = Vec3f(unit(random), unit(random), unit(random)).normalized();
    for (int k = 0; k <= 30; ++k) {
      const float t = static_cast<float>(k) / 30.0f;
      channel.times.push_back(t);
      const Quatf q(Eigen::AngleAxisf(0.4f * std::sin(6.2832f * t + static_cast<float>(j)), axis));
      channel.values.insert(channel.values.end(), {q.x(), q.y(), q.z(), q.w()});
    }
    clip.channels.push_back(std::move(channel));
  }
  c.clips.push_back(std::move(clip));
  return c;
}

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
    LbsJob job;
    job.skinning_matrices = pose.skinning;
    job.skin = &skin;
    job.in_positions = character.mesh.positions;
    job.out_positions = base;
    job.Run();
  }
};

Scene& clonk() {
  static Scene s(load_character(std::string(WOBBLE_BUNDLED_ASSETS) + "/clonk.glb"), "Walk");
  return s;
}
Scene& marine() {
  static Scene s(load_character(std::string(WOBBLE_SHARED_ASSETS) + "/characters/velocity_skinning/vs_marine.glb"), "run");
  return s;
}
Scene& million() {
  static Scene s(synthetic_character(1'000'000), "swing");
  return s;
}

void run(benchmark::State& state, Scene& scene) {
  const std::size_t threads = state.range(0) == 0 ? std::max(1u, std::thread::hardware_concurrency()) : static_cast<std::size_t>(state.range(0));
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
