// The compliance loss's parts against independent expectations: the reduced stiffness against
// the energy of the displacement it describes (linear_energy_density, checked against the
// runtime's), the loads against the work of the forces, the compliance against the Galerkin
// problem it solves, and the pins' modulation against the runtime's DirichletRegion.
#include <cmath>

#include <gtest/gtest.h>

#include <wobble/physics/dirichlet.hpp>

#include "neural/compliance_loss.hpp"
#include "neural/losses.hpp"

using namespace wobble::neural;

namespace {

constexpr double kMu = 1.3, kLambda = 4.1;

// Random fields with random gradients at random points: what the algebra sees of a network.
struct RandomBatch {
  torch::Tensor X, V;
  FieldBatch fields;
};
RandomBatch random_batch(std::int64_t n, std::int64_t k, std::uint64_t seed) {
  torch::manual_seed(seed);
  const auto f64 = torch::kFloat64;
  return {torch::rand({n, 3}, f64) * 2 - 1,
          torch::rand({n}, f64) + 0.1,
          {torch::randn({n, k}, f64), torch::randn({n, k, 3}, f64)}};
}

// u(X_p) = sum_i W_i(X_p) Z_i [X_p; 1]: N x 3.
torch::Tensor displacement(const RandomBatch& b, const torch::Tensor& Z) {
  const torch::Tensor Xh = torch::cat({b.X, torch::ones({b.X.size(0), 1}, b.X.options())}, 1);
  return torch::einsum("pi,ica,pa->pc", {b.fields.W, Z, Xh});
}

}  // namespace

TEST(ComplianceLoss, ReducedStiffnessIsTheLinearEnergyOfTheDisplacement) {
  const RandomBatch b = random_batch(40, 3, 1);
  const torch::Tensor K = reduced_stiffness(b.fields, b.X, b.V, kMu, kLambda);
  ASSERT_EQ(K.size(0), 36);
  EXPECT_LT((K - K.t()).abs().max().item<double>(), 1e-9 * K.abs().max().item<double>());
  for (int trial = 0; trial < 5; ++trial) {
    const torch::Tensor Z = 0.1 * torch::randn({3, 3, 4}, torch::kFloat64);
    const torch::Tensor F = deformation_gradients(b.fields, b.X, Z.unsqueeze(0)).squeeze(0);
    const double energy = (b.V * linear_energy_density(F, kMu, kLambda)).sum().item<double>();
    const torch::Tensor z = Z.reshape({-1});
    EXPECT_NEAR(0.5 * torch::dot(z, torch::mv(K, z)).item<double>(), energy, 1e-9 * energy);
  }
}

TEST(ComplianceLoss, ReducedLoadsAreTheWorkOfTheForces) {
  const RandomBatch b = random_batch(30, 2, 2);
  const torch::Tensor forces = torch::randn({3, 30, 3}, torch::kFloat64);
  const torch::Tensor F = reduced_loads(b.fields, b.X, b.V, forces);
  ASSERT_EQ(F.sizes(), (std::vector<std::int64_t>{3, 24}));
  const torch::Tensor Z = torch::randn({2, 3, 4}, torch::kFloat64);
  const torch::Tensor u = displacement(b, Z);
  for (int l = 0; l < 3; ++l) {
    const double work = (b.V.unsqueeze(1) * forces[l] * u).sum().item<double>();
    EXPECT_NEAR(torch::dot(F[l], Z.reshape({-1})).item<double>(), work, 1e-9 * (1 + std::abs(work)));
  }
}

// c = F^T K^-1 F is the most work a load can do on the subspace less its energy (the Galerkin
// optimum, max over z of 2 F.z - z^T K z), and a property of the span: any basis of it gives the
// same c, and a larger span never less.
TEST(ComplianceLoss, ComplianceIsTheGalerkinOptimumOfTheSpan) {
  const RandomBatch b = random_batch(60, 3, 3);
  const torch::Tensor forces = torch::randn({2, 60, 3}, torch::kFloat64);
  const torch::Tensor K = reduced_stiffness(b.fields, b.X, b.V, kMu, kLambda);
  const torch::Tensor F = reduced_loads(b.fields, b.X, b.V, forces);
  const torch::Tensor c = reduced_compliance(K, F);
  for (int l = 0; l < 2; ++l) {
    const torch::Tensor best = torch::linalg::solve(K, F[l], true);
    const double at_best = (2 * torch::dot(F[l], best) - torch::dot(best, torch::mv(K, best))).item<double>();
    EXPECT_NEAR(c[l].item<double>(), at_best, 1e-6 * at_best);
    for (int trial = 0; trial < 5; ++trial) {
      const torch::Tensor z = best + 0.01 * torch::randn_like(best);
      EXPECT_LT((2 * torch::dot(F[l], z) - torch::dot(z, torch::mv(K, z))).item<double>(), c[l].item<double>());
    }
  }
  const torch::Tensor M = torch::randn({3, 3}, torch::kFloat64) + 3 * torch::eye(3, torch::kFloat64);
  const FieldBatch mixed{torch::mm(b.fields.W, M), torch::einsum("pjc,ji->pic", {b.fields.dW, M})};
  const torch::Tensor c_mixed =
      reduced_compliance(reduced_stiffness(mixed, b.X, b.V, kMu, kLambda), reduced_loads(mixed, b.X, b.V, forces));
  EXPECT_LT((c_mixed - c).abs().max().item<double>(), 1e-6 * c.abs().max().item<double>());
  const FieldBatch fewer{b.fields.W.slice(1, 0, 2), b.fields.dW.slice(1, 0, 2)};
  const torch::Tensor c_fewer =
      reduced_compliance(reduced_stiffness(fewer, b.X, b.V, kMu, kLambda), reduced_loads(fewer, b.X, b.V, forces));
  EXPECT_TRUE((c_fewer < c).all().item<bool>());
}

TEST(ComplianceLoss, PinModulationIsTheRuntimes) {
  torch::manual_seed(4);
  const torch::Tensor points = torch::rand({200, 3}, torch::kFloat64) * 2 - 1;
  const TopPins pins = top_pins(points, 0.1, 0.3);
  ASSERT_GT(pins.anchors.size(0), 0);
  std::vector<wobble::Vec3d> anchors;
  for (std::int64_t a = 0; a < pins.anchors.size(0); ++a)
    anchors.emplace_back(pins.anchors[a][0].item<double>(), pins.anchors[a][1].item<double>(),
                         pins.anchors[a][2].item<double>());
  const double threshold = pins.threshold;
  const wobble::physics::DirichletRegion runtime([threshold](const wobble::Vec3d& p) { return p.y() >= threshold; },
                                                 anchors, 0.3);
  const torch::Tensor X = torch::rand({300, 3}, torch::kFloat64) * 2.2 - 1.1;
  const Modulation m = pin_modulation(pins, X);
  int blending = 0;
  for (std::int64_t p = 0; p < X.size(0); ++p) {
    const wobble::Vec3d x(X[p][0].item<double>(), X[p][1].item<double>(), X[p][2].item<double>());
    wobble::Vec3d gradient;
    const double d = runtime.modulation(x, &gradient);
    blending += d > 0 && d < 1;
    EXPECT_NEAR(m.d[p].item<double>(), d, 1e-12);
    for (int c = 0; c < 3; ++c) EXPECT_NEAR(m.gradient[p][c].item<double>(), gradient[c], 1e-9);
  }
  EXPECT_GT(blending, 10);  // the blend is exercised, not only 0 and 1
}

// The loss as training uses it: gravity and pokes on a pinned subspace give a finite loss, and a
// field added to the span lowers it (the subspace gives way more to the same loads).
TEST(ComplianceLoss, ALargerSpanLowersTheLoss) {
  torch::manual_seed(5);
  const torch::Tensor X = torch::rand({400, 3}, torch::kFloat64) * 2 - 1;
  const torch::Tensor V = torch::full({400}, 8.0 / 400, torch::kFloat64);
  ComplianceSetup setup{top_pins(X, 0.1, 0.2), kMu, kLambda, 2, 0.2};
  const auto n = X.size(0);
  const FieldBatch both{
      torch::stack({torch::ones({n}, torch::kFloat64), X.select(1, 1)}, 1),
      torch::stack(
          {torch::zeros({n, 3}, torch::kFloat64), torch::tensor({0.0, 1.0, 0.0}, torch::kFloat64).expand({n, 3})}, 1)};
  const FieldBatch constant{both.W.slice(1, 0, 1), both.dW.slice(1, 0, 1)};
  at::Generator g1 = at::detail::createCPUGenerator(7), g2 = at::detail::createCPUGenerator(7);
  const double with_both = compliance_loss(both, X, V, setup, g1).item<double>();
  const double with_constant = compliance_loss(constant, X, V, setup, g2).item<double>();
  EXPECT_TRUE(std::isfinite(with_both));
  EXPECT_LT(with_both, with_constant);
}
