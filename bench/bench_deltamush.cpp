// Delta Mush, Direct Delta Mush and LBS on the same synthetic rig: a tessellated cylinder (about
// 100,000 or 1,000,000 vertices, closed, 3 joints along it, two influences per vertex) bent at
// both joints. Milliseconds per frame, one thread and all threads (range(1) = 0). Delta Mush:
// 10 iterations, step 0.5, uniform smoothing, on top of the LBS frame (its time excludes LBS:
// a copy of the LBS positions is included). DDM: bound once per variant and size (counter
// bind_s: its precomputation time), influences pruned to 4 with min_weight 1e-3 (counter
// pruning_error: the largest distance this adds against the unpruned bind, relative to the
// mesh's bounding-box diagonal; 100,000 vertices only). bench/report_deltamush.py prints ratios.
// Folded Delta Mush (DeltaMush::fold_skin, what `lbs,deltamush` runs): BM_DeltaMush10Folded is
// the deltamush step alone on the LBS frame (counters: smoothed influences per vertex, fold
// time, largest distance to the iterative result relative to the size); BM_LbsDeltaMush10Stack
// and BM_LbsDeltaMush10FoldedStack time the whole stack, LBS included, iterating or folded.
// The roofline of Delta Mush on arbitrary input (bench/report_deltamush.py): its parts measured
// apart, BM_DeltaMush0 (no sweeps: gather, corner frames, scatter) and BM_DeltaMush10SmoothOnly
// (gather, sweeps, scatter), with counters for the bytes each touches per vertex (from the bound
// operator's sizes), against BM_MemoryCopy (bytes read plus written) at about the working set's
// size (L3) and at 256 MiB (memory); BM_SweepFloor, the least any sweep that reads each
// neighbour's float4 row once does (bench/sweep_floor.hpp), on the same operator, as bound and
// all in L1; and BM_Sweeps, the 10 sweeps alone on the plain group layout or the one bind plans
// (pairs and twins: one 32-byte load for two rows, which takes twins below that floor).
#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <numbers>
#include <thread>
#include <vector>

#include <benchmark/benchmark.h>

#include <wobble/delta_mush.hpp>
#include <wobble/direct_delta_mush.hpp>
#include <wobble/lbs.hpp>
#include <wobble/parallel.hpp>

#include "deform/delta_mush_kernels.hpp"
#include "memory_copy.hpp"
#include "sweep_floor.hpp"

using namespace wobble;

namespace {

constexpr float kPi = std::numbers::pi_v<float>;

struct Rig {
  std::vector<Vec3f> positions;
  std::vector<Triangle> triangles;
  Skin skin;
  PackedSkin packed;
  std::vector<Mat4f> matrices;
  std::vector<Vec3f> lbs;
};

Mat4f rotation_about(const Vec3f& axis, float angle, const Vec3f& centre) {
  Mat4f m = Mat4f::Identity();
  const Mat3f r = Eigen::AngleAxisf(angle, axis.normalized()).toRotationMatrix();
  m.topLeftCorner<3, 3>() = r;
  m.topRightCorner<3, 1>() = centre - r * centre;
  return m;
}

Rig make_rig(std::size_t target_vertices) {
  Rig rig;
  const int sides = static_cast<int>(std::sqrt(double(target_vertices) / 4.0));  // length 4 x radius-ish proportions
  const int rings = static_cast<int>(target_vertices / sides);
  const float length = 4.0f;
  for (int r = 0; r < rings; ++r) {
    for (int s = 0; s < sides; ++s) {
      const float a = 2 * kPi * s / sides;
      const float x = length * r / (rings - 1);
      const float radius = 0.5f + 0.02f * std::sin(9.0f * a) * std::sin(31.0f * x);
      rig.positions.emplace_back(x, radius * std::cos(a), radius * std::sin(a));
      // joints at x = 0, 4/3, 8/3: ramps around the two inner ones
      const float u = x / length * 3.0f;
      const int j = std::min(2, static_cast<int>(u));
      const float f = u - j;
      std::vector<Influence> influences;
      if (j < 2 && f > 0.7f) {
        const float w = (f - 0.7f) / 0.6f;
        influences = {{std::uint32_t(j), 1 - w}, {std::uint32_t(j + 1), w}};
      } else if (j > 0 && f < 0.3f) {
        const float w = (0.3f - f) / 0.6f;
        influences = {{std::uint32_t(j), 1 - w}, {std::uint32_t(j - 1), w}};
      } else {
        influences = {{std::uint32_t(j), 1.0f}};
      }
      rig.skin.add_vertex(influences);
    }
  }
  auto at = [&](int r, int s) { return static_cast<std::uint32_t>(r * sides + (s % sides)); };
  for (int r = 0; r + 1 < rings; ++r) {
    for (int s = 0; s < sides; ++s) {
      rig.triangles.push_back({at(r, s), at(r + 1, s + 1), at(r + 1, s)});
      rig.triangles.push_back({at(r, s), at(r, s + 1), at(r + 1, s + 1)});
    }
  }
  rig.packed = PackedSkin::from(rig.skin, 2);
  const Mat4f bend1 = rotation_about(Vec3f::UnitZ(), 0.8f, Vec3f(length / 3, 0, 0));
  const Mat4f bend2 = bend1 * rotation_about(Vec3f(0.3f, 0, 1), 0.9f, Vec3f(2 * length / 3, 0, 0));
  rig.matrices = {Mat4f::Identity(), bend1, bend2};
  rig.lbs.resize(rig.positions.size());
  LbsJob job{rig.matrices, &rig.packed, rig.positions, {}, rig.lbs, {}, false};
  job.run();
  return rig;
}

Rig& rig(std::size_t vertices) {
  static Rig small = make_rig(100'000);
  if (vertices <= 100'000) return small;
  static Rig large = make_rig(1'000'000);
  return large;
}

std::size_t threads_of(benchmark::State& state) {
  return state.range(1) == 0 ? std::max(1u, std::thread::hardware_concurrency()) : std::size_t(state.range(1));
}

// The largest distance between two results, as a share of the rest mesh's size (box diagonal).
double largest_distance(const std::vector<Vec3f>& a, const std::vector<Vec3f>& b, const std::vector<Vec3f>& rest) {
  Eigen::AlignedBox3f box;
  for (const Vec3f& p : rest) box.extend(p);
  double worst = 0;
  for (std::size_t v = 0; v < a.size(); ++v) worst = std::max<double>(worst, (a[v] - b[v]).norm());
  return worst / box.diagonal().norm();
}

void counters(benchmark::State& state, const Rig& r) {
  state.counters["vertices"] = static_cast<double>(r.positions.size());
  state.counters["threads"] = static_cast<double>(threads_of(state));
}

void BM_Lbs(benchmark::State& state) {
  Rig& r = rig(state.range(0));
  ThreadPool pool(threads_of(state));
  std::vector<Vec3f> out(r.positions.size());
  LbsJob job{r.matrices, &r.packed, r.positions, {}, out, {}, false};
  for (auto _ : state) {
    job.run(&pool);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  counters(state, r);
}

// The sweep rows bind makes from the operator's rows (the same functions; uniform rows: the
// operator's row weight is the uniform weight), laid out as bind does (plan_layout) or not.
mush::SweepRows sweep_rows(const DeltaMushOperator& op, bool uniform, bool pair) {
  const std::size_t n = op.welded_count();
  std::vector<float> row_uniform(n, 0.0f);
  for (std::size_t i = 0; i < n; ++i) {
    if (op.row_offsets[i + 1] > op.row_offsets[i]) row_uniform[i] = op.row_weights[op.row_offsets[i]];
  }
  mush::SweepRows rows =
      mush::SweepRows::from_csr(op.row_offsets, op.row_columns, uniform ? std::span<const float>() : op.row_weights,
                                op.self_weights, row_uniform, static_cast<std::uint32_t>(mush::padded_rows(n)));
  if (pair) mush::plan_layout(rows, op.iterations);
  return rows;
}

// Entries per vertex (row loads per sweep) of a layout.
double entries_per_vertex(const mush::SweepRows& rows) {
  return double(rows.row_loads()) / double(rows.vertex_count());
}

// The share of vertices in twins (one load of their own rows, weights and one store per two).
double twinned_share(const mush::SweepRows& rows) {
  std::size_t twinned = 0;
  for (std::size_t g = 0; g < rows.widths.size(); ++g) twinned += rows.twinned(g) ? mush::kLanes : 0;
  return double(twinned) / double(rows.vertex_count());
}

// What one frame of Delta Mush on arbitrary input touches, per original vertex (identity weld:
// the cylinder has no seams), from the bound operator:
//   bytes_per_vertex  every array once, read plus written (the copy's convention): the LBS input
//                     copied in (12 + 12), gathered into float4 rows (12 + 16), scattered back
//                     (16 + 12 + 12 + the weld map 4); sweeps: rows in and out once (16 + 16: the
//                     sweeps stay in cache, swept as a wavefront from 50,000 vertices), the
//                     self and uniform weights (8), the columns (4 per entry: a neighbour, or
//                     two side by side in a uniform layout's pairs) and weights (4 per neighbour
//                     unless uniform); corners: rows in and out (16 + 16), the chained point and
//                     the delta (16 per corner)
//   loads_per_vertex  load instructions of the kernels (src/deform/delta_mush_kernels.cpp), the
//                     port bound on cache-resident data: per sweep one row load and half an index
//                     (two per 8-byte load) per entry, a weight per neighbour unless uniform, the
//                     vertex's own row, its self and uniform weights (one load where paired,
//                     and both for two vertices in twins);
//                     per corner one index and one row (corners chained around their fan share
//                     their points), a 3/8 share of the deltas' 8-lane loads; per vertex its own
//                     row and its chain's first point
//   entries           per vertex and sweep: the row loads by index (a pair counts once, a twin's
//                     shared entry half for each), as bind lays them out
//                     (src/deform/delta_mush_kernels.hpp: SweepRows)
//   flops_per_vertex  per sweep (neighbours + 1) multiply-adds on 3 coordinates; per corner
//                     about 60 operations (two cross products, two inverse lengths, the blend)
void roofline_counters(benchmark::State& state, const DeltaMush& mush, bool sweeps, bool restore) {
  const DeltaMushOperator op = mush.plain_operator();
  const double n = static_cast<double>(op.welded_count());
  const double neighbours = static_cast<double>(op.row_columns.size()) / n;
  const double corners = static_cast<double>(op.corner_next.size()) / n;
  const double iterations = sweeps ? op.iterations : 0;
  const bool uniform = mush.settings().smoothing == MushSmoothing::Uniform;
  const mush::SweepRows rows = sweep_rows(op, uniform, true);
  const double entries = entries_per_vertex(rows);
  const double weight_bytes = uniform ? 0 : 4, weight_loads = uniform ? 0 : 1;
  const double own_loads = !uniform || !rows.pairs.empty() ? 2 : 3;  // own row, weights
  const double vertex_loads = twinned_share(rows) * 1 + (1 - twinned_share(rows)) * own_loads;
  state.counters["neighbours"] = neighbours;
  state.counters["entries"] = entries;
  state.counters["corners"] = corners;
  state.counters["bytes_per_vertex"] = 24 + 28 + 44 +
                                       (iterations > 0 ? 40 + 4 * entries + weight_bytes * neighbours : 0) +
                                       (restore ? 32 + 16 * corners : 0);
  state.counters["loads_per_vertex"] = iterations * (1.5 * entries + weight_loads * neighbours + vertex_loads) +
                                       (restore ? (2 + 3.0 / 8) * corners + 3 : 0);
  state.counters["flops_per_vertex"] = iterations * 6 * (neighbours + 1) + (restore ? 60 * corners : 0);
}

// Binds a Delta Mush with `settings` to the rig and times it on the rig's LBS positions.
DeltaMush time_delta_mush(benchmark::State& state, const Rig& r, const DeltaMushSettings& settings) {
  ThreadPool pool(threads_of(state));
  DeltaMush mush;
  mush.bind(r.positions, r.triangles, settings);
  std::vector<Vec3f> positions(r.positions.size());
  for (auto _ : state) {
    std::copy(r.lbs.begin(), r.lbs.end(), positions.begin());
    mush.evaluate(positions, &pool);
    benchmark::DoNotOptimize(positions.data());
    benchmark::ClobberMemory();
  }
  counters(state, r);
  return mush;
}

template <int kIterations, bool kSmoothOnly>
void BM_DeltaMushPart(benchmark::State& state) {
  Rig& r = rig(state.range(0));
  DeltaMushSettings settings;
  settings.iterations = kIterations;
  settings.step = 0.5f;
  settings.smooth_only = kSmoothOnly;
  const DeltaMush mush = time_delta_mush(state, r, settings);
  roofline_counters(state, mush, kIterations > 0, !kSmoothOnly);
}

// Streaming copy of range(0) MiB; bytes processed = read plus written.
void BM_MemoryCopy(benchmark::State& state) { copy_memory(state, std::size_t(state.range(0)) << 20); }

// The core's clock while it runs (the context's MHz is the nominal one, not the boost clock):
// a chain of dependent integer additions, one per cycle. Counter ghz.
void BM_CoreClock(benchmark::State& state) {
#if defined(__x86_64__)
  constexpr long kAdds = 4'000'000;
  double seconds = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    long x = 0;
    for (long i = 0; i < kAdds / 4; ++i) asm volatile("add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0" : "+r"(x));
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  state.counters["ghz"] = double(kAdds) * double(state.iterations()) / seconds / 1e9;
#else
  state.SkipWithError("x86-64 only");
#endif
}

constexpr int kSweeps = 10;

// The operator BM_DeltaMush10SmoothOnly binds (10 sweeps, step 0.5, uniform).
DeltaMushOperator ten_sweeps_operator(const Rig& r) {
  DeltaMushSettings settings;
  settings.iterations = kSweeps;
  settings.step = 0.5f;
  DeltaMush mush;
  mush.bind(r.positions, r.triangles, settings);
  return mush.plain_operator();
}

// The sweeps' floor (bench/sweep_floor.hpp) on that operator: 10 sweeps a frame, one thread;
// range(1) = 1 folds every index into the first 64 rows.
void BM_SweepFloor(benchmark::State& state) {
  Rig& r = rig(state.range(0));
  const DeltaMushOperator op = ten_sweeps_operator(r);
  const bench::FloorRows rows = bench::floor_rows(op.row_offsets, op.row_columns, state.range(1) == 1);
  std::vector<float> a(4 * (rows.vertices + 1), 0.0f), b = a;
  for (std::size_t i = 0; i < rows.vertices; ++i) std::copy_n(r.lbs[i].data(), 3, a.data() + 4 * i);
  if (!bench::floor_sweeps(rows, a.data(), b.data(), 1)) {
    state.SkipWithError("no floor kernel for this processor or row width");
    return;
  }
  for (auto _ : state) {
    bench::floor_sweeps(rows, a.data(), b.data(), kSweeps);
    benchmark::DoNotOptimize(b.data());
    benchmark::ClobberMemory();
  }
  state.counters["vertices"] = static_cast<double>(rows.vertices);
  state.counters["width"] = static_cast<double>(rows.width);
}

// The 10 sweeps alone (mush::sweep between two float4 buffers, one thread), range(1) = 1: on the
// layout bind plans (plan_layout: pairs and twins), 0: the plain group layout, in the same
// process: what the planning gives.
void BM_Sweeps(benchmark::State& state) {
  Rig& r = rig(state.range(0));
  const mush::SweepRows rows = sweep_rows(ten_sweeps_operator(r), true, state.range(1) == 1);
  std::vector<float> a(4 * (rows.zero_row + mush::kLanes), 0.0f), b = a;
  for (std::size_t i = 0; i < rows.vertex_count(); ++i) std::copy_n(r.lbs[i].data(), 3, a.data() + 4 * i);
  const bool wavefront = state.range(2) == 1;
  if (wavefront && rows.chunk == 0) return state.SkipWithError("no wavefront for this mesh");
  for (auto _ : state) {
    if (wavefront) {
      mush::smooth_wavefront(rows, a.data(), b.data(), kSweeps);
    } else {
      for (int k = 0; k < kSweeps; ++k) {
        mush::sweep(rows, k % 2 ? b.data() : a.data(), k % 2 ? a.data() : b.data(), 0, rows.vertex_count());
      }
    }
    benchmark::DoNotOptimize(a.data());
    benchmark::ClobberMemory();
  }
  state.counters["vertices"] = static_cast<double>(rows.vertex_count());
  state.counters["entries"] = entries_per_vertex(rows);
}

struct FoldedMush {
  DeltaMush mush;
  double fold_seconds = 0, error = 0;
};

// Binds and folds once per size; measures the fold against the iterative path on the LBS frame.
FoldedMush& folded_mush(std::size_t vertices) {
  static std::map<std::size_t, std::unique_ptr<FoldedMush>> cache;
  auto& slot = cache[vertices];
  if (slot) return *slot;
  slot = std::make_unique<FoldedMush>();
  Rig& r = rig(vertices);
  DeltaMushSettings settings;
  settings.iterations = 10;
  settings.step = 0.5f;
  slot->mush.bind(r.positions, r.triangles, settings);
  const auto start = std::chrono::steady_clock::now();
  slot->mush.fold_skin(r.positions, r.packed, r.matrices.size());
  slot->fold_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::vector<Vec3f> folded = r.lbs, iterated = r.lbs;
  slot->mush.evaluate_skinned(r.matrices, folded);
  slot->mush.evaluate(iterated);
  slot->error = largest_distance(folded, iterated, r.positions);
  return *slot;
}

void folded_counters(benchmark::State& state, FoldedMush& folded) {
  state.counters["influences"] = static_cast<double>(folded.mush.folded_width());
  state.counters["mean_influences"] = folded.mush.folded_mean_width();
  state.counters["fold_s"] = folded.fold_seconds;
  state.counters["fold_error"] = folded.error;
}

void BM_DeltaMush10Folded(benchmark::State& state) {
  Rig& r = rig(state.range(0));
  ThreadPool pool(threads_of(state));
  FoldedMush& folded = folded_mush(state.range(0));
  std::vector<Vec3f> positions(r.positions.size());
  for (auto _ : state) {
    std::copy(r.lbs.begin(), r.lbs.end(), positions.begin());
    folded.mush.evaluate_skinned(r.matrices, positions, &pool);
    benchmark::DoNotOptimize(positions.data());
    benchmark::ClobberMemory();
  }
  counters(state, r);
  folded_counters(state, folded);
}

template <bool kFolded>
void BM_LbsDeltaMush10Stack(benchmark::State& state) {
  Rig& r = rig(state.range(0));
  ThreadPool pool(threads_of(state));
  FoldedMush& folded = folded_mush(state.range(0));
  std::vector<Vec3f> positions(r.positions.size());
  LbsJob job{r.matrices, &r.packed, r.positions, {}, positions, {}, false};
  for (auto _ : state) {
    job.run(&pool);
    if (kFolded) {
      folded.mush.evaluate_skinned(r.matrices, positions, &pool);
    } else {
      folded.mush.evaluate(positions, &pool);
    }
    benchmark::DoNotOptimize(positions.data());
    benchmark::ClobberMemory();
  }
  counters(state, r);
  if (kFolded) folded_counters(state, folded);
}

void BM_DeltaMush10Blender(benchmark::State& state) {
  DeltaMushSettings settings;
  settings.iterations = 10;
  settings.mode = MushMode::Blender;
  time_delta_mush(state, rig(state.range(0)), settings);
}

struct BoundDdm {
  DirectDeltaMush ddm;
  double bind_seconds = 0;
  double pruning_error = -1;  // not measured
};

// Binds once per (variant, size): the precomputation is the slow part at 1,000,000 vertices.
BoundDdm& bound_ddm(DdmVariant variant, std::size_t vertices) {
  static std::map<std::pair<int, std::size_t>, std::unique_ptr<BoundDdm>> cache;
  auto& slot = cache[{int(variant), vertices}];
  if (slot) return *slot;
  slot = std::make_unique<BoundDdm>();
  Rig& r = rig(vertices);
  DirectDeltaMushSettings settings;
  settings.variant = variant;
  settings.max_influences = 4;
  settings.min_weight = 1e-3;
  const auto start = std::chrono::steady_clock::now();
  slot->ddm.bind(r.positions, r.triangles, r.skin, r.matrices.size(), settings);
  slot->bind_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (vertices <= 100'000) {
    DirectDeltaMushSettings unpruned = settings;
    unpruned.max_influences = 64;
    unpruned.min_weight = 0;
    DirectDeltaMush reference;
    reference.bind(r.positions, r.triangles, r.skin, r.matrices.size(), unpruned);
    std::vector<Vec3f> a(r.positions.size()), b(r.positions.size());
    slot->ddm.evaluate(r.matrices, a);
    reference.evaluate(r.matrices, b);
    slot->pruning_error = largest_distance(a, b, r.positions);
  }
  return *slot;
}

template <DdmVariant kVariant>
void BM_Ddm(benchmark::State& state) {
  Rig& r = rig(state.range(0));
  ThreadPool pool(threads_of(state));
  BoundDdm& bound = bound_ddm(kVariant, state.range(0));
  const DirectDeltaMush& ddm = bound.ddm;
  std::vector<Vec3f> positions(r.positions.size());
  for (auto _ : state) {
    ddm.evaluate(r.matrices, positions, &pool);
    benchmark::DoNotOptimize(positions.data());
    benchmark::ClobberMemory();
  }
  counters(state, r);
  state.counters["influences"] = static_cast<double>(ddm.width());
  state.counters["bind_s"] = bound.bind_seconds;
  if (bound.pruning_error >= 0) state.counters["pruning_error"] = bound.pruning_error;
}

void sizes(benchmark::internal::Benchmark* b) {
  for (long vertices : {100'000L, 1'000'000L}) {
    for (long threads : {1L, 0L}) b->Args({vertices, threads});
  }
  b->ArgNames({"vertices", "threads"})->Unit(benchmark::kMillisecond)->UseRealTime();
}

}  // namespace

BENCHMARK(BM_Lbs)->Apply(sizes);
BENCHMARK(BM_DeltaMushPart<10, false>)->Name("BM_DeltaMush10")->Apply(sizes);
BENCHMARK(BM_DeltaMushPart<0, false>)->Name("BM_DeltaMush0")->Apply(sizes);
BENCHMARK(BM_DeltaMushPart<10, true>)->Name("BM_DeltaMush10SmoothOnly")->Apply(sizes);
BENCHMARK(BM_MemoryCopy)->ArgName("MiB")->Arg(16)->Arg(256)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_CoreClock)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_SweepFloor)
    ->ArgNames({"vertices", "l1"})
    ->Args({100'000, 0})
    ->Args({100'000, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_Sweeps)
    ->ArgNames({"vertices", "planned", "wavefront"})
    ->Args({100'000, 0, 0})
    ->Args({100'000, 1, 0})
    ->Args({100'000, 1, 1})
    ->Args({1'000'000, 1, 0})
    ->Args({1'000'000, 1, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_DeltaMush10Folded)->Apply(sizes);
BENCHMARK(BM_LbsDeltaMush10Stack<false>)->Name("BM_LbsDeltaMush10Stack")->Apply(sizes);
BENCHMARK(BM_LbsDeltaMush10Stack<true>)->Name("BM_LbsDeltaMush10FoldedStack")->Apply(sizes);
BENCHMARK(BM_DeltaMush10Blender)->Apply(sizes);
BENCHMARK(BM_Ddm<DdmVariant::V0>)->Apply(sizes);
BENCHMARK(BM_Ddm<DdmVariant::V1>)->Apply(sizes);
BENCHMARK(BM_Ddm<DdmVariant::V2>)->Apply(sizes);
BENCHMARK(BM_Ddm<DdmVariant::V3>)->Apply(sizes);

BENCHMARK_MAIN();
