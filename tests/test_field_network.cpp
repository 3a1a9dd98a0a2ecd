// The torch-free neural fields evaluator (wobble/fields/field_network.hpp) without LibTorch: a
// hand-built network against its closed form, forward-mode gradients of the shipped model against
// central differences, the shipped model's output orthonormal over the cubature points, clear
// errors for bad files, the neural subspace simulating in a build without LibTorch, and the
// evaluator's SIMD products against Eigen's.
// (tests/neural/test_field_export.cpp compares the evaluator with LibTorch itself.)
#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <limits>
#include <vector>

#include <Eigen/Eigenvalues>
#include <gtest/gtest.h>

#include <wobble/error.hpp>
#include <wobble/io/files.hpp>
#include <wobble/fields/field_network.hpp>
#include <wobble/fields/span_projection.hpp>
#include <wobble/physics/scene.hpp>

#include "box_mesh.hpp"
#include "error_text.hpp"
#include "fields/field_kernels.hpp"
#include "simd/isa.hpp"

using namespace wobble;
using namespace wobble::physics;
using namespace wobble::fields;
using wobble::test::error_text;
namespace fs = std::filesystem;

namespace {

const fs::path kShipped = fs::path(WOBBLE_SOURCE_DIR) / "models/physskin_small.wfield";

FieldTensor tensor(std::vector<std::int64_t> shape, std::vector<float> values) {
  return {std::move(shape), std::move(values)};
}

// raw fields = W2 tanh(W1 x + b1): an encoder without layers (its output is the surface cloud itself).
FieldNetworkFile tiny_network() {
  FieldNetworkFile f;
  f.description = {
      {"format", "wobble-field"},
      {"version", 1},
      {"handles", 1},
      {"shape_sample", {{"surface_points", 16}, {"cubature_points", 20}, {"grid_resolution", 8}, {"seed", 1}}},
      {"output_normalization", {{"kind", "none"}}},
      {"encoder", {{"output", "surface"}, {"layers", nlohmann::json::array()}}},
      {"field",
       {{"layers",
         {{{"op", "linear"}, {"weight", "w1"}, {"bias", "b1"}},
          {{"op", "activation"}, {"function", "tanh"}},
          {{"op", "linear"}, {"weight", "w2"}}}}}}};
  f.tensors["w1"] = tensor({2, 3}, {0.5f, -1.0f, 0.25f, 2.0f, 0.1f, -0.3f});
  f.tensors["b1"] = tensor({2}, {0.2f, -0.4f});
  f.tensors["w2"] = tensor({1, 2}, {1.5f, -0.7f});
  return f;
}

// raw candidate fields = W2 tanh(W1 x + b1) (6 hidden, 4 candidates), of which the output keeps
// the 2 smoothest directions.
FieldNetworkFile candidate_network() {
  FieldNetworkFile f = tiny_network();
  f.description["handles"] = 2;
  f.description["output_normalization"] = {{"kind", "rayleigh_ritz"}, {"keep", 2}};
  // Fixed pseudo-random entries in [-1, 1] (a quadratic phase: a linear one gives rank-2 matrices).
  auto entry = [](int i, double seed) { return static_cast<float>(std::sin(seed + 12.9898 * i + 4.1414 * i * i)); };
  std::vector<float> w1, b1, w2;
  for (int i = 0; i < 18; ++i) w1.push_back(1.5f * entry(i, 0.3));
  for (int i = 0; i < 6; ++i) b1.push_back(0.5f * entry(i, 1.7));
  for (int i = 0; i < 24; ++i) w2.push_back(entry(i, 2.9));
  f.tensors["w1"] = tensor({6, 3}, w1);
  f.tensors["b1"] = tensor({6}, b1);
  f.tensors["w2"] = tensor({4, 6}, w2);
  return f;
}

// Mean over the points of the centred values' Gram matrix and of the gradients' Gram matrix.
struct Grams {
  Eigen::MatrixXd values, gradients;
};
Grams grams(const Eigen::MatrixXd& W, const std::array<Eigen::MatrixXd, 3>& dW) {
  const auto n = static_cast<double>(W.rows());
  const Eigen::MatrixXd centred = W.rowwise() - W.colwise().mean();
  Grams g{centred.transpose() * centred / n, Eigen::MatrixXd::Zero(W.cols(), W.cols())};
  for (const Eigen::MatrixXd& d : dW) g.gradients += d.transpose() * d / n;
  return g;
}

}  // namespace

TEST(FieldNetwork, RayleighRitzKeepsTheSmoothestOrthonormalSubspaceOfTheCandidates) {
  const auto network = std::make_shared<FieldNetwork>(candidate_network(), "candidates", 1);
  ASSERT_EQ(network->handles(), 2);
  ASSERT_EQ(network->raw_field_count(), 4);
  const ShapeSample sample = make_shape_sample(test::box_mesh(1.0f, 0.5f, 0.3f), "box", network->sample_options(), 1);
  const std::vector<Vec3d> cubature = cubature_points(sample);
  const auto field = network->fields_for(sample, true);
  ASSERT_EQ(field->handle_count(), 3);
  const FieldValues out = field->evaluate(cubature, true);
  // [1, W'] orthonormal in the mean over the cubature points.
  const Eigen::MatrixXd gram = out.W.transpose() * out.W / static_cast<double>(out.W.rows());
  EXPECT_LT((gram - Eigen::MatrixXd::Identity(3, 3)).cwiseAbs().maxCoeff(), 1e-9);
  // Its Dirichlet trace is the Rayleigh-Ritz optimum over span[1, raw]: the sum of the 2 smallest
  // generalised eigenvalues of (gradient Gram, centred Gram) of the raw candidates, computed here
  // by another solver.
  Eigen::MatrixXd raw;
  std::array<Eigen::MatrixXd, 3> raw_gradient;
  network->raw_fields(*network->encode(sample.surface), cubature, raw, &raw_gradient);
  const Grams r = grams(raw, raw_gradient);
  const Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> optimum(r.gradients, r.values);
  const double best = optimum.eigenvalues().head(2).sum(), worst = optimum.eigenvalues().tail(2).sum();

  const Grams kept =
      grams(out.W.rightCols(2), {out.dW[0].rightCols(2), out.dW[1].rightCols(2), out.dW[2].rightCols(2)});
  EXPECT_NEAR(kept.gradients.trace(), best, 1e-9 * best);
  EXPECT_GT(worst, 1.5 * best);  // not a trivial case: the choice matters
  // Each kept field lies in span[1, raw] (least squares residual), signed by its largest raw coefficient.
  Eigen::MatrixXd basis(raw.rows(), 5);
  basis << Eigen::VectorXd::Ones(raw.rows()), raw;
  const Eigen::MatrixXd coefficients = basis.colPivHouseholderQr().solve(out.W.rightCols(2));
  EXPECT_LT((basis * coefficients - out.W.rightCols(2)).norm(), 1e-9 * out.W.rightCols(2).norm());
  for (int k = 0; k < 2; ++k) {
    Eigen::Index largest = 0;
    coefficients.col(k).tail(4).cwiseAbs().maxCoeff(&largest);
    EXPECT_GT(coefficients(1 + largest, k), 0) << "field " << k;
  }
}

TEST(FieldNetwork, CandidatesAreTheRawFieldsAndTheSelectionIsTheirProjection) {
  const auto network = std::make_shared<FieldNetwork>(candidate_network(), "candidates", 1);
  const ShapeSample sample = make_shape_sample(test::box_mesh(1.0f, 0.5f, 0.3f), "box", network->sample_options(), 1);
  const std::vector<Vec3d> cubature = cubature_points(sample);
  const auto candidates = network->candidates_for(sample);
  ASSERT_EQ(candidates->handle_count(), 5);
  const FieldValues c = candidates->evaluate(cubature, true);
  Eigen::MatrixXd raw;
  std::array<Eigen::MatrixXd, 3> raw_gradient;
  network->raw_fields(*network->encode(sample.surface), cubature, raw, &raw_gradient);
  EXPECT_EQ(c.W.col(0), Eigen::VectorXd::Ones(raw.rows()));
  EXPECT_EQ(c.W.rightCols(4), raw);
  for (int a = 0; a < 3; ++a) {
    EXPECT_EQ(c.dW[a].col(0), Eigen::VectorXd::Zero(raw.rows()));
    EXPECT_EQ(c.dW[a].rightCols(4), raw_gradient[a]);
  }
  // The selected fields are [1, raw] times a fixed matrix: projected onto the candidates' span at
  // the cubature points, they are the same functions at any other point, gradients included.
  const auto selected = network->fields_for(sample, true);
  const auto projected = projected_onto_span(candidates, *selected, cubature);
  ASSERT_EQ(projected->handle_count(), 3);
  const std::vector<Vec3d> elsewhere = {{0.3, -0.1, 0.05}, {-0.8, 0.2, -0.1}, {0.9, 0.4, 0.25}};
  const FieldValues want = selected->evaluate(elsewhere, true), got = projected->evaluate(elsewhere, true);
  EXPECT_LT((got.W - want.W).norm(), 1e-9 * want.W.norm());
  for (int a = 0; a < 3; ++a) EXPECT_LT((got.dW[a] - want.dW[a]).norm(), 1e-9 * want.dW[a].norm()) << "axis " << a;
}

TEST(SpanProjection, OntoTheConstantIsTheMeanAndBadPointsAreRefused) {
  // Two grid fields on one cell: the constant 1, and x. The best constant for x at points is their mean x.
  const std::array<int, 3> dims{2, 2, 2};
  Eigen::MatrixXd ones = Eigen::MatrixXd::Ones(8, 1), x(8, 1);
  for (int n = 0; n < 8; ++n) x(n, 0) = n % 2;  // node (i, j, k): x = i on the unit cell
  const auto constant = std::make_shared<GridField>(Vec3d::Zero(), 1.0, dims, ones, "one");
  const GridField linear(Vec3d::Zero(), 1.0, dims, x, "x");
  const std::vector<Vec3d> points = {{0.1, 0.5, 0.5}, {0.2, 0.1, 0.9}, {0.9, 0.3, 0.2}};
  const auto projected = projected_onto_span(constant, linear, points);
  const std::vector<Vec3d> query = {{0.7, 0.7, 0.7}};
  const FieldValues v = projected->evaluate(query, true);
  EXPECT_NEAR(v.W(0, 0), (0.1 + 0.2 + 0.9) / 3, 1e-12);
  EXPECT_EQ(v.dW[0](0, 0), 0.0);
  EXPECT_NE(error_text([&] { projected_onto_span(constant, linear, {}); }).find("no points"), std::string::npos);
  EXPECT_NE(error_text([&] { projected_onto_span(nullptr, linear, points); }).find("no field"), std::string::npos);
  const std::vector<Vec3d> bad = {{0.1, std::nan(""), 0.5}};
  EXPECT_NE(error_text([&] { projected_onto_span(constant, linear, bad); }).find("not finite"), std::string::npos);
}

TEST(FieldNetwork, RayleighRitzDescriptionsAreChecked) {
  FieldNetworkFile all = candidate_network();
  all.description["output_normalization"]["keep"] = 4;
  EXPECT_NE(error_text([&] {
              FieldNetwork(all, "all.wfield");
            }).find("all.wfield: output_normalization rayleigh_ritz: 'keep'"),
            std::string::npos);
  FieldNetworkFile none = candidate_network();
  none.description["output_normalization"].erase("keep");
  EXPECT_NE(error_text([&] { FieldNetwork(none, "none.wfield"); }).find("'keep' must be the model's 2 handles"),
            std::string::npos);
  FieldNetworkFile plain = candidate_network();
  plain.description["output_normalization"] = {{"kind", "orthonormal"}};
  EXPECT_NE(error_text([&] {
              FieldNetwork(plain, "plain.wfield");
            }).find("the last layer gives 4 columns, the model has 2 handles"),
            std::string::npos);
  FieldNetworkFile unknown = candidate_network();
  unknown.description["output_normalization"] = {{"kind", "whiten"}};
  EXPECT_NE(
      error_text([&] { FieldNetwork(unknown, "unknown.wfield"); }).find("unknown output_normalization kind 'whiten'"),
      std::string::npos);
  FieldNetworkFile numeric_target = tiny_network();
  numeric_target.description["output_normalization"] = {{"kind", "scale"}, {"target", 5}};
  EXPECT_NE(error_text([&] {
              FieldNetwork(numeric_target, "t.wfield");
            }).find("t.wfield: output_normalization.target must be a string"),
            std::string::npos);
}

// Every instruction set's product against the reference (Eigen's), on widths that are and are
// not multiples of the kernels' blocks (8 and 16 columns, 4 rows), with row strides wider than
// the rows (attention's heads) and a bias on some rows only; the columns past each row are kept.
TEST(FieldNetwork, ProductKernelsMatchEigenOnEveryInstructionSet) {
  namespace fk = field_kernels;
  for (const auto [rows, in, out] :
       {std::array<std::size_t, 3>{1, 1, 1}, {5, 9, 64}, {7, 73, 24}, {12, 16, 13}, {9, 64, 128}, {3, 128, 40}}) {
    const std::size_t ldx = in + 3, ldw = out + 5, ldy = out + 2;
    std::vector<float> X(rows * ldx), Wt(in * ldw), bias(out);
    for (std::size_t i = 0; i < X.size(); ++i) X[i] = std::sin(0.37f * static_cast<float>(i));
    for (std::size_t i = 0; i < Wt.size(); ++i) Wt[i] = std::cos(0.11f * static_cast<float>(i));
    for (std::size_t i = 0; i < out; ++i) bias[i] = 0.5f - 0.1f * static_cast<float>(i);
    const std::size_t biased = rows / 2 + 1;
    // The definition, in double precision.
    std::vector<double> expected(rows * out);
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t c = 0; c < out; ++c) {
        double sum = r < biased ? bias[c] : 0.0;
        for (std::size_t k = 0; k < in; ++k) sum += double(X[r * ldx + k]) * Wt[k * ldw + c];
        expected[r * out + c] = sum;
      }
    std::vector<simd::Isa> isas = simd::runnable_isas();
    isas.push_back(simd::Isa::scalar);
    for (simd::Isa isa : isas) {
      std::vector<float> Y(rows * ldy, -7.0f);
      fk::table_for(isa).product({X.data(), ldx, Wt.data(), ldw, Y.data(), ldy, rows, in, out, bias.data(), biased});
      for (std::size_t r = 0; r < rows; ++r) {
        for (std::size_t c = 0; c < out; ++c)
          ASSERT_NEAR(Y[r * ldy + c], expected[r * out + c], 2e-6 * static_cast<double>(in))
              << simd::isa_name(isa) << " " << rows << "x" << in << "x" << out << " at " << r << ", " << c;
        for (std::size_t c = out; c < ldy; ++c) ASSERT_EQ(Y[r * ldy + c], -7.0f) << simd::isa_name(isa);
      }
    }
  }
}

// ELU and GELU with their slopes against the definitions in double precision, on every
// instruction set, from far below zero (where e^v underflows) to far above; NaN stays NaN.
TEST(FieldNetwork, ActivationKernelsMatchTheirDefinitionsOnEveryInstructionSet) {
  namespace fk = field_kernels;
  std::vector<float> input;
  for (int i = -400; i <= 400; ++i) input.push_back(0.025f * static_cast<float>(i));
  for (const float v : {-150.0f, -88.5f, -30.0f, 1e-8f, -1e-8f, 30.0f, 150.0f}) input.push_back(v);
  input.push_back(std::numeric_limits<float>::quiet_NaN());  // 809 values: a tail after the blocks of 8
  const double inv_sqrt_2pi = 0.3989422804014327;
  std::vector<simd::Isa> isas = simd::runnable_isas();
  isas.push_back(simd::Isa::scalar);
  for (simd::Isa isa : isas) {
    std::vector<float> elu = input, gelu = input, elu_slope(input.size()), gelu_slope(input.size());
    fk::table_for(isa).elu(elu.data(), elu_slope.data(), elu.size());
    fk::table_for(isa).gelu(gelu.data(), gelu_slope.data(), gelu.size());
    for (std::size_t i = 0; i + 1 < input.size(); ++i) {
      const double v = input[i], phi = 0.5 * std::erfc(-v / std::sqrt(2.0)),
                   tolerance = 1e-6 * std::max(1.0, std::abs(v));
      ASSERT_NEAR(elu[i], v > 0 ? v : std::expm1(v), tolerance) << simd::isa_name(isa) << " elu at " << v;
      ASSERT_NEAR(elu_slope[i], v > 0 ? 1.0 : std::exp(v), 1e-6) << simd::isa_name(isa) << " elu' at " << v;
      ASSERT_NEAR(gelu[i], v * phi, tolerance) << simd::isa_name(isa) << " gelu at " << v;
      ASSERT_NEAR(gelu_slope[i], phi + v * std::exp(-0.5 * v * v) * inv_sqrt_2pi, 1e-6)
          << simd::isa_name(isa) << " gelu' at " << v;
    }
    EXPECT_TRUE(std::isnan(elu.back()) && std::isnan(gelu.back())) << simd::isa_name(isa);
  }
}

// Softmax rows and their derivative rows, a (ds - a . ds), against the definition in double
// precision on every instruction set: widths with and without a tail of fewer than 8 columns,
// a row stride wider than the rows, scores far apart (e^-80 next to 1).
TEST(FieldNetwork, SoftmaxKernelMatchesItsDefinitionOnEveryInstructionSet) {
  namespace fk = field_kernels;
  for (const std::size_t width : {1u, 8u, 13u, 64u}) {
    const std::size_t n = 3, parts = 4, ld = width + 2;
    std::vector<float> input(n * parts * ld, 5.0f);
    for (std::size_t r = 0; r < n * parts; ++r)
      for (std::size_t k = 0; k < width; ++k)
        input[r * ld + k] = r == 1 && k == 0 ? -80.0f : 3.0f * std::sin(0.7f * static_cast<float>(r * width + k));
    std::vector<double> expected(input.begin(), input.end());
    for (std::size_t i = 0; i < n; ++i) {
      double* a = &expected[i * ld];
      const double top = *std::max_element(a, a + width);
      double total = 0;
      for (std::size_t k = 0; k < width; ++k) total += a[k] = std::exp(a[k] - top);
      for (std::size_t k = 0; k < width; ++k) a[k] /= total;
      for (std::size_t c = 1; c < parts; ++c) {
        double* d = &expected[(c * n + i) * ld];
        double projection = 0;
        for (std::size_t k = 0; k < width; ++k) projection += a[k] * d[k];
        for (std::size_t k = 0; k < width; ++k) d[k] = a[k] * (d[k] - projection);
      }
    }
    std::vector<simd::Isa> isas = simd::runnable_isas();
    isas.push_back(simd::Isa::scalar);
    for (simd::Isa isa : isas) {
      std::vector<float> s = input;
      fk::table_for(isa).softmax(s.data(), ld, n, width, static_cast<int>(parts));
      for (std::size_t i = 0; i < s.size(); ++i)
        ASSERT_NEAR(s[i], expected[i], 1e-6) << simd::isa_name(isa) << " width " << width << " at " << i;
    }
  }
}

// The shipped model's fields with each instruction set's products agree with Eigen's to float
// rounding (the kernels change the order of the sums, nothing else).
TEST(FieldNetwork, ShippedModelIsTheSameOnEveryInstructionSet) {
  const auto network = FieldNetwork::load(kShipped, 1);
  const ShapeSample sample = make_shape_sample(test::box_mesh(1.0f, 0.6f, 0.4f), "box", network->sample_options(), 1);
  const std::vector<Vec3d> points = {
      {0.3, -0.2, 0.1}, {-0.8, 0.4, -0.3}, {0.05, 0.5, 0.2}, {0.9, 0.9, -0.9}, {0, 0, 0}};
  const simd::Isa saved = simd::active_isa();
  simd::set_active_isa(simd::Isa::scalar);
  Eigen::MatrixXd W_eigen;
  std::array<Eigen::MatrixXd, 3> dW_eigen;
  network->raw_fields(*network->encode(sample.surface), points, W_eigen, &dW_eigen);
  for (simd::Isa isa : simd::runnable_isas()) {
    simd::set_active_isa(isa);
    Eigen::MatrixXd W;
    std::array<Eigen::MatrixXd, 3> dW;
    network->raw_fields(*network->encode(sample.surface), points, W, &dW);
    EXPECT_LT((W - W_eigen).cwiseAbs().maxCoeff(), 1e-4 * W_eigen.cwiseAbs().maxCoeff()) << simd::isa_name(isa);
    for (int c = 0; c < 3; ++c)
      EXPECT_LT((dW[c] - dW_eigen[c]).cwiseAbs().maxCoeff(), 1e-4 * dW_eigen[c].cwiseAbs().maxCoeff())
          << simd::isa_name(isa) << " coordinate " << c;
  }
  simd::set_active_isa(saved);
}

TEST(FieldNetwork, HandBuiltNetworkMatchesItsClosedForm) {
  const auto network = std::make_shared<FieldNetwork>(tiny_network(), "tiny", 1);
  const auto shape = network->encode(Eigen::MatrixXf::Zero(4, 6));
  const std::vector<Vec3d> points = {{0.1, 0.2, -0.3}, {-0.7, 0.5, 0.9}, {0.0, 0.0, 0.0}};
  Eigen::MatrixXd W;
  std::array<Eigen::MatrixXd, 3> dW;
  network->raw_fields(*shape, points, W, &dW);
  Eigen::Matrix<double, 2, 3> w1;
  w1 << 0.5, -1.0, 0.25, 2.0, 0.1, -0.3;
  const Eigen::Vector2d b1(0.2, -0.4);
  const Eigen::RowVector2d w2(1.5, -0.7);
  for (std::size_t p = 0; p < points.size(); ++p) {
    const Eigen::Vector2d h = (w1 * points[p] + b1).array().tanh().matrix();
    const Eigen::RowVector3d gradient = w2 * (1 - h.array().square()).matrix().asDiagonal() * w1;
    const auto row = static_cast<Eigen::Index>(p);
    EXPECT_NEAR(W(row, 0), w2 * h, 1e-6);
    for (int c = 0; c < 3; ++c) EXPECT_NEAR(dW[c](row, 0), gradient[c], 1e-6);
  }
}

TEST(FieldNetwork, ShippedModelGradientsMatchCentralDifferences) {
  const auto network = FieldNetwork::load(kShipped, 1);
  const ShapeSample sample = make_shape_sample(test::box_mesh(1.0f, 0.6f, 0.4f), "box", network->sample_options(), 1);
  const auto shape = network->encode(sample.surface);
  const std::vector<Vec3d> points = {{0.3, -0.2, 0.1}, {-0.8, 0.4, -0.3}, {0.05, 0.5, 0.2}};
  Eigen::MatrixXd W;
  std::array<Eigen::MatrixXd, 3> dW;
  network->raw_fields(*shape, points, W, &dW);
  // h: the network is float32 and its encoding reaches frequency 2^5 pi, so differences are good
  // to about 1% of the gradient's size: enough to catch a wrong derivative, which is off by O(1).
  const double h = 2e-4;
  for (int c = 0; c < 3; ++c) {
    std::vector<Vec3d> plus = points, minus = points;
    for (std::size_t p = 0; p < points.size(); ++p) plus[p][c] += h, minus[p][c] -= h;
    Eigen::MatrixXd Wp, Wm;
    network->raw_fields(*shape, plus, Wp, nullptr);
    network->raw_fields(*shape, minus, Wm, nullptr);
    const Eigen::MatrixXd difference = (Wp - Wm) / (2 * h);
    EXPECT_LT((difference - dW[c]).cwiseAbs().maxCoeff(), 0.02 * dW[c].cwiseAbs().maxCoeff()) << "coordinate " << c;
  }
}

TEST(FieldNetwork, ShippedModelIsOrthonormalOverTheCubaturePointsWithTheConstantFirst) {
  const auto network = FieldNetwork::load(kShipped);
  const std::string kind = network->description().at("output_normalization").at("kind");
  EXPECT_TRUE(kind == "orthonormal" || kind == "rayleigh_ritz") << kind;  // both give [1, W] orthonormal
  const ShapeSample sample = make_shape_sample(test::box_mesh(1.0f, 0.3f, 0.5f), "box", network->sample_options(), 1);
  const auto field = network->fields_for(sample, true);
  ASSERT_EQ(field->handle_count(), network->handles() + 1);
  const FieldValues v = field->evaluate(cubature_points(sample), true);
  EXPECT_EQ(v.W.col(0), Eigen::VectorXd::Ones(v.W.rows()));
  EXPECT_EQ(v.dW[1].col(0), Eigen::VectorXd::Zero(v.W.rows()));
  const Eigen::MatrixXd gram = v.W.transpose() * v.W / static_cast<double>(v.W.rows());
  EXPECT_LT((gram - Eigen::MatrixXd::Identity(gram.rows(), gram.cols())).cwiseAbs().maxCoeff(), 1e-9);
}

TEST(FieldNetwork, FilesRoundTripAndBadOnesGiveOneClearLine) {
  const FieldNetworkFile tiny = tiny_network();
  const std::vector<std::uint8_t> bytes = serialize_field_network_file(tiny);
  EXPECT_EQ(bytes.size() % 4, 0u);
  const FieldNetworkFile back = parse_field_network_file(bytes, "tiny.wfield");
  EXPECT_EQ(back.description, tiny.description);
  EXPECT_EQ(back.tensors.at("w1").values, tiny.tensors.at("w1").values);
  EXPECT_EQ(serialize_field_network_file(back), bytes);

  std::vector<std::uint8_t> truncated(bytes.begin(), bytes.end() - 4);
  EXPECT_NE(error_text([&] { parse_field_network_file(truncated, "cut.wfield"); }).find("cut.wfield: tensor"),
            std::string::npos);
  std::vector<std::uint8_t> huge = bytes;
  huge[7] = 0x7f;
  EXPECT_NE(error_text([&] { parse_field_network_file(huge, "huge.wfield"); }).find("header length"),
            std::string::npos);
  EXPECT_NE(error_text([&] { parse_field_network_file({}, "empty.wfield"); }).find("too short"), std::string::npos);

  FieldNetworkFile wrong = tiny;
  wrong.tensors["w2"] = tensor({1, 3}, {1, 2, 3});
  EXPECT_NE(error_text([&] { FieldNetwork(wrong, "wrong.wfield"); }).find("wrong.wfield: field layer 2 (linear)"),
            std::string::npos);
  FieldNetworkFile missing = tiny;
  missing.tensors.erase("b1");
  EXPECT_NE(error_text([&] { FieldNetwork(missing, "missing.wfield"); }).find("tensor 'b1' is not in the file"),
            std::string::npos);
  FieldNetworkFile unknown = tiny;
  unknown.description["field"]["layers"][1]["function"] = "swish";
  EXPECT_NE(error_text([&] { FieldNetwork(unknown, "unknown.wfield"); }).find("unknown activation 'swish'"),
            std::string::npos);
  FieldNetworkFile nan = tiny;
  nan.tensors["b1"].values[0] = std::nanf("");
  EXPECT_NE(
      error_text([&] { parse_field_network_file(serialize_field_network_file(nan), "nan.wfield"); }).find("not finite"),
      std::string::npos);
  EXPECT_NE(error_text([] { field_network_mesh_fields("model.pt", false); }).find("wobble fields export"),
            std::string::npos);
}

TEST(FieldNetwork, NeuralSubspaceSimulatesWithoutLibTorch) {
  const fs::path shape = fs::temp_directory_path() / "wobble_field_network_box.obj";
  const Mesh box = test::box_mesh(1.0f, 0.25f, 0.25f);
  write_obj(shape, box, box.positions);
  QuickSceneOptions q;
  q.settings.pin = "x<-0.9";
  q.settings.points = 200;
  q.settings.sample_grid = 12;
  q.field_source = field_network_mesh_fields({}, false);
  Scene scene = quick_scene(shape, q);
  fs::remove(shape);
  EXPECT_EQ(scene.world.body(0).handle_count(), 9);  // the shipped model's 8 fields and the constant
  const std::vector<Vec3d> rest = scene.positions(0);
  for (int f = 0; f < 30; ++f) scene.advance_frame();
  const std::vector<Vec3d> now = scene.positions(0);
  double free_end_drop = 0;
  for (std::size_t v = 0; v < now.size(); ++v) {
    ASSERT_TRUE(now[v].allFinite());
    if (rest[v].x() < -0.9) {
      EXPECT_LT((now[v] - rest[v]).norm(), 1e-9);
    }
    if (rest[v].x() > 0.9) free_end_drop = std::max(free_end_drop, rest[v].y() - now[v].y());
  }
  EXPECT_GT(free_end_drop, 0.01);  // gravity pulls the free end down
}
