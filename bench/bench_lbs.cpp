// LBS throughput on a 1,000,000-vertex mesh (positions and normals, 4 influences, 64 joints):
// wobble's kernel on one thread and on all threads, a straightforward scalar loop, and a streaming
// copy that measures this machine's memory bandwidth, all in one binary so that ratios compare
// like with like. scripts/bench.sh runs it and bench/report_lbs.py prints the ratios.
// Bandwidth convention, for every case: bytes read plus bytes written, so a copy of N bytes counts
// 2N, and a kernel's bound is its bytes read plus written divided by the copy's rate.
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include <benchmark/benchmark.h>

#include <wobble/lbs.hpp>
#include <wobble/parallel.hpp>

#include "memory_copy.hpp"

using namespace wobble;

namespace {

constexpr std::size_t kVertices = 1'000'000;
constexpr std::uint32_t kInfluences = 4;
constexpr std::size_t kJoints = 64;

struct Scene {
  std::vector<Mat4f> matrices;
  PackedSkin skin;
  std::vector<Vec3f> positions, normals, out_positions, out_normals;

  Scene()
      : matrices(kJoints), positions(kVertices), normals(kVertices), out_positions(kVertices), out_normals(kVertices) {
    std::mt19937 random(1);
    std::uniform_real_distribution<float> unit(-1, 1);
    for (Mat4f& m : matrices) {
      m = Mat4f::Identity();
      m.topLeftCorner<3, 3>() =
          Eigen::AngleAxisf(unit(random) * 3, Vec3f(unit(random), unit(random), unit(random)).normalized())
              .toRotationMatrix();
      m.topRightCorner<3, 1>() = Vec3f(unit(random), unit(random), unit(random));
    }
    skin.width = kInfluences;
    skin.joints.resize(kVertices * kInfluences);
    skin.weights.resize(kVertices * kInfluences);
    for (std::size_t v = 0; v < kVertices; ++v) {
      positions[v] = Vec3f(unit(random), unit(random), unit(random));
      normals[v] = Vec3f(unit(random), unit(random), unit(random)).normalized();
      // Neighbouring vertices share nearby joints, as on a real character.
      const std::size_t base = (v * kJoints) / kVertices;
      float sum = 0;
      for (std::uint32_t k = 0; k < kInfluences; ++k) {
        skin.joints[v * kInfluences + k] = static_cast<std::uint16_t>((base + k * 3 + random() % 3) % kJoints);
        skin.weights[v * kInfluences + k] = 0.1f + (unit(random) + 1);
        sum += skin.weights[v * kInfluences + k];
      }
      for (std::uint32_t k = 0; k < kInfluences; ++k) skin.weights[v * kInfluences + k] /= sum;
    }
  }

  LbsJob job() { return LbsJob{matrices, &skin, positions, normals, out_positions, out_normals, false}; }

  // Bytes one LBS pass must move (read plus written): read positions, normals, joints, weights;
  // write positions, normals.
  static double bytes_per_vertex() {
    return 3 * 4 + 3 * 4 + kInfluences * (sizeof(std::uint16_t) + sizeof(float)) + 3 * 4 + 3 * 4;
  }
  static double bytes_per_vertex_positions_only() {
    return 3 * 4 + kInfluences * (sizeof(std::uint16_t) + sizeof(float)) + 3 * 4;
  }
};

Scene& scene() {
  static Scene s;
  return s;
}

void set_counters(benchmark::State& state, std::size_t vertices) {
  state.counters["ns_per_vertex"] =
      benchmark::Counter(static_cast<double>(vertices) * 1e-9,
                         benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * vertices));
}

void BM_LbsPositionsNormals(benchmark::State& state) {
  Scene& s = scene();
  ThreadPool pool(static_cast<std::size_t>(state.range(0)));
  LbsJob job = s.job();
  for (auto _ : state) {
    job.run(&pool);
    benchmark::DoNotOptimize(s.out_positions.data());
    benchmark::ClobberMemory();
  }
  set_counters(state, kVertices);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * kVertices * Scene::bytes_per_vertex()));
}

void BM_LbsPositionsOnly(benchmark::State& state) {
  Scene& s = scene();
  ThreadPool pool(static_cast<std::size_t>(state.range(0)));
  LbsJob job = s.job();
  job.in_normals = {};
  job.out_normals = {};
  for (auto _ : state) {
    job.run(&pool);
    benchmark::DoNotOptimize(s.out_positions.data());
    benchmark::ClobberMemory();
  }
  set_counters(state, kVertices);
  state.SetBytesProcessed(
      static_cast<std::int64_t>(state.iterations() * kVertices * Scene::bytes_per_vertex_positions_only()));
}

// The straightforward loop: blend four 3x4 matrices in scalar code, transform, store.
void BM_LbsScalarLoop(benchmark::State& state) {
  Scene& s = scene();
  const float* palette = s.matrices.data()->data();
  for (auto _ : state) {
    for (std::size_t v = 0; v < kVertices; ++v) {
      float m[12] = {};
      for (std::uint32_t k = 0; k < kInfluences; ++k) {
        const float w = s.skin.weights[v * kInfluences + k];
        const float* src = palette + 16 * s.skin.joints[v * kInfluences + k];
        for (int c = 0; c < 4; ++c) {
          for (int r = 0; r < 3; ++r) m[c * 3 + r] += w * src[c * 4 + r];
        }
      }
      const Vec3f& p = s.positions[v];
      const Vec3f& n = s.normals[v];
      for (int r = 0; r < 3; ++r) {
        s.out_positions[v][r] = m[r] * p.x() + m[3 + r] * p.y() + m[6 + r] * p.z() + m[9 + r];
        s.out_normals[v][r] = m[r] * n.x() + m[3 + r] * n.y() + m[6 + r] * n.z();
      }
    }
    benchmark::DoNotOptimize(s.out_positions.data());
    benchmark::ClobberMemory();
  }
  set_counters(state, kVertices);
}

// Streaming copy of 256 MiB. Bytes processed = bytes read plus bytes written (2 x 256 MiB per
// copy), the same convention as the kernels' bytes, so kernel bytes / this rate is their bound.
void BM_MemoryCopy(benchmark::State& state) { copy_memory(state, std::size_t(256) << 20); }

void thread_counts(benchmark::internal::Benchmark* b) {
  b->Arg(1);
  const auto hardware = std::max(1u, std::thread::hardware_concurrency());
  if (hardware > 1) b->Arg(hardware);
}

}  // namespace

BENCHMARK(BM_MemoryCopy)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_LbsPositionsNormals)->Apply(thread_counts)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_LbsPositionsOnly)->Apply(thread_counts)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_LbsScalarLoop)->Unit(benchmark::kMillisecond)->UseRealTime();

BENCHMARK_MAIN();
