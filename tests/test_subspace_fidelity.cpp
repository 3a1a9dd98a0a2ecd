// The physics fidelity measure (subspace_fidelity.hpp, issue 35): the full-space reference against
// beam theory, and subspaces with known errors (one holding the solution, one direction whose
// Galerkin solution has a closed form, fields built to span the solution, Courant-Fischer).
#include <cmath>
#include <map>

#include <gtest/gtest.h>

#include <wobble/error.hpp>
#include <wobble/physics/eigenmodes.hpp>
#include <wobble/physics/subspace_fidelity.hpp>

using namespace wobble;
using namespace wobble::physics;
using namespace wobble::fields;

namespace {

constexpr double kPi = 3.141592653589793;
constexpr double kSide = 0.25, kCell = 0.0625;  // the bar's square section, and the mesh's cell

// A vertical bar 2 long, side 0.25, its top 10 % (0.2) clamped: a cantilever of free length 1.8.
// Poisson ratio 0, so that beam theory's uniaxial stress is exact in the section.
const FullSpaceReference& bar() {
  static const FullSpaceReference reference = [] {
    FidelityOptions options;
    options.material.poisson_ratio = 0;
    return full_space_reference(box_tet_mesh(Vec3d(-kSide / 2, -1, -kSide / 2), Vec3d(kSide / 2, 1, kSide / 2), kCell),
                                options);
  }();
  return reference;
}

double free_length() { return 1.8; }

TEST(SubspaceFidelity, FullSpaceBarMatchesBeamTheory) {
  const FullSpaceReference& r = bar();
  const physics::Material& m = r.options.material;
  const double L = free_length(), c = std::sqrt(m.youngs_modulus / m.density);
  // Euler-Bernoulli cantilever: f1 = 1.8751^2 / (2 pi) sqrt(E I / (rho A L^4)), I = a^4 / 12.
  const double bending = 1.8751 * 1.8751 / (2 * kPi) * kSide / (L * L) * c / std::sqrt(12.0);
  // Linear tetrahedra four cells across are stiffer in bending (shear locking): above, by < 12 %.
  for (int i = 0; i < 2; ++i) {
    EXPECT_GT(r.frequencies[i], 0.98 * bending) << "bending mode " << i;
    EXPECT_LT(r.frequencies[i], 1.12 * bending) << "bending mode " << i;
  }
  // Longitudinal (clamped-free) c / (4 L): the sixth mode here; linear elements represent it well.
  EXPECT_NEAR(r.frequencies[5], c / (4 * L), 0.02 * c / (4 * L));
  // Static sag of a hanging bar: the tip moves rho g L^2 / (2 E).
  double tip = 0;
  int tip_nodes = 0;
  for (std::size_t k = 0; k < r.fem.free_nodes.size(); ++k)
    if (r.mesh.nodes[static_cast<std::size_t>(r.fem.free_nodes[k])].y() < -1 + 1e-9) {
      tip += -r.sag[static_cast<Eigen::Index>(3 * k + 1)];
      ++tip_nodes;
    }
  ASSERT_GT(tip_nodes, 0);
  const double expected = m.density * r.options.gravity * L * L / (2 * m.youngs_modulus);
  EXPECT_NEAR(tip / tip_nodes, expected, 0.03 * expected);
}

TEST(SubspaceFidelity, ASubspaceHoldingTheSolutionReproducesIt) {
  const FullSpaceReference& r = bar();
  EXPECT_LT(subspace_fidelity(r, r.sag).sag_error, 1e-9);
  // Every direction of a small mesh: the reduced problems are the full ones.
  FidelityOptions options;
  const FullSpaceReference small =
      full_space_reference(box_tet_mesh(Vec3d(-0.25, -1, -0.25), Vec3d(0.25, 1, 0.25), 0.25), options);
  const SubspaceFidelity all = subspace_fidelity(small, Eigen::MatrixXd::Identity(small.fem.dofs(), small.fem.dofs()));
  EXPECT_LT(all.sag_error, 1e-9);
  EXPECT_LT(all.poke_error, 1e-9);
  EXPECT_LT(all.frequency_errors.cwiseAbs().maxCoeff(), 1e-8);
  EXPECT_EQ(all.dofs, small.fem.dofs());
}

TEST(SubspaceFidelity, OneDirectionGivesTheGalerkinClosedForm) {
  const FullSpaceReference& r = bar();
  const Eigen::Index n = r.fem.dofs();
  Eigen::VectorXd down = Eigen::VectorXd::Zero(n), across = down;
  for (Eigen::Index k = 0; k < n / 3; ++k) {
    down[3 * k + 1] = -1;
    across[3 * k] = 1;
  }
  // Galerkin on one direction b: q = b.f / b^T K b; its frequency is the Rayleigh quotient.
  const Eigen::VectorXd Kb = r.fem.stiffness * down;
  const double q = down.dot(r.gravity_load) / down.dot(Kb);
  const double expected = (q * down - r.sag).norm() / r.sag.norm();
  const SubspaceFidelity one = subspace_fidelity(r, down);
  EXPECT_NEAR(one.sag_error, expected, 1e-9);
  const double rayleigh = std::sqrt(down.dot(Kb) / down.dot(r.fem.mass.cwiseProduct(down))) / (2 * kPi);
  EXPECT_NEAR(one.frequencies[0], rayleigh, 1e-9 * rayleigh);
  EXPECT_TRUE(std::isnan(one.frequencies[1]));  // one direction, one frequency
  // A direction that gravity does no work on: the reduced sag is zero, its error exactly 1.
  EXPECT_NEAR(subspace_fidelity(r, across).sag_error, 1.0, 1e-12);
}

// Fields W_c = u_c / d on the mesh's own grid (trilinear: exact at the nodes) with the runtime's
// basis d W_c [X; 1] span the full solution u, through the pins' modulation d.
TEST(SubspaceFidelity, FieldsSpanningTheSolutionThroughTheRuntimeBasisReproduceIt) {
  const FullSpaceReference& r = bar();
  const Vec3d lo(-kSide / 2, -1, -kSide / 2);
  const std::array<int, 3> dims{5, 33, 5};
  Eigen::MatrixXd values = Eigen::MatrixXd::Zero(dims[0] * dims[1] * dims[2], 3);
  for (std::size_t k = 0; k < r.fem.free_nodes.size(); ++k) {
    const Vec3d& X = r.mesh.nodes[static_cast<std::size_t>(r.fem.free_nodes[k])];
    const Eigen::Vector3i g = ((X - lo) / kCell).array().round().cast<int>();
    const double d = r.pins.modulation(X, nullptr);
    ASSERT_GT(d, 0) << "a free node inside the pinned region";
    values.row((g.z() * dims[1] + g.y()) * dims[0] + g.x()) =
        r.sag.segment<3>(static_cast<Eigen::Index>(3 * k)).transpose() / d;
  }
  const GridField field(lo, kCell, dims, values, "the sag, divided by d");
  const Eigen::MatrixXd basis = subspace_basis(r, field);
  EXPECT_EQ(basis.cols(), 36);  // 3 fields x [x, y, z, 1] x 3 coordinates
  EXPECT_LT(subspace_fidelity(r, basis).sag_error, 1e-8);
}

TEST(SubspaceFidelity, EigenmodeSubspaceOnlyStiffens) {
  const FullSpaceReference& r = bar();
  EigenmodeOptions options;
  options.handles = 6;
  options.grid_resolution = 16;
  const auto modes = skinning_eigenmodes(r.mesh.nodes, options);
  const SubspaceFidelity f = subspace_fidelity(r, subspace_basis(r, *modes));
  for (Eigen::Index i = 0; i < f.frequency_errors.size(); ++i) EXPECT_GE(f.frequency_errors[i], -1e-9) << "mode " << i;
  EXPECT_GT(f.sag_error, 0);
  EXPECT_LT(f.sag_error, 0.5);
  EXPECT_LT(f.poke_error, 1.0);
}

// Two unit cubes of tetrahedra that share an edge only: the second would hinge about it, so a
// pin on the first keeps the first alone; joined face to face, both stay.
TEST(SubspaceFidelity, PiecesMeetingAtAnEdgeAreApart) {
  auto two_cubes = [](const Vec3d& offset) {
    TetMesh a = box_tet_mesh(Vec3d::Zero(), Vec3d::Ones(), 1.0), b = box_tet_mesh(offset, offset + Vec3d::Ones(), 1.0);
    std::map<std::array<long, 3>, int> index;  // nodes merged by position
    TetMesh both;
    for (const TetMesh* m : {&a, &b})
      for (const auto& t : m->tets) {
        std::array<int, 4> merged;
        for (int c = 0; c < 4; ++c) {
          const Vec3d& p = m->nodes[static_cast<std::size_t>(t[static_cast<std::size_t>(c)])];
          const std::array<long, 3> key{std::lround(p.x()), std::lround(p.y()), std::lround(p.z())};
          auto [it, fresh] = index.try_emplace(key, static_cast<int>(both.nodes.size()));
          if (fresh) both.nodes.push_back(p);
          merged[static_cast<std::size_t>(c)] = it->second;
        }
        both.tets.push_back(merged);
      }
    std::vector<bool> keep(both.node_count(), false);
    for (std::size_t v = 0; v < both.node_count(); ++v) keep[v] = both.nodes[v].x() < 0.5 && both.nodes[v].y() < 0.5;
    return connected_to(both, keep).tets.size();
  };
  EXPECT_EQ(two_cubes(Vec3d(1, 1, 0)), 6u);   // an edge in common
  EXPECT_EQ(two_cubes(Vec3d(1, 0, 0)), 12u);  // a face in common
}

TEST(SubspaceFidelity, BadInputIsNamed) {
  const FullSpaceReference& r = bar();
  EXPECT_THROW(subspace_fidelity(r, Eigen::MatrixXd::Zero(3, 2)), Error);
  EXPECT_THROW(subspace_fidelity(r, Eigen::MatrixXd::Zero(r.fem.dofs(), 2)), Error);
  FidelityOptions bad;
  bad.pinned_fraction = 0;
  EXPECT_THROW(full_space_reference(box_tet_mesh(Vec3d::Zero(), Vec3d::Ones(), 0.5), bad), Error);
}

}  // namespace
