// End-to-end: a tiny training run lowers the loss; inference gives finite fields, and the shipped
// model's fields on an unseen shape span a smoother subspace than the quadratic polynomials.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include <wobble/error.hpp>
#include <wobble/io/files.hpp>
#include <wobble/neural/field_metrics.hpp>
#include <wobble/neural/loss_plot.hpp>
#include <wobble/neural/neural_field.hpp>
#include <wobble/neural/polynomial_field.hpp>
#include <wobble/neural/shape_generator.hpp>
#include <wobble/neural/training.hpp>
#include "neural/training_config.hpp"
#include "tiny_training.hpp"

using namespace wobble;
using namespace wobble::neural;
using namespace wobble::fields;
namespace fs = std::filesystem;

namespace {

TrainingConfig tiny(const fs::path& output, int steps) {
  nlohmann::json j = {{"seed", 2},
                      {"steps", steps},
                      {"batch_points", 64},
                      {"z_samples", 4},
                      {"learning_rate", 3e-3},
                      {"min_learning_rate", 1e-3},
                      {"network", wobble::test::tiny_network()},
                      {"data", wobble::test::tiny_data(1, 1)},
                      {"losses", {{"blend_fraction", 0}}},
                      {"output", output.string()},
                      {"checkpoint_every", 10},
                      {"log_every", 5},
                      {"validate_every", 1000}};
  return TrainingConfig::from_json(j, "tiny.json");
}

double mean(const std::vector<double>& v, std::size_t first, std::size_t count) {
  double s = 0;
  for (std::size_t i = first; i < first + count; ++i) s += v[i];
  return s / static_cast<double>(count);
}

}  // namespace

TEST(NeuralTraining, TinyRunLowersTheLossAndResumes) {
  const fs::path dir = fs::temp_directory_path() / "wobble_neural_tiny";
  fs::remove_all(dir);
  const TrainingReport report = train_fields(tiny(dir, 60), false);
  ASSERT_TRUE(fs::exists(report.model));
  ASSERT_TRUE(fs::exists(report.plot));
  const LossCurves curves = read_loss_csv(report.csv, 1'000'000);
  const std::vector<double> total = curves.series("total");
  ASSERT_EQ(total.size(), 60u);
  EXPECT_LT(mean(total, 50, 10), 0.7 * mean(total, 0, 10));
  // Resume: 20 more steps continue from the checkpoint at step 60.
  const TrainingReport more = train_fields(tiny(dir, 80), true);
  EXPECT_EQ(read_loss_csv(more.csv, 1'000'000).steps().size(), 80u);
  // The trained model is a skinning field: finite values and gradients, constant column first.
  const NeuralFieldModel model(report.model);
  const Mesh shape = procedural_shape(ShapeKind::Blob, 99);
  const auto field = model.fields_for(shape);
  ASSERT_EQ(field->handle_count(), 5);
  std::vector<Vec3d> points{{0, 0, 0}, {0.3, -0.2, 0.1}, {-0.5, 0.5, 0.2}};
  const fields::FieldValues values = field->evaluate(points, true);
  EXPECT_TRUE(values.W.allFinite());
  EXPECT_TRUE(values.dW[0].allFinite() && values.dW[1].allFinite() && values.dW[2].allFinite());
  EXPECT_EQ(values.W.col(0), Eigen::VectorXd::Ones(3));
  // The field's gradient agrees with its own finite differences.
  const double h = 1e-3;
  for (int c = 0; c < 3; ++c) {
    std::vector<Vec3d> plus = points, minus = points;
    for (auto& p : plus) p[c] += h;
    for (auto& p : minus) p[c] -= h;
    const Eigen::MatrixXd fd = (field->evaluate(plus, false).W - field->evaluate(minus, false).W) / (2 * h);
    EXPECT_LT((fd - values.dW[c]).cwiseAbs().maxCoeff(), 2e-2 * (1 + fd.cwiseAbs().maxCoeff()));
  }
  fs::remove_all(dir);
}

TEST(NeuralTraining, BadConfigurationsNameTheProblem) {
  EXPECT_THROW(TrainingConfig::from_json({{"stepz", 3}}, "x.json"), Error);
  EXPECT_THROW(TrainingConfig::from_json({{"network", {{"width", 30}, {"heads", 4}}}}, "x.json"), Error);
  EXPECT_THROW(TrainingConfig::load("/nonexistent/config.json"), Error);
  try {  // the Rayleigh-Ritz losses need candidate fields
    TrainingConfig::from_json({{"losses", {{"kept_subspace", true}}}}, "kept.json");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("kept_subspace needs network.candidate_fields"), std::string::npos)
        << e.what();
  }
  try {
    TrainingConfig::from_json({{"losses", {{"eigen_span", true}, {"eigen_span_grid", 1}}}}, "span.json");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("eigen_span_grid must be 2 to 64 cells, not 1"), std::string::npos)
        << e.what();
  }
  try {
    TrainingConfig::from_json({{"losses", {{"poisson_ratio", 0.7}}}}, "bad.json");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("bad.json"), std::string::npos);
  }
}

TEST(NeuralTraining, OrthonormalOutputGivesOrthonormalFieldsOverTheCubaturePoints) {
  const fs::path dir = fs::temp_directory_path() / "wobble_neural_orthonormal";
  fs::remove_all(dir);
  TrainingConfig config = tiny(dir, 10);
  config.network["orthonormal_output"] = true;
  const TrainingReport report = train_fields(config, false);
  EXPECT_EQ(read_loss_csv(report.csv, 1'000'000).series("orthogonality"), std::vector<double>(10, 0.0));  // left out
  const NeuralFieldModel model(report.model);
  EXPECT_TRUE(model.network().at("orthonormal_output").get<bool>());  // saved with the model
  const ShapeSample sample = make_shape_sample(procedural_shape(ShapeKind::Tube, 7), "tube", ShapeSampleOptions{}, 3);
  const std::vector<Vec3d> cubature = cubature_points(sample);
  const Eigen::MatrixXd W = model.fields_for(sample)->evaluate(cubature, false).W;
  ASSERT_EQ(W.cols(), 5);
  EXPECT_EQ(W.col(0), Eigen::VectorXd::Ones(W.rows()));
  const Eigen::MatrixXd gram = W.transpose() * W / static_cast<double>(W.rows());
  EXPECT_LT((gram - Eigen::MatrixXd::Identity(5, 5)).cwiseAbs().maxCoeff(), 1e-4);
  fs::remove_all(dir);
}

// The shipped model's subspace on an unseen shape is smoother than the shape-agnostic quadratic
// polynomials (0.65 of their Dirichlet trace when written), and training has not made it rougher than the same network untrained.
// (It is not smoother than untrained either: with 64 candidates and the Rayleigh-Ritz output the
// architecture gives that smoothness by itself; docs/neural.md, "The shipped model".)
TEST(NeuralInference, ShippedModelSpansASmootherSubspaceThanQuadraticsOnAnUnseenShape) {
  const fs::path shipped = fs::path(WOBBLE_SOURCE_DIR) / "models/physskin_small.pt";
  if (!fs::exists(shipped)) GTEST_SKIP() << "no shipped model at " << shipped;
  const NeuralFieldModel model(shipped);
  // An untrained network of the same sizes and output: a 1-step run at a vanishing learning rate.
  const fs::path dir = fs::temp_directory_path() / "wobble_neural_untrained";
  nlohmann::json j = {{"steps", 1},
                      {"learning_rate", 1e-12},
                      {"min_learning_rate", 1e-12},
                      {"network", model.network()},
                      {"data", {{"procedural_shapes", 1}, {"validation_procedural", 0}}},
                      {"output", dir.string()},
                      {"validate_every", 0}};
  const NeuralFieldModel untrained(train_fields(TrainingConfig::from_json(j, "untrained.json"), false).model);
  // Validation seeds are never drawn in training (they start at 1e9).
  const Mesh shape = procedural_shape(1'000'000'123ull);
  const ShapeSample sample = make_shape_sample(shape, "unseen", ShapeSampleOptions{}, 3);
  const std::vector<Vec3d> points = cubature_points(sample);
  // The Dirichlet trace judges the subspace, whatever basis the network's output layer picks.
  auto roughness = [&](const NeuralFieldModel& m) {
    const fields::FieldValues v = m.fields_for(sample)->evaluate(points, true);
    EXPECT_TRUE(v.W.allFinite());
    return dirichlet_trace(v, sample.volumes.cast<double>());
  };
  const double trained = roughness(model), initial = roughness(untrained);
  const double quadratic =
      dirichlet_trace(QuadraticPolynomialField().evaluate(points, true), sample.volumes.cast<double>());
  EXPECT_LT(trained, 0.8 * quadratic) << "trained " << trained << ", quadratic polynomials " << quadratic;
  EXPECT_LT(trained, 1.05 * initial) << "trained " << trained << ", untrained " << initial;
  std::printf("Dirichlet trace on an unseen shape: shipped %.1f, untrained %.1f, quadratic polynomials %.1f\n", trained,
              initial, quadratic);
  // Orthonormal over the cubature points, the fields stay well conditioned at the surface.
  std::vector<Vec3d> surface;
  for (Eigen::Index p = 0; p < sample.surface.rows(); ++p)
    surface.push_back(sample.surface.row(p).head<3>().transpose().cast<double>());
  const FieldMetrics metrics = field_metrics(model.fields_for(sample)->evaluate(surface, false).W);
  EXPECT_LT(metrics.log_condition, 5);
  fs::remove_all(dir);
}

TEST(NeuralTraining, RigComplementaryLossFalls) {
  const fs::path rig = fs::path(WOBBLE_SHARED_ASSETS) / "characters/RiggedSimple/RiggedSimple.gltf";
  if (!fs::exists(rig)) GTEST_SKIP() << "no " << rig;
  const fs::path dir = fs::temp_directory_path() / "wobble_neural_rig";
  fs::remove_all(dir);
  TrainingConfig config = tiny(dir, 60);
  config.rig = rig;
  config.losses.smooth = config.losses.potential = false;  // complementarity against orthogonality only
  const TrainingReport report = train_fields(config, false);
  const std::vector<double> comp = read_loss_csv(report.csv, 1'000'000).series("complementarity");
  ASSERT_EQ(comp.size(), 60u);
  EXPECT_LT(mean(comp, 50, 10), 0.5 * mean(comp, 0, 10));
  fs::remove_all(dir);
}

// The span loss alone (no physics losses) trains the fields towards the shapes' eigenmodes: the
// share of the targets outside the fields' span falls.
TEST(NeuralTraining, EigenmodeSpanLossFalls) {
  const fs::path dir = fs::temp_directory_path() / "wobble_neural_span";
  fs::remove_all(dir);
  TrainingConfig config = tiny(dir, 60);
  config.losses.smooth = config.losses.potential = config.losses.config = false;
  config.losses.orthogonality = false;  // weighted 100, it would outweigh the span loss
  config.losses.eigen_span = true;
  config.losses.eigen_span_grid = 10;
  const TrainingReport report = train_fields(config, false);
  const std::vector<double> span = read_loss_csv(report.csv, 1'000'000).series("eigen_span");
  ASSERT_EQ(span.size(), 60u);
  EXPECT_GT(mean(span, 0, 10), 0.05);  // the untrained fields miss part of the eigenmodes
  EXPECT_LT(mean(span, 50, 10), 0.7 * mean(span, 0, 10));
  fs::remove_all(dir);
}

// The compliance loss alone trains the fields to give way to its loads: -log of the compliance falls.
TEST(NeuralTraining, ComplianceLossFalls) {
  const fs::path dir = fs::temp_directory_path() / "wobble_neural_compliance";
  fs::remove_all(dir);
  TrainingConfig config = tiny(dir, 40);
  config.losses.smooth = config.losses.potential = config.losses.config = false;
  config.losses.orthogonality = false;
  config.losses.compliance = true;
  const TrainingReport report = train_fields(config, false);
  const std::vector<double> loss = read_loss_csv(report.csv, 1'000'000).series("compliance");
  ASSERT_EQ(loss.size(), 40u);
  EXPECT_LT(mean(loss, 30, 10), mean(loss, 0, 10) - 0.5);  // the compliance up by more than 1.6x
  fs::remove_all(dir);
}

// A checkpoint's run record written before a setting existed lacks it: the run resumes while the
// configuration leaves that setting at its default, and is refused, naming it, when it does not.
TEST(NeuralTraining, ResumeTakesARecordWithoutANewerSettingLeftAtItsDefault) {
  TrainingConfig config = tiny(fs::temp_directory_path() / "wobble_neural_record", 10);
  nlohmann::json record = run_identity(config);
  record["losses"].erase("eigen_span");  // as written before the span loss
  const nlohmann::json metadata = {{"run", record}};
  EXPECT_NO_THROW(check_same_run(metadata, config, "old.pt"));
  config.losses.eigen_span = true;
  try {
    check_same_run(metadata, config, "old.pt");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("losses.eigen_span is true in the configuration, absent in the run"),
              std::string::npos)
        << e.what();
  }
  config.losses.eigen_span = false;
  config.losses.weight_smooth = 3;  // a setting the record has still differs
  EXPECT_THROW(check_same_run(metadata, config, "old.pt"), Error);
}

TEST(NeuralTraining, CorpusFilesAddTrainingAndValidationMeshes) {
  const fs::path dir = fs::temp_directory_path() / "wobble_neural_corpus";
  fs::create_directories(dir / "lists");
  std::ofstream(dir / "lists/corpus.json") << R"({"train": ["../a.off", "/abs/b.off"], "validation": ["c.off"]})";
  const TrainingConfig c = TrainingConfig::from_json(
      {{"data", {{"real_train", {"x.off"}}, {"corpus", "lists/corpus.json"}}}}, dir / "config.json");
  ASSERT_EQ(c.real_train.size(), 3u);
  EXPECT_EQ(c.real_train[0], dir / "x.off");
  EXPECT_EQ(c.real_train[1].lexically_normal(), (dir / "a.off").lexically_normal());  // relative to the corpus file
  EXPECT_EQ(c.real_train[2], fs::path("/abs/b.off"));
  ASSERT_EQ(c.real_validation.size(), 1u);
  EXPECT_EQ(c.real_validation[0], dir / "lists/c.off");
  // A mesh in both splits, an unknown key and a missing file are errors that name the problem.
  std::ofstream(dir / "lists/overlap.json") << R"({"train": ["c.off"], "validation": ["c.off"]})";
  std::ofstream(dir / "lists/typo.json") << R"({"trian": []})";
  for (const char* bad : {"lists/overlap.json", "lists/typo.json", "lists/missing.json"}) {
    try {
      TrainingConfig::from_json({{"data", {{"corpus", bad}}}}, dir / "config.json");
      ADD_FAILURE() << bad << " was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(
                    fs::path(bad).filename().string() == "overlap.json" ? "both" : fs::path(bad).filename().string()),
                std::string::npos)
          << e.what();
    }
  }
  fs::remove_all(dir);
}
