// Reduced-order physics (PhysSkin++ runtime): milliseconds per time step against handles and
// sample points (Neo-Hookean, one thread), full-resolution vertex update rate, and a full-space
// implicit FEM step (Newton on every node of a tetrahedral mesh of the same shape and material)
// for the speed-up ratio (bench/report_physics.py prints it).
#include <cmath>
#include <map>
#include <memory>

#include <benchmark/benchmark.h>

#include <Eigen/Sparse>
#include <Eigen/SparseCholesky>

#include <wobble/io/files.hpp>
#include <wobble/physics/dynamics.hpp>
#include <wobble/physics/eigenmodes.hpp>
#include <wobble/physics/linear_fem.hpp>
#include <wobble/physics/tet_mesh.hpp>
#include <wobble/fields/sampling.hpp>

using namespace wobble;
using namespace wobble::physics;
using namespace wobble::fields;

namespace {

const char* kShape = "elephant.off";
const char* kPin = "y>0.5";
const physics::Material kMaterial{1e5, 0.45, 1000};
constexpr double kTimeStep = 1.0 / 60.0;

struct Prepared {
  Character character;
  SamplePoints all_samples;
  std::vector<Vec3d> vertices;  // normalised
};

const Prepared& prepared() {
  static const Prepared p = [] {
    Prepared p;
    p.character = read_off(std::string(WOBBLE_SHARED_ASSETS) + "/shapes/" + kShape);
    SampleOptions options;
    options.grid_resolution = 24;
    p.all_samples = sample_mesh(p.character.mesh, options);
    for (const auto& v : p.character.mesh.positions)
      p.vertices.push_back(p.all_samples.normalization.to_normalized(v.cast<double>()));
    return p;
  }();
  return p;
}

std::shared_ptr<GridField> field_for(int handles) {
  static std::map<int, std::shared_ptr<GridField>> cache;
  auto& f = cache[handles];
  if (!f) {
    std::vector<Vec3d> cover = prepared().all_samples.points;
    cover.insert(cover.end(), prepared().vertices.begin(), prepared().vertices.end());
    EigenmodeOptions options;
    options.handles = handles;
    f = skinning_eigenmodes(cover, options);
  }
  return f;
}

std::unique_ptr<World> make_world(int handles, std::size_t points) {
  auto world = std::make_unique<World>();
  world->solver.time_step = kTimeStep;
  BodyDescription d;
  d.name = kShape;
  d.samples = subsample(prepared().all_samples, points);
  d.field = field_for(handles);
  d.material = kMaterial;
  d.model = EnergyModel::NeoHookean;
  const Predicate pin = parse_predicate(kPin);
  std::vector<Vec3d> anchors;
  for (const Vec3d& p : d.samples.points)
    if (pin(p)) anchors.push_back(p);
  d.pins = DirichletRegion(pin, anchors, 0.2);
  world->add_body(std::move(d));
  return world;
}

void BM_ReducedStep(benchmark::State& state) {
  const int handles = static_cast<int>(state.range(0));
  const auto points = static_cast<std::size_t>(state.range(1));
  auto world = make_world(handles, points);
  for (int i = 0; i < 10; ++i) world->step();  // past the first, easy steps
  long iterations = 0, steps = 0, refreshes = 0, cg = 0;
  for (auto _ : state) {
    const StepStats stats = world->step();
    iterations += stats.iterations;
    refreshes += stats.hessian_refreshes;
    cg += stats.cg_iterations;
    ++steps;
  }
  const double per_step = 1.0 / static_cast<double>(std::max<long>(steps, 1));
  state.counters["newton_per_step"] = static_cast<double>(iterations) * per_step;
  state.counters["hessians_per_step"] = static_cast<double>(refreshes) * per_step;
  state.counters["cg_per_step"] = static_cast<double>(cg) * per_step;
  state.counters["steps_per_s"] = benchmark::Counter(static_cast<double>(steps), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_ReducedStep)
    ->ArgsProduct({{8, 16, 32, 64}, {500, 1000, 2000}})
    ->ArgNames({"handles", "points"})
    ->Unit(benchmark::kMillisecond)
    ->MinTime(1.0);

// Full-resolution update: every mesh vertex from z (the binding of III-F).
void BM_VertexUpdate(benchmark::State& state) {
  auto world = make_world(16, 1000);
  for (int i = 0; i < 20; ++i) world->step();
  const Body& body = world->body(0);
  const PointBasis basis = body.basis_at(prepared().vertices, false);
  for (auto _ : state) {
    auto x = body.bound_positions(basis, prepared().vertices);
    benchmark::DoNotOptimize(x.data());
  }
  state.counters["vertices_per_s"] = benchmark::Counter(
      static_cast<double>(state.iterations() * prepared().vertices.size()), benchmark::Counter::kIsRate);
  state.counters["vertices"] = static_cast<double>(prepared().vertices.size());
}
BENCHMARK(BM_VertexUpdate)->Unit(benchmark::kMillisecond);

// --- Full-space baseline: implicit Euler, Newton on every node of a tetrahedral mesh ---------
// The tet mesh: the voxel cells (same grid spacing as the sampling grid) whose centre is inside,
// each split into 6 tetrahedra (physics::voxel_tet_mesh); Neo-Hookean, lumped mass, gravity, the
// same pin, same time step.
TetMesh voxel_tets(int resolution) {
  return voxel_tet_mesh(prepared().character.mesh, prepared().all_samples.normalization, resolution);
}

class FullSpaceFem {
 public:
  explicit FullSpaceFem(TetMesh mesh) : mesh_(std::move(mesh)) {
    const std::size_t n = mesh_.nodes.size();
    mass_.setZero(static_cast<Eigen::Index>(n));
    for (const auto& t : mesh_.tets) {
      Mat3d Dm;
      for (int c = 0; c < 3; ++c) Dm.col(c) = mesh_.nodes[t[c + 1]] - mesh_.nodes[t[0]];
      const double volume = std::abs(Dm.determinant()) / 6.0;
      Dm_inv_.push_back(Dm.inverse());
      volume_.push_back(volume);
      for (int a = 0; a < 4; ++a) mass_[t[a]] += kMaterial.density * volume / 4.0;
    }
    const Predicate pin = parse_predicate(kPin);
    free_.assign(n, true);
    for (std::size_t i = 0; i < n; ++i) free_[i] = !pin(mesh_.nodes[i]);
    x_.resize(static_cast<Eigen::Index>(3 * n));
    for (std::size_t i = 0; i < n; ++i) x_.segment<3>(static_cast<Eigen::Index>(3 * i)) = mesh_.nodes[i];
    x_prev_ = x_;
  }
  std::size_t nodes() const { return mesh_.nodes.size(); }
  std::size_t tets() const { return mesh_.tets.size(); }

  int step() {
    const double h = kTimeStep, mu = kMaterial.mu(), lambda = kMaterial.lambda();
    const Eigen::Index N = x_.size();
    const Eigen::VectorXd predicted = 2.0 * x_ - x_prev_;
    Eigen::VectorXd x = predicted;
    for (std::size_t i = 0; i < nodes(); ++i)
      if (!free_[i]) x.segment<3>(static_cast<Eigen::Index>(3 * i)) = x_.segment<3>(static_cast<Eigen::Index>(3 * i));
    int iterations = 0;
    for (; iterations < 20; ++iterations) {
      Eigen::VectorXd g = Eigen::VectorXd::Zero(N);
      std::vector<Eigen::Triplet<double>> triplets;
      triplets.reserve(mesh_.tets.size() * 144 + static_cast<std::size_t>(N));
      for (Eigen::Index i = 0; i < N; ++i) {
        const double m = mass_[i / 3];
        g[i] += m * (x[i] - predicted[i]) / (h * h) + (i % 3 == 1 ? m * 9.81 : 0.0);
        triplets.emplace_back(i, i, m / (h * h));
      }
      for (std::size_t e = 0; e < mesh_.tets.size(); ++e) {
        const auto& t = mesh_.tets[e];
        Mat3d Ds;
        for (int c = 0; c < 3; ++c) Ds.col(c) = x.segment<3>(3 * t[c + 1]) - x.segment<3>(3 * t[0]);
        const Mat3d F = Ds * Dm_inv_[e];
        Mat3d P;
        Mat9d H;
        energy_derivatives(EnergyModel::NeoHookean, mu, lambda, F, P, &H);
        const Eigen::Matrix<double, 9, 12> dF = tet_deformation_jacobian(Dm_inv_[e]);
        Eigen::Matrix<double, 9, 1> p;
        for (int i = 0; i < 9; ++i) p[i] = P(i / 3, i % 3);
        const Eigen::Matrix<double, 12, 1> ge = volume_[e] * dF.transpose() * p;
        const Eigen::Matrix<double, 12, 12> He = volume_[e] * dF.transpose() * H * dF;
        for (int a = 0; a < 12; ++a) {
          g[3 * t[a / 3] + a % 3] += ge[a];
          for (int b = 0; b < 12; ++b) triplets.emplace_back(3 * t[a / 3] + a % 3, 3 * t[b / 3] + b % 3, He(a, b));
        }
      }
      // Pinned nodes: identity rows, zero gradient.
      for (std::size_t i = 0; i < nodes(); ++i)
        if (!free_[i])
          for (int c = 0; c < 3; ++c) g[static_cast<Eigen::Index>(3 * i) + c] = 0;
      std::vector<Eigen::Triplet<double>> kept;
      kept.reserve(triplets.size());
      for (const auto& tr : triplets) {
        const bool r = free_[static_cast<std::size_t>(tr.row() / 3)], c = free_[static_cast<std::size_t>(tr.col() / 3)];
        if (r && c) kept.push_back(tr);
      }
      for (std::size_t i = 0; i < nodes(); ++i)
        if (!free_[i])
          for (int c = 0; c < 3; ++c) kept.emplace_back(3 * i + c, 3 * i + c, 1.0);
      Eigen::SparseMatrix<double> Hs(N, N);
      Hs.setFromTriplets(kept.begin(), kept.end());
      solver_.compute(Hs);
      const Eigen::VectorXd dx = solver_.solve(-g);
      x += dx;
      if (dx.cwiseAbs().maxCoeff() < 1e-6) {
        ++iterations;
        break;
      }
    }
    x_prev_ = x_;
    x_ = x;
    return iterations;
  }

 private:
  TetMesh mesh_;
  std::vector<Mat3d> Dm_inv_;
  std::vector<double> volume_;
  Eigen::VectorXd mass_, x_, x_prev_;
  std::vector<bool> free_;
  Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> solver_;
};

void BM_FullSpaceFemStep(benchmark::State& state) {
  FullSpaceFem fem(voxel_tets(static_cast<int>(state.range(0))));
  for (int i = 0; i < 3; ++i) fem.step();
  long iterations = 0, steps = 0;
  for (auto _ : state) {
    iterations += fem.step();
    ++steps;
  }
  state.counters["nodes"] = static_cast<double>(fem.nodes());
  state.counters["tets"] = static_cast<double>(fem.tets());
  state.counters["newton_per_step"] = static_cast<double>(iterations) / std::max<long>(steps, 1);
}
BENCHMARK(BM_FullSpaceFemStep)->Arg(24)->ArgName("grid")->Unit(benchmark::kMillisecond)->MinTime(2.0);

}  // namespace

BENCHMARK_MAIN();
