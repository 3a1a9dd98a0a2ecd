// wobble as an embedded runtime, in one binary and run (scripts/bench.sh build runtime; ratios by
// bench/report_runtime.py), on clonk's Walk and on the synthetic 1,000,000-vertex character, one
// thread:
//   BM_FrameCpp/SCENE         one frame of `lbs,dynamic` (positions and normals) through the C++ API
//                             (DeformerStack, the clip's poses, computed beforehand);
//   BM_FrameC/SCENE/LOCALS    the same through the C API (wobble_stack_evaluate) from the same
//                             poses' joint world matrices, and with LOCALS = 1 their local
//                             transforms too (else the C API recovers them); both sides bind the
//                             character the C API makes from the arrays;
//   BM_Kernel*/SCENE/ISA      each SIMD kernel family with the best instruction set (avx2 here)
//                             and with its scalar reference (Isa::scalar);
//   BM_KernelLbsBefore/SCENE  the LBS kernel from before the SIMD layer (lbs_before_simd_layer.hpp),
//                             the baseline BM_KernelLbs/SCENE/0 must not be slower than;
//   BM_BindMemory/STACK       the heap a bound stack keeps per vertex (clonk).
// Frames advance 1/60 s at a time through 60 precomputed poses of the clip.
#include <malloc.h>

#include <cmath>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include <wobble/deformer.hpp>
#include <wobble/delta_mush.hpp>
#include <wobble/direct_delta_mush.hpp>
#include <wobble/dynamic_skinning.hpp>
#include <wobble/io/files.hpp>
#include <wobble/lbs.hpp>
#include <wobble/pose.hpp>
#include <wobble/wobble.h>

#include "c_api_scene.hpp"
#include "capi/arrays.hpp"
#include "lbs_before_simd_layer.hpp"
#include "isa_scope.hpp"
#include "simd/isa.hpp"
#include "synthetic_character.hpp"

using namespace wobble;

namespace {

constexpr int kPoses = bench::kScenePoses;
using bench::Scene;

Scene& scene(int which) {
  static Scene clonk(load_character(std::string(WOBBLE_BUNDLED_ASSETS) + "/clonk.glb"), "Walk");
  if (which == 0) return clonk;
  static Scene million(bench::synthetic_character(1'000'000), "swing");
  return million;
}
const char* scene_name(int which) { return which == 0 ? "clonk_walk" : "million"; }

void per_frame_counters(benchmark::State& state, const Scene& s) {
  state.counters["vertices"] = static_cast<double>(s.character.mesh.vertex_count());
  state.SetLabel(std::string(scene_name(static_cast<int>(state.range(0)))) + " " +
                 std::string(simd::isa_name(simd::active_isa())));
}

void BM_FrameCpp(benchmark::State& state) {
  const Scene& s = scene(static_cast<int>(state.range(0)));
  const Character character = capi::character_from_arrays(s.arrays());  // what the C API binds
  DeformerStack stack = DeformerStack::parse("lbs,dynamic");
  stack.bind(character);
  std::vector<Vec3f> positions(character.mesh.vertex_count()), normals(positions.size());
  std::size_t frame = 0;
  for (auto _ : state) {
    const Pose& pose = s.poses[frame % kPoses];
    stack.evaluate(FrameInput{character, pose, static_cast<double>(frame++) / 60.0, {}, nullptr},
                   std::span<Vec3f>(positions), std::span<Vec3f>(normals));
    benchmark::DoNotOptimize(positions.data());
  }
  per_frame_counters(state, s);
}

void BM_FrameC(benchmark::State& state) {
  const Scene& s = scene(static_cast<int>(state.range(0)));
  const wobble_skinned_mesh mesh = s.arrays();
  wobble_character* character = nullptr;
  wobble_stack* stack = nullptr;
  if (wobble_character_create(&mesh, &character) != WOBBLE_OK ||
      wobble_stack_create(character, "lbs,dynamic", nullptr, 1, &stack) != WOBBLE_OK) {
    state.SkipWithError(wobble_last_error());
    return;
  }
  std::vector<float> positions(s.positions.size()), normals(s.positions.size());
  std::size_t frame = 0;
  for (auto _ : state) {
    const wobble_frame input{static_cast<double>(frame) / 60.0, s.worlds[frame % kPoses].data(),
                             static_cast<std::uint32_t>(s.parents.size()),
                             state.range(1) ? s.locals[frame % kPoses].data() : nullptr};
    ++frame;
    if (wobble_stack_evaluate(stack, &input, positions.data(), 0, normals.data(), 0) != WOBBLE_OK) {
      state.SkipWithError(wobble_last_error());
      break;
    }
    benchmark::DoNotOptimize(positions.data());
  }
  wobble_stack_destroy(stack);
  wobble_character_destroy(character);
  per_frame_counters(state, s);
}

// Arguments: scene, then 0 = the best instruction set, 1 = the scalar reference.
IsaScope isa_scope(benchmark::State& state) {
  return IsaScope(state, state.range(1) != 0, std::string(scene_name(static_cast<int>(state.range(0)))) + " ");
}

void BM_KernelLbs(benchmark::State& state) {
  const Scene& s = scene(static_cast<int>(state.range(0)));
  const IsaScope isa = isa_scope(state);
  std::vector<Vec3f> positions(s.character.mesh.vertex_count()), normals(positions.size());
  const LbsJob job{
      s.poses[7].skinning, &s.skin, s.character.mesh.positions, s.character.mesh.normals, positions, normals, false};
  for (auto _ : state) {
    job.run();
    benchmark::DoNotOptimize(positions.data());
  }
}

void BM_KernelLbsBefore(benchmark::State& state) {
  const Scene& s = scene(static_cast<int>(state.range(0)));
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) {
    state.SkipWithError("the kernel from before the SIMD layer needs AVX2 and FMA");
    return;
  }
  std::vector<Vec3f> positions(s.character.mesh.vertex_count()), normals(positions.size());
  std::vector<Vec3f> today(positions.size()), today_normals(positions.size());
  const LbsJob job{
      s.poses[7].skinning, &s.skin, s.character.mesh.positions, s.character.mesh.normals, positions, normals, false};
  LbsJob{s.poses[7].skinning, &s.skin, s.character.mesh.positions, s.character.mesh.normals, today,
         today_normals,       false}
      .run();
  bench::lbs_before_simd_layer(job);
  for (std::size_t v = 0; v < positions.size(); ++v) {
    if ((positions[v] - today[v]).norm() > 1e-4f * (1 + today[v].norm())) {
      state.SkipWithError("the kernels from before and after the SIMD layer disagree");
      return;
    }
  }
  for (auto _ : state) {
    bench::lbs_before_simd_layer(job);
    benchmark::DoNotOptimize(positions.data());
  }
  state.SetLabel(std::string(scene_name(static_cast<int>(state.range(0)))) + " avx2 before");
}

void BM_KernelDynamic(benchmark::State& state) {
  const Scene& s = scene(static_cast<int>(state.range(0)));
  const IsaScope isa = isa_scope(state);
  DynamicSkinningParameters parameters;
  DynamicSkinningState dynamic;
  dynamic.initialize(s.character, parameters);
  std::vector<Vec3f> base(s.character.mesh.vertex_count()), positions(base.size());
  LbsJob{s.poses[0].skinning, &s.skin, s.character.mesh.positions, {}, base, {}, false}.run();
  std::size_t frame = 0;
  for (auto _ : state) {
    state.PauseTiming();
    std::copy(base.begin(), base.end(), positions.begin());
    state.ResumeTiming();
    dynamic.apply(parameters, s.poses[frame % kPoses], positions, static_cast<double>(frame) / 60.0);
    ++frame;
    benchmark::DoNotOptimize(positions.data());
  }
}

void BM_KernelDeltaMush(benchmark::State& state) {
  const Scene& s = scene(static_cast<int>(state.range(0)));
  const IsaScope isa = isa_scope(state);
  DeltaMush mush;
  mush.bind(s.character.mesh.positions, s.character.mesh.triangles, DeltaMushSettings{});
  std::vector<Vec3f> base(s.character.mesh.vertex_count()), positions(base.size());
  LbsJob{s.poses[7].skinning, &s.skin, s.character.mesh.positions, {}, base, {}, false}.run();
  for (auto _ : state) {
    state.PauseTiming();
    std::copy(base.begin(), base.end(), positions.begin());
    state.ResumeTiming();
    mush.evaluate(positions);
    benchmark::DoNotOptimize(positions.data());
  }
}

template <DdmVariant kVariant>
void BM_KernelDdm(benchmark::State& state) {
  const Scene& s = scene(static_cast<int>(state.range(0)));
  const IsaScope isa = isa_scope(state);
  DirectDeltaMushSettings settings;
  settings.variant = kVariant;
  DirectDeltaMush ddm;
  ddm.bind(s.character.mesh.positions, s.character.mesh.triangles, s.character.skin, s.character.rig.joint_count(),
           settings);
  std::vector<Vec3f> positions(s.character.mesh.vertex_count());
  for (auto _ : state) {
    ddm.evaluate(s.poses[7].skinning, positions);
    benchmark::DoNotOptimize(positions.data());
  }
}

std::size_t heap_bytes() {
  const struct mallinfo2 info = mallinfo2();
  return info.uordblks + info.hblkhd;
}

// The heap a stack keeps once bound, per vertex of clonk (what an engine pays per character).
void BM_BindMemory(benchmark::State& state, const char* spec) {
  const Scene& s = scene(0);
  std::size_t kept = 0;
  for (auto _ : state) {
    const std::size_t before = heap_bytes();
    auto stack = std::make_unique<DeformerStack>(DeformerStack::parse(spec));
    stack->bind(s.character);
    std::vector<Vec3f> positions, normals;
    stack->evaluate(FrameInput{s.character, s.poses[0], 0.0, {}, nullptr}, positions, normals);  // first-frame buffers
    kept = heap_bytes() - before - (positions.capacity() + normals.capacity()) * sizeof(Vec3f);
    benchmark::DoNotOptimize(stack.get());
  }
  state.counters["bytes_per_vertex"] = static_cast<double>(kept) / static_cast<double>(s.character.mesh.vertex_count());
  state.SetLabel(spec);
}

void scenes_and_isas(benchmark::internal::Benchmark* b) {
  for (int scene : {0, 1}) {
    for (int scalar : {0, 1}) b->Args({scene, scalar});
  }
}

}  // namespace

BENCHMARK(BM_FrameCpp)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_FrameC)->Args({0, 0})->Args({0, 1})->Args({1, 0})->Args({1, 1})->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_KernelLbs)->Apply(scenes_and_isas)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_KernelLbsBefore)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_KernelDynamic)->Apply(scenes_and_isas)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_KernelDeltaMush)->Args({0, 0})->Args({0, 1})->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_KernelDdm<DdmVariant::V0>)->Args({0, 0})->Args({0, 1})->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_KernelDdm<DdmVariant::V3>)->Args({0, 0})->Args({0, 1})->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_BindMemory, lbs, "lbs")->Iterations(1);
BENCHMARK_CAPTURE(BM_BindMemory, dqs, "dqs")->Iterations(1);
BENCHMARK_CAPTURE(BM_BindMemory, dlbs, "dlbs")->Iterations(1);
BENCHMARK_CAPTURE(BM_BindMemory, lbs_dynamic, "lbs,dynamic")->Iterations(1);
BENCHMARK_CAPTURE(BM_BindMemory, lbs_deltamush, "lbs,deltamush")->Iterations(1);
BENCHMARK_CAPTURE(BM_BindMemory, lbs_ddm, "lbs,ddm")->Iterations(1);

BENCHMARK_MAIN();
