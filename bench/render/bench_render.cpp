// Frame times of the renderer's two skinning paths (Mesa llvmpipe here: software OpenGL, so the
// figures are informative only): deform + upload + draw + glFinish, for lbs,dynamic.
//   CPU path  DeformerStack lbs,dynamic on the CPU (all cores), positions and normals uploaded.
//   GPU path  DynamicSkinningState::advance on the CPU, LBS + offsets in the vertex shader.
// On clonk.glb and on a 1,000,000-vertex tube (2,000,000 triangles) on an 8-joint chain.
#include <chrono>
#include <cmath>
#include <memory>
#include <numbers>

#include <benchmark/benchmark.h>
#include <epoxy/gl.h>

#include <wobble/deformer.hpp>
#include <wobble/dynamic_skinning.hpp>
#include <wobble/io.hpp>
#include <wobble/parallel.hpp>
#include <wobble/render/camera.hpp>
#include <wobble/render/headless_context.hpp>
#include <wobble/render/offscreen.hpp>
#include <wobble/render/renderer.hpp>

#include "synthetic_rigs.hpp"

using namespace wobble;

namespace {

constexpr int kWidth = 640, kHeight = 360;

// A closed tube along +Y: `rings` rings of `around` vertices over a chain of `joints` bones,
// each vertex blended between the two nearest joints; a clip swings two of the joints.
Character tube(int rings, int around, int joints) {
  Character c = test::chain_character(joints, 1.0f, 0);
  c.source = "synthetic-tube";
  const float length = static_cast<float>(joints);
  for (int r = 0; r < rings; ++r) {
    const float y = length * (static_cast<float>(r) + 0.5f) / static_cast<float>(rings);
    const float along = y - 0.5f;
    const int j0 = std::clamp(static_cast<int>(std::floor(along)), 0, joints - 1);
    const int j1 = std::min(j0 + 1, joints - 1);
    const float s = std::clamp(along - static_cast<float>(j0), 0.0f, 1.0f);
    for (int a = 0; a < around; ++a) {
      const float angle = 2.0f * std::numbers::pi_v<float> * static_cast<float>(a) / static_cast<float>(around);
      c.mesh.positions.emplace_back(0.3f * std::cos(angle), y, 0.3f * std::sin(angle));
      const Influence pair[2] = {{static_cast<std::uint32_t>(j0), 1 - s}, {static_cast<std::uint32_t>(j1), s}};
      c.skin.add_vertex(j0 == j1 ? std::span<const Influence>(pair, 1) : std::span<const Influence>(pair, 2));
    }
  }
  for (int r = 0; r + 1 < rings; ++r) {
    for (int a = 0; a < around; ++a) {
      const auto v = [&](int rr, int aa) { return static_cast<std::uint32_t>(rr * around + (aa % around)); };
      c.mesh.triangles.push_back({v(r, a), v(r, a + 1), v(r + 1, a + 1)});
      c.mesh.triangles.push_back({v(r, a), v(r + 1, a + 1), v(r + 1, a)});
    }
  }
  c.mesh.primitives.push_back({"tube", 0, 0, 0, static_cast<std::uint32_t>(c.mesh.positions.size()), 0,
                               static_cast<std::uint32_t>(c.mesh.triangles.size()), -1});
  test::add_rotation(c, 1, Vec3f(0, 0, 1), 4.0f, [](double t) { return 0.6 * std::sin(3 * t); });
  test::add_rotation(c, joints / 2, Vec3f(1, 0, 0), 4.0f, [](double t) { return 0.5 * std::sin(2 * t + 1); });
  return c;
}

struct Scene {
  Character character;
  std::size_t clip = 0;
};

const Scene& clonk() {
  static const Scene scene = [] {
    Scene s{load_character(WOBBLE_BUNDLED_ASSETS "/clonk.glb")};
    s.clip = s.character.require_clip("Walk");
    return s;
  }();
  return scene;
}

const Scene& million() {
  static const Scene scene{tube(1000, 1000, 8)};
  return scene;
}

render::HeadlessContext& context() {
  static render::HeadlessContext gl;
  return gl;
}

// One frame per iteration at 60 fps of animation time, looping over the clip.
void run(benchmark::State& state, const Scene& scene, bool gpu) {
  context();
  const Character& c = scene.character;
  const Clip& clip = c.clips[scene.clip];
  ThreadPool pool;
  DeformerStack stack = DeformerStack::parse("lbs,dynamic");
  stack.bind(c);
  const DynamicSkinningParameters parameters;
  DynamicSkinningState dynamic;
  dynamic.initialize(c, parameters);
  render::Renderer renderer;
  renderer.set_mesh(c.mesh);
  if (gpu) renderer.set_skin(c.skin, c.rig.joint_count(), &dynamic);
  render::OffscreenTarget target(kWidth, kHeight);
  render::OrbitCamera camera;
  camera.frame(c.mesh.bounds(), static_cast<float>(kWidth) / kHeight);
  Pose pose;
  std::vector<Vec3f> positions, normals;
  const PoseSampler pose_at = clip_sampler(c.rig, clip);
  const double duration = std::max(1e-3f, clip.duration());
  std::size_t frame = 0;
  for (auto _ : state) {
    const double t = clip.start() + std::fmod(static_cast<double>(frame++) / 60.0, duration);
    const auto begin = std::chrono::steady_clock::now();
    evaluate_pose(c.rig, &clip, static_cast<float>(t), pose);
    if (gpu) {
      dynamic.advance(parameters, pose, t, pose_at);
      renderer.set_pose(pose, &dynamic);
    } else {
      stack.evaluate(FrameInput{c, pose, t, pose_at, &pool}, positions, normals);
      renderer.set_positions(positions, normals);
    }
    target.bind();
    renderer.draw(camera, kWidth, kHeight);
    glFinish();
    state.SetIterationTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count());
  }
  state.counters["vertices"] = static_cast<double>(c.mesh.vertex_count());
}

void BM_RenderClonkCpu(benchmark::State& state) { run(state, clonk(), false); }
void BM_RenderClonkGpu(benchmark::State& state) { run(state, clonk(), true); }
void BM_RenderMillionCpu(benchmark::State& state) { run(state, million(), false); }
void BM_RenderMillionGpu(benchmark::State& state) { run(state, million(), true); }

}  // namespace

BENCHMARK(BM_RenderClonkCpu)->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_RenderClonkGpu)->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_RenderMillionCpu)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(8);
BENCHMARK(BM_RenderMillionGpu)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(8);

BENCHMARK_MAIN();
