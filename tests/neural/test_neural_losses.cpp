// Losses, ONI, ConFIG, spatial gradients and model files against hand-computed cases and
// independent references (the runtime's energy code, explicit Kronecker products, finite differences).
#include <cmath>
#include <filesystem>

#include <gtest/gtest.h>

#include <wobble/error.hpp>
#include <wobble/physics/elasticity.hpp>

#include "neural/losses.hpp"
#include "neural/network.hpp"
#include "neural/output_transform.hpp"

using namespace wobble::neural;

namespace {

torch::Tensor from_eigen(const Eigen::Matrix3d& m) {
  torch::Tensor t = torch::empty({3, 3}, torch::kFloat64);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) t[r][c] = m(r, c);
  return t;
}

// The centres of a cells^3 grid over [-1, 1]^3 (symmetric about 0), cells even: N x 3.
torch::Tensor symmetric_grid(int cells) {
  const torch::Tensor axis = (torch::arange(cells, torch::kFloat64) + 0.5) / (cells / 2) - 1;
  const auto grid = torch::meshgrid({axis, axis, axis}, "ij");
  return torch::stack({grid[0].reshape(-1), grid[1].reshape(-1), grid[2].reshape(-1)}, 1);
}

NetworkConfig tiny_config() {
  NetworkConfig c;
  c.width = 16;
  c.latents = 8;
  c.encoder_layers = 1;
  c.heads = 2;
  c.handles = 4;
  c.octaves = 3;
  c.mlp_blocks = 1;
  return c;
}

// Candidates x + t cos(3y), cos(4z), y, z^2 + 0.5 x, 2y - 1 (dependent on the third and the
// constant) at X with their exact gradients; t moves their span.
FieldBatch moving_candidates(const torch::Tensor& X, const torch::Tensor& t) {
  const torch::Tensor x = X.select(1, 0), y = X.select(1, 1), z = X.select(1, 2), zero = torch::zeros_like(x),
                      one = torch::ones_like(x);
  const torch::Tensor W =
      torch::stack({x + t * torch::cos(3 * y), torch::cos(4 * z), y, z * z + 0.5 * x, 2 * y - 1}, 1);
  const torch::Tensor dW =
      torch::stack({torch::stack({one, -3 * t * torch::sin(3 * y), zero}, 1),
                    torch::stack({zero, zero, -4 * torch::sin(4 * z)}, 1), torch::stack({zero, one, zero}, 1),
                    torch::stack({0.5 * one, zero, 2 * z}, 1), torch::stack({zero, 2 * one, zero}, 1)},
                   1);
  return FieldBatch{W, dW};
}

}  // namespace

TEST(NeuralLosses, EnergyDensitiesMatchTheRuntime) {
  torch::manual_seed(3);
  const double mu = 2.5, lambda = 7.0;
  for (int k = 0; k < 20; ++k) {
    const Eigen::Matrix3d F = Eigen::Matrix3d::Identity() + 0.4 * Eigen::Matrix3d::Random();
    const double linear = wobble::physics::energy_density(wobble::physics::EnergyModel::Linear, mu, lambda, F);
    const double nh = wobble::physics::energy_density(wobble::physics::EnergyModel::NeoHookean, mu, lambda, F);
    EXPECT_NEAR(linear_energy_density(from_eigen(F), mu, lambda).item<double>(), linear, 1e-9 * (1 + std::abs(linear)));
    EXPECT_NEAR(neohookean_energy_density(from_eigen(F), mu, lambda).item<double>(), nh, 1e-9 * (1 + std::abs(nh)));
  }
}

TEST(NeuralLosses, SmoothnessOfLinearFieldsIsTheirSquaredSlopes) {
  // W = [x, 2y + z]: |grad W_0|^2 + |grad W_1|^2 = 1 + 5 at every point.
  const torch::Tensor X = torch::rand({10, 3}, torch::kFloat64).requires_grad_(true);
  const torch::Tensor W = torch::stack({X.select(1, 0), 2 * X.select(1, 1) + X.select(1, 2)}, 1);
  const FieldBatch f = assemble_fields(W, spatial_gradients(W, X, true), ColumnNormalization::none, false);
  EXPECT_NEAR(smoothness_loss(f).item<double>(), 6.0, 1e-12);
}

// The span loss is the share of the targets outside span[1, W], against least squares: a target
// in the span gives 0, one orthogonal to it 1, and a mix their squared norms' share.
TEST(NeuralLosses, SpanResidualIsTheTargetsShareOutsideTheSpan) {
  torch::manual_seed(3);
  const torch::Tensor X = torch::rand({50, 3}, torch::kFloat64);
  const torch::Tensor x = X.select(1, 0), y = X.select(1, 1), z = X.select(1, 2);
  const torch::Tensor W = torch::stack({x + y, x - 2 * y}, 1);  // span[1, W] = span[1, x, y]
  const torch::Tensor inside = (2 + 3 * x - y).unsqueeze(1);
  const torch::Tensor basis = torch::stack({torch::ones_like(x), x, y}, 1);
  const torch::Tensor fit = std::get<0>(torch::linalg_lstsq(basis, z.unsqueeze(1), {}, {}));
  const torch::Tensor outside = z.unsqueeze(1) - torch::mm(basis, fit);  // least-squares residual
  EXPECT_NEAR(span_residual_loss(W, inside).item<double>(), 0.0, 1e-12);
  EXPECT_NEAR(span_residual_loss(W, outside).item<double>(), 1.0, 1e-12);
  const torch::Tensor both = torch::cat({inside, outside}, 1);
  const double share = (outside.pow(2).sum() / both.pow(2).sum()).item<double>();
  EXPECT_NEAR(span_residual_loss(W, both).item<double>(), share, 1e-12);
  EXPECT_NEAR(span_residual_loss(W, inside + outside).item<double>(),
              (outside.pow(2).sum() / (inside + outside).pow(2).sum()).item<double>(), 1e-12);
  EXPECT_THROW(span_residual_loss(torch::stack({x, 2 * x}, 1), inside), DependentFields);
}

TEST(NeuralLosses, OrthogonalityHandComputed) {
  // Unit columns of W / sqrt(2) for W = [[1, 0], [1, 1]]: gram off-diagonal 1/2, loss 2 (1/2)^2.
  const torch::Tensor W = torch::tensor({1.0, 0.0, 1.0, 1.0}, torch::kFloat64).view({2, 2});
  FieldBatch f{W, torch::zeros({2, 2, 3}, torch::kFloat64)};
  EXPECT_NEAR(orthogonality_loss(f).item<double>(), 0.5, 1e-12);
  // With on-the-fly normalisation and the constant column, zero-mean orthogonal columns give 0.
  const torch::Tensor V =
      torch::tensor({1.0, 1.0, 1.0, -1.0, -1.0, 1.0, -1.0, -1.0}, torch::kFloat64).view({4, 2});  // rows
  const FieldBatch g =
      assemble_fields(3 * V, torch::zeros({4, 2, 3}, torch::kFloat64), ColumnNormalization::scale, true);
  EXPECT_NEAR(orthogonality_loss(g).item<double>(), 0.0, 1e-12);
  EXPECT_NEAR(g.W.pow(2).mean(0)[1].item<double>(), 1.0, 1e-12);  // mean square 1
}

TEST(NeuralLosses, OrthonormalOutputIsGramSchmidtAfterTheConstantColumn) {
  torch::manual_seed(3);
  const auto n = 50;
  const torch::Tensor W = torch::randn({n, 3}, torch::kFloat64) + 0.7;  // non-zero means, correlated below
  const torch::Tensor mixed =
      torch::cat({W.slice(1, 0, 1), W.slice(1, 1, 2) + 0.5 * W.slice(1, 0, 1), W.slice(1, 2, 3)}, 1);
  const torch::Tensor dW = torch::randn({n, 3, 3}, torch::kFloat64);
  const FieldBatch f = assemble_fields(mixed, dW, ColumnNormalization::orthonormal, true);
  // [1, W'] has the identity as its mean-square Gram matrix; the constant column stays 1.
  const torch::Tensor gram = torch::mm(f.W.t(), f.W) / static_cast<double>(n);
  EXPECT_LT((gram - torch::eye(4, torch::kFloat64)).abs().max().item<double>(), 1e-10);
  EXPECT_LT((f.W.select(1, 0) - 1).abs().max().item<double>(), 1e-12);
  // The first learned field is only centred and scaled: (W_1 - mean) / (population std).
  const torch::Tensor first = mixed.select(1, 0);
  const torch::Tensor centred = first - first.mean();
  const torch::Tensor std_dev = torch::sqrt(centred.pow(2).mean());
  EXPECT_LT((f.W.select(1, 1) - centred / std_dev).abs().max().item<double>(), 1e-10);
  EXPECT_LT((f.dW.select(1, 1) - dW.select(1, 0) / std_dev).abs().max().item<double>(), 1e-10);
  // The span of [1, W] is unchanged: every new column is a least-squares-exact combination.
  const torch::Tensor basis = torch::cat({torch::ones({n, 1}, torch::kFloat64), mixed}, 1);
  const torch::Tensor coefficients = std::get<0>(torch::linalg_lstsq(basis, f.W, {}, {}));
  EXPECT_LT((torch::mm(basis, coefficients) - f.W).abs().max().item<double>(), 1e-10);
  // Fields that are a combination of the constant and each other cannot be orthonormalised.
  const torch::Tensor dependent = torch::cat({first.unsqueeze(1), (2 * first + 1).unsqueeze(1)}, 1);
  EXPECT_THROW(
      assemble_fields(dependent, torch::zeros({n, 2, 3}, torch::kFloat64), ColumnNormalization::orthonormal, true),
      wobble::Error);
}

TEST(NeuralLosses, RayleighRitzKeepsTheSmoothestOrthonormalDirections) {
  torch::manual_seed(4);
  // Candidates mixing the linear fields x, y, z with two rough even ones on a grid symmetric about
  // 0, where both products (values and gradients) between odd and even functions vanish: span{x,
  // y, z} is then exactly invariant, and with the smallest energies it is what is kept.
  const torch::Tensor X = symmetric_grid(16);
  auto raw = [](const torch::Tensor& P) {
    const torch::Tensor x = P.select(1, 0), y = P.select(1, 1), z = P.select(1, 2);
    const torch::Tensor pure =
        torch::stack({x, torch::cos(6 * y), y + 0.2, torch::cos(5 * x) * torch::cos(5 * z), z}, 1);
    const torch::Tensor mix = torch::tensor({1.0, 0.3, 0.0, 0.0, 0.2, 0.5, 1.0, 0.1, 0.0, 0.0, 0.0, 0.4, 1.0,
                                             0.2, 0.0, 0.0, 0.0, 0.3, 1.0, 0.0, 0.1, 0.0, 0.0, 0.2, 1.0},
                                            torch::kFloat64)
                                  .view({5, 5});
    return torch::mm(pure, mix);  // every candidate mixes smooth and rough parts
  };
  const ColumnTransform t = output_transform(raw, X, {ColumnNormalization::orthonormal, 3});
  ASSERT_EQ(t.transform.size(0), 5);
  ASSERT_EQ(t.transform.size(1), 3);
  const torch::Tensor kept = t.apply(raw(X));
  // Orthonormal in the mean-square product and orthogonal to the constant.
  const torch::Tensor Y = torch::cat({torch::ones({X.size(0), 1}, torch::kFloat64), kept}, 1);
  EXPECT_LT((torch::mm(Y.t(), Y) / static_cast<double>(X.size(0)) - torch::eye(4, torch::kFloat64))
                .abs()
                .max()
                .item<double>(),
            1e-9);
  // Their span is that of the centred x, y, z: least squares on [1, x, y, z] reproduces them.
  const torch::Tensor linear = torch::cat({torch::ones({X.size(0), 1}, torch::kFloat64), X}, 1);
  const torch::Tensor c = std::get<0>(torch::linalg_lstsq(linear, kept, {}, {}));
  EXPECT_LT((torch::mm(linear, c) - kept).abs().max().item<double>(), 1e-9);
  // Each kept direction is signed so that its largest coefficient is positive.
  for (int k = 0; k < 3; ++k) {
    const torch::Tensor column = t.transform.select(1, k);
    EXPECT_GT(column[column.abs().argmax()].item<double>(), 0);
  }
  EXPECT_THROW(output_transform(raw, X, {ColumnNormalization::scale, 3}), wobble::Error);
  // A candidate that combines others adds no direction: the same subspace is kept (x, y and z have
  // equal energies here, so its basis may turn within it).
  auto repeated = [&](const torch::Tensor& P) {
    const torch::Tensor W = raw(P);
    return torch::cat({W, (W.select(1, 0) - 2 * W.select(1, 3) + 1).unsqueeze(1)}, 1);
  };
  const torch::Tensor same = output_transform(repeated, X, {ColumnNormalization::orthonormal, 3}).apply(repeated(X));
  const torch::Tensor d = std::get<0>(torch::linalg_lstsq(linear, same, {}, {}));
  EXPECT_LT((torch::mm(linear, d) - same).abs().max().item<double>(), 1e-8);
  EXPECT_THROW(output_transform(repeated, X, {ColumnNormalization::orthonormal, 6}), DependentFields);  // 5 independent
}

TEST(NeuralLosses, PotentialOfAUniformStretchIsTheClosedForm) {
  // Constant field 1 and Z = [diag(e, 0, 0) | 0]: F = diag(1 + e, 1, 1) everywhere.
  const double mu = 1.5, lambda = 4.0, e = 0.1;
  const torch::Tensor X = torch::rand({6, 3}, torch::kFloat64);
  FieldBatch f{torch::ones({6, 1}, torch::kFloat64), torch::zeros({6, 1, 3}, torch::kFloat64)};
  torch::Tensor Z = torch::zeros({1, 1, 3, 4}, torch::kFloat64);
  Z[0][0][0][0] = e;
  const torch::Tensor volumes = torch::rand({6}, torch::kFloat64) + 0.1;
  const double linear = mu * e * e + 0.5 * lambda * e * e;
  const double J = 1 + e,
               nh = 0.5 * mu * ((1 + e) * (1 + e) - 1) - mu * (J - 1) + 0.5 * (lambda + mu) * (J - 1) * (J - 1);
  EXPECT_NEAR(potential_loss(f, X, volumes, Z, mu, lambda, 0).item<double>(), linear, 1e-12);
  EXPECT_NEAR(potential_loss(f, X, volumes, Z, mu, lambda, 1).item<double>(), nh, 1e-12);
  EXPECT_NEAR(potential_loss(f, X, volumes, Z, mu, lambda, 0.25).item<double>(), 0.75 * linear + 0.25 * nh, 1e-12);
  // A translation moves nothing: zero energy.
  torch::Tensor T = torch::zeros({1, 1, 3, 4}, torch::kFloat64);
  T[0][0][1][3] = 0.7;
  EXPECT_NEAR(potential_loss(f, X, volumes, T, mu, lambda, 1).item<double>(), 0.0, 1e-12);
}

TEST(NeuralLosses, DeformationGradientMatchesFiniteDifferencesOfPhi) {
  torch::manual_seed(5);
  // Fields W(X) = [sin(x + 2y), x z]: phi(X) = X + sum_i W_i(X) Z_i [X; 1].
  auto fields = [](const torch::Tensor& X) {
    return torch::stack({torch::sin(X.select(1, 0) + 2 * X.select(1, 1)), X.select(1, 0) * X.select(1, 2)}, 1);
  };
  const torch::Tensor Z = 0.3 * torch::randn({1, 2, 3, 4}, torch::kFloat64);
  auto phi = [&](const torch::Tensor& X) {
    const torch::Tensor Xh = torch::cat({X, torch::ones({X.size(0), 1}, torch::kFloat64)}, 1);
    return X + torch::einsum("pi,ijk,pk->pj", {fields(X), Z[0], Xh});
  };
  const torch::Tensor X = torch::rand({5, 3}, torch::kFloat64).requires_grad_(true);
  const torch::Tensor W = fields(X);
  const FieldBatch f = assemble_fields(W, spatial_gradients(W, X, false), ColumnNormalization::none, false);
  const torch::Tensor F = deformation_gradients(f, X.detach(), Z)[0];
  const double h = 1e-6;
  for (int c = 0; c < 3; ++c) {
    torch::Tensor step = torch::zeros({1, 3}, torch::kFloat64);
    step[0][c] = h;
    const torch::Tensor column = (phi(X.detach() + step) - phi(X.detach() - step)) / (2 * h);
    EXPECT_LT((F.select(2, c) - column).abs().max().item<double>(), 1e-6);
  }
}

TEST(NeuralLosses, NetworkSpatialGradientsMatchFiniteDifferences) {
  torch::manual_seed(7);
  SkinningNetwork net(tiny_config());
  torch::Tensor surface =
      torch::cat({torch::rand({64, 3}) * 2 - 1, torch::nn::functional::normalize(torch::randn({64, 3}))}, 1);
  const torch::Tensor latents = net->encode(surface.to(torch::kFloat32));
  net->to(torch::kFloat64);
  const torch::Tensor latents64 = net->encode(surface.to(torch::kFloat64));
  const torch::Tensor X = (torch::rand({6, 3}, torch::kFloat64) * 1.6 - 0.8).requires_grad_(true);
  const torch::Tensor W = net->fields(latents64, X);
  const torch::Tensor dW = spatial_gradients(W, X, false);
  const double h = 1e-6;
  torch::NoGradGuard no_grad;
  for (int c = 0; c < 3; ++c) {
    torch::Tensor step = torch::zeros({1, 3}, torch::kFloat64);
    step[0][c] = h;
    const torch::Tensor fd = (net->fields(latents64, X + step) - net->fields(latents64, X - step)) / (2 * h);
    EXPECT_LT((dW.select(2, c) - fd).abs().max().item<double>(), 1e-5 * (1 + fd.abs().max().item<double>()));
  }
  EXPECT_TRUE(latents.isfinite().all().item<bool>());
}

TEST(NeuralLosses, DifferenceGradientsAreExactForQuadraticsAndMatchAutograd) {
  // Central differences are exact for quadratics: W = [x^2, y z] has gradients [2x, 0, 0], [0, z, y].
  const torch::Tensor X = torch::rand({7, 3}, torch::kFloat64) * 2 - 1;
  auto quadratic = [](const torch::Tensor& P) {
    return torch::stack({P.select(1, 0).pow(2), P.select(1, 1) * P.select(1, 2)}, 1);
  };
  const FieldBatch q = fields_with_difference_gradients(quadratic, X, 1e-3);
  EXPECT_LT((q.W - quadratic(X)).abs().max().item<double>(), 1e-15);
  torch::Tensor expected = torch::zeros({7, 2, 3}, torch::kFloat64);
  expected.select(1, 0).select(1, 0).copy_(2 * X.select(1, 0));
  expected.select(1, 1).select(1, 1).copy_(X.select(1, 2));
  expected.select(1, 1).select(1, 2).copy_(X.select(1, 1));
  EXPECT_LT((q.dW - expected).abs().max().item<double>(), 1e-10);
  // On the network they agree with the exact autograd gradients to O(h^2).
  torch::manual_seed(23);
  SkinningNetwork net(tiny_config());
  net->to(torch::kFloat64);
  const torch::Tensor surface = torch::cat({torch::rand({64, 3}, torch::kFloat64) * 2 - 1,
                                            torch::nn::functional::normalize(torch::randn({64, 3}, torch::kFloat64))},
                                           1);
  const torch::Tensor latents = net->encode(surface);
  const torch::Tensor P = (torch::rand({9, 3}, torch::kFloat64) * 1.6 - 0.8).requires_grad_(true);
  const torch::Tensor exact = spatial_gradients(net->fields(latents, P), P, false);
  const FieldBatch fd = fields_with_difference_gradients(
      [&](const torch::Tensor& Y) { return net->fields(latents, Y); }, P.detach(), 1e-4);
  EXPECT_LT((fd.dW - exact).abs().max().item<double>(), 1e-5 * (1 + exact.abs().max().item<double>()));
}

TEST(NeuralLosses, OniRowsAreOrthonormal) {
  torch::manual_seed(11);
  const torch::Tensor V = torch::randn({8, 32}, torch::kFloat64);
  const torch::Tensor eye = torch::eye(8, torch::kFloat64);
  const torch::Tensor W = oni(V, 25);
  EXPECT_LT((torch::mm(W, W.t()) - eye).abs().max().item<double>(), 1e-4);
  // Fewer iterations (the default 5) already move toward orthonormality from a raw matrix.
  const torch::Tensor unit = V / V.norm(2, 1, true);
  EXPECT_LT((torch::mm(oni(V, 5), oni(V, 5).t()) - eye).norm().item<double>(),
            (torch::mm(unit, unit.t()) - eye).norm().item<double>());
  // And the network's output layer is that orthonormal matrix.
  NetworkConfig c = tiny_config();
  c.oni_iterations = 25;
  SkinningNetwork net(c);
  const torch::Tensor out = net->output_weight();
  EXPECT_LT((torch::mm(out, out.t()) - torch::eye(c.handles)).abs().max().item<double>(), 1e-3);
}

TEST(NeuralLosses, ConfigProjectionsAreEqualAndPositive) {
  torch::manual_seed(13);
  // Conflicting gradients: g1 . g2 < 0.
  std::vector<torch::Tensor> g{torch::randn({50}, torch::kFloat64), torch::randn({50}, torch::kFloat64),
                               torch::randn({50}, torch::kFloat64)};
  g[1] = -0.8 * g[0] + 0.3 * g[1];
  ASSERT_LT(torch::dot(g[0], g[1]).item<double>(), 0);
  const torch::Tensor update = config_update(g);
  std::vector<double> projections;
  for (const auto& gi : g) projections.push_back(torch::dot(update, gi / gi.norm()).item<double>());
  for (double p : projections) {
    EXPECT_GT(p, 0);
    EXPECT_NEAR(p, projections[0], 1e-9 * std::abs(projections[0]));
  }
  // Magnitude: sum_i g_i . d^.
  const torch::Tensor d_hat = update / update.norm();
  double magnitude = 0;
  for (const auto& gi : g) magnitude += torch::dot(gi, d_hat).item<double>();
  EXPECT_NEAR(update.norm().item<double>(), std::abs(magnitude), 1e-9 * std::abs(magnitude));
}

TEST(NeuralLosses, ConfigWithPenaltyBalancesTheOthersAndAddsThePenalty) {
  torch::manual_seed(8);
  const std::vector<torch::Tensor> g{torch::randn({6}, torch::kFloat64) * 10, torch::randn({6}, torch::kFloat64),
                                     torch::randn({6}, torch::kFloat64) * 3};
  const torch::Tensor penalty = g[1];
  const torch::Tensor balanced = config_update_with_penalty(g, 1) - penalty;
  // What is left is ConFIG over g0 and g2 alone: equal, positive projections on their unit vectors.
  const double p0 = torch::dot(balanced, g[0] / g[0].norm()).item<double>(),
               p2 = torch::dot(balanced, g[2] / g[2].norm()).item<double>();
  EXPECT_GT(p0, 0);
  EXPECT_NEAR(p0, p2, 1e-9 * p0);
  EXPECT_LT((balanced - config_update({g[0], g[2]})).abs().max().item<double>(), 1e-12);
  EXPECT_LT((config_update_with_penalty(g, -1) - config_update(g)).abs().max().item<double>(), 1e-12);
  EXPECT_THROW(config_update_with_penalty(g, 3), wobble::Error);
}

// kept_subspace (training's Rayleigh-Ritz selection) keeps the smoothest span, orthonormal, and its
// L_smooth, the sum of the kept generalised eigenvalues (Ky Fan), has the exact gradient although
// the directions are held constant: checked against central differences of the eigenvalue sum,
// computed another way (Cholesky-orthonormalised fields, eigvalsh).
TEST(NeuralLosses, KeptSubspaceIsTheSmoothestSpanAndCarriesTheEigenvalueSumsGradient) {
  const torch::Tensor X = symmetric_grid(8);
  const auto n = X.size(0);
  auto raw = [&](const torch::Tensor& t) { return moving_candidates(X, t); };
  auto eigenvalue_sum = [&](double t) {  // the four independent candidates, orthonormalised by Cholesky
    const FieldBatch r = raw(torch::tensor(t, torch::kFloat64));
    const FieldBatch f =
        assemble_fields(r.W.slice(1, 0, 4), r.dW.slice(1, 0, 4), ColumnNormalization::orthonormal, false);
    const torch::Tensor D = torch::einsum("pic,pjc->ij", {f.dW, f.dW}) / static_cast<double>(n);
    return torch::linalg::eigvalsh(D, "L").slice(0, 0, 2).sum().item<double>();
  };
  const torch::Tensor t = torch::tensor(0.3, torch::kFloat64).requires_grad_(true);
  const FieldBatch r = raw(t);
  const FieldBatch kept = kept_subspace(r.W, r.dW, 2);
  ASSERT_EQ(kept.W.size(1), 3);
  const torch::Tensor Y = kept.W.detach();
  EXPECT_EQ((Y.select(1, 0) - 1).abs().max().item<double>(), 0);  // the constant column first, exactly 1
  EXPECT_LT((torch::mm(Y.t(), Y) / static_cast<double>(n) - torch::eye(3, torch::kFloat64)).abs().max().item<double>(),
            1e-9);
  const torch::Tensor value = smoothness_loss(kept);
  EXPECT_NEAR(value.item<double>(), eigenvalue_sum(0.3), 1e-9);
  const double gradient = torch::autograd::grad({value}, {t})[0].item<double>(), h = 1e-5;
  const double difference = (eigenvalue_sum(0.3 + h) - eigenvalue_sum(0.3 - h)) / (2 * h);
  EXPECT_GT(std::abs(difference), 1e-3);  // the subspace does move with t
  EXPECT_NEAR(gradient, difference, 1e-6 * (1 + std::abs(difference)));
  EXPECT_THROW(kept_subspace(r.W.detach(), r.dW.detach(), 5), DependentFields);  // 4 independent
}

// The selection as a differentiable layer: a loss on the kept span (here the part of a fixed
// target outside it) has the derivative of the loss with the selection recomputed, which holding
// the kept directions constant would miss.
TEST(NeuralLosses, KeptSubspaceCarriesTheDerivativeOfTheSelection) {
  const torch::Tensor X = symmetric_grid(8);
  const torch::Tensor x = X.select(1, 0), y = X.select(1, 1), z = X.select(1, 2);
  const torch::Tensor target = torch::stack({x + y + torch::cos(3 * y), torch::sin(2 * x) + y * y}, 1);
  auto residual = [&](const torch::Tensor& t) {
    const FieldBatch r = moving_candidates(X, t);
    return span_residual_loss(kept_subspace(r.W, r.dW, 2).W.slice(1, 1), target);
  };
  const torch::Tensor t = torch::tensor(0.3, torch::kFloat64).requires_grad_(true);
  const double gradient = torch::autograd::grad({residual(t)}, {t})[0].item<double>(), h = 1e-5;
  const double difference = (residual(torch::tensor(0.3 + h, torch::kFloat64)).item<double>() -
                             residual(torch::tensor(0.3 - h, torch::kFloat64)).item<double>()) /
                            (2 * h);
  EXPECT_GT(std::abs(difference), 1e-3);
  EXPECT_NEAR(gradient, difference, 1e-6 * (1 + std::abs(difference)));
}

TEST(NeuralLosses, ComplementarityMatchesExplicitKroneckerProducts) {
  torch::manual_seed(17);
  const int N = 5, m = 2, b = 3;
  const torch::Tensor X = torch::rand({N, 3}, torch::kFloat64), W = torch::randn({N, m}, torch::kFloat64),
                      R = torch::rand({N, b}, torch::kFloat64);
  // B (3N x 12m): displacement index (coordinate r, point p) -> r * N + p; handle parameter
  // (i, r', c) -> (r' * m + i) * 4 + c, u = B z with entry W_i(p) X~_c(p) when r == r'.
  // J_rig is the same construction with the rig weights (linear control of each bone's 3x4 affine).
  auto lbs_matrix = [&](const torch::Tensor& weights) {
    const auto k = weights.size(1);
    torch::Tensor B = torch::zeros({3 * N, 12 * k}, torch::kFloat64);
    for (int r = 0; r < 3; ++r)
      for (int p = 0; p < N; ++p)
        for (int i = 0; i < k; ++i)
          for (int c = 0; c < 4; ++c) {
            const double xc = c < 3 ? X[p][c].item<double>() : 1.0;
            B[r * N + p][(r * k + i) * 4 + c] = weights[p][i].item<double>() * xc;
          }
    return B;
  };
  const double expected = torch::mm(lbs_matrix(R).t(), lbs_matrix(W)).pow(2).sum().item<double>();
  EXPECT_NEAR(complementarity_loss(W, X, R).item<double>(), expected, 1e-10 * expected);
}

TEST(NeuralModelFile, SaveLoadRoundTrip) {
  torch::manual_seed(19);
  SkinningNetwork net(tiny_config());
  const std::filesystem::path file = std::filesystem::temp_directory_path() / "wobble_neural_roundtrip.pt";
  save_network(net, file.string(), {{"note", "test"}});
  nlohmann::json metadata;
  SkinningNetwork loaded = load_network(file.string(), &metadata);
  EXPECT_EQ(metadata.value("note", ""), "test");
  EXPECT_EQ(loaded->config.to_json(), net->config.to_json());
  torch::NoGradGuard no_grad;
  const torch::Tensor surface =
      torch::cat({torch::rand({32, 3}), torch::nn::functional::normalize(torch::randn({32, 3}))}, 1);
  const torch::Tensor X = torch::rand({20, 3});
  const torch::Tensor a = net->fields(net->encode(surface), X), b = loaded->fields(loaded->encode(surface), X);
  EXPECT_TRUE(torch::equal(a, b));
  std::filesystem::remove(file);
  // A file that is not a model: a clear error naming it.
  EXPECT_THROW(load_network("/nonexistent/model.pt"), wobble::Error);
}
