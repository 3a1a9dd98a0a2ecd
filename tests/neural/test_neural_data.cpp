// Procedural shapes, shape samples, metrics, the .npy writer and the loss plot.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>

#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <wobble/error.hpp>
#include <wobble/neural/field_metrics.hpp>
#include <wobble/neural/loss_plot.hpp>
#include <wobble/neural/npy_writer.hpp>
#include <wobble/neural/shape_generator.hpp>
#include <wobble/fields/field_network.hpp>
#include <wobble/fields/shape_sample.hpp>

#include "neural/training_shapes.hpp"

using namespace wobble;
using namespace wobble::neural;
using namespace wobble::fields;

namespace {

double signed_volume(const Mesh& mesh) {
  double v = 0;
  for (const Triangle& t : mesh.triangles) {
    const Eigen::Vector3d a = mesh.positions[t[0]].cast<double>(), b = mesh.positions[t[1]].cast<double>(),
                          c = mesh.positions[t[2]].cast<double>();
    v += a.dot(b.cross(c)) / 6;
  }
  return v;
}

}  // namespace

TEST(NeuralShapes, EveryKindIsClosedAndOutwardOriented) {
  for (int kind = 0; kind < kShapeKindCount; ++kind)
    for (std::uint64_t seed = 0; seed < 4; ++seed) {
      const Mesh mesh = procedural_shape(static_cast<ShapeKind>(kind), seed);
      // Closed: every directed edge has its reverse exactly once.
      std::map<std::pair<std::uint32_t, std::uint32_t>, int> edges;
      for (const Triangle& t : mesh.triangles)
        for (int k = 0; k < 3; ++k) ++edges[{t[k], t[(k + 1) % 3]}];
      for (const auto& [edge, count] : edges) {
        ASSERT_EQ(count, 1) << to_string(static_cast<ShapeKind>(kind)) << " seed " << seed;
        ASSERT_EQ(edges.count({edge.second, edge.first}), 1u);
      }
      EXPECT_GT(signed_volume(mesh), 0) << to_string(static_cast<ShapeKind>(kind)) << " seed " << seed;
      // Deterministic for a seed.
      EXPECT_EQ(procedural_shape(static_cast<ShapeKind>(kind), seed).positions, mesh.positions);
    }
}

TEST(NeuralShapes, SampleIsNormalisedWithUnitNormals) {
  const ShapeSample s = make_shape_sample(procedural_shape(ShapeKind::Tube, 3), "tube", ShapeSampleOptions{}, 1);
  ASSERT_EQ(s.surface.rows(), 1024);
  ASSERT_GT(s.cubature.rows(), 100);
  EXPECT_LE(s.surface.leftCols(3).cwiseAbs().maxCoeff(), 1.0f + 1e-4f);
  EXPECT_NEAR(
      s.surface.leftCols(3).colwise().maxCoeff().maxCoeff() - s.surface.leftCols(3).colwise().minCoeff().minCoeff(),
      2.0, 0.05);
  for (Eigen::Index r = 0; r < s.surface.rows(); ++r) EXPECT_NEAR(s.surface.row(r).rightCols(3).norm(), 1.0f, 1e-4f);
  EXPECT_LE(s.cubature.cwiseAbs().maxCoeff(), 1.0f + 1e-3f);
  EXPECT_GT(s.volumes.sum(), 0);
}

TEST(NeuralMetrics, ClosedForms) {
  // Orthogonal columns of different lengths: perfect scores.
  Eigen::MatrixXd W(4, 2);
  W << 1, 2, 1, -2, 1, 2, 1, -2;
  FieldMetrics m = field_metrics(W);
  EXPECT_NEAR(m.orthogonality, 0, 1e-12);
  EXPECT_NEAR(m.log_condition, 1, 1e-12);
  EXPECT_NEAR(m.spectral_entropy, 1, 1e-12);
  // Columns at 60 degrees: cos = 1/2, Omega = 2 (1/2)^2 / 2, eigenvalues 3/2 and 1/2.
  Eigen::MatrixXd V(2, 2);
  V << 1, 0.5, 0, std::sqrt(0.75);
  m = field_metrics(V);
  EXPECT_NEAR(m.orthogonality, 0.25, 1e-12);
  EXPECT_NEAR(m.log_condition, std::log2(1 + 3.0), 1e-12);
  const double p = 0.75, q = 0.25;
  EXPECT_NEAR(m.spectral_entropy, -(p * std::log(p) + q * std::log(q)) / std::log(2.0), 1e-12);
  // Identical columns: singular.
  Eigen::MatrixXd S(3, 2);
  S << 1, 1, 2, 2, 3, 3;
  m = field_metrics(S);
  EXPECT_NEAR(m.orthogonality, 1, 1e-12);
  EXPECT_TRUE(std::isinf(m.log_condition));
  EXPECT_NEAR(m.spectral_entropy, 0, 1e-9);
  EXPECT_THROW(field_metrics(Eigen::MatrixXd::Ones(3, 1)), Error);
}

TEST(NeuralMetrics, DirichletTraceIsTheInverseVarianceOfALinearFieldAndBasisFree) {
  // Fields 1 and x at points x_p with volumes v_p: D = diag(0, sum v), and trace(G^-1 D) works out
  // to 1 / Var_v(x), the volume-weighted variance of x.
  const int n = 7;
  fields::FieldValues f;
  f.W.resize(n, 2);
  for (auto& g : f.dW) g.setZero(n, 2);
  Eigen::VectorXd volumes(n);
  for (int p = 0; p < n; ++p) {
    const double x = 0.3 * p * p - 1;
    f.W.row(p) << 1, x;
    f.dW[0](p, 1) = 1;
    volumes[p] = 0.5 + 0.1 * p;
  }
  const double mass = volumes.sum(), mean = volumes.dot(f.W.col(1)) / mass;
  const double variance = volumes.dot((f.W.col(1).array() - mean).square().matrix()) / mass;
  EXPECT_NEAR(dirichlet_trace(f, volumes), 1 / variance, 1e-10);
  // Any invertible recombination of the fields spans the same subspace: the same trace.
  Eigen::Matrix2d A;
  A << 2, -1, 0.5, 3;
  fields::FieldValues g{f.W * A, {f.dW[0] * A, f.dW[1] * A, f.dW[2] * A}};
  EXPECT_NEAR(dirichlet_trace(g, volumes), 1 / variance, 1e-10);
  // Dependent fields: infinite.
  g.W.col(1) = 2 * g.W.col(0);
  EXPECT_TRUE(std::isinf(dirichlet_trace(g, volumes)));
}

namespace {

// `wobble fields metrics --fidelity --json` on the cactus with the untrained shipped network and
// `flags`: its rows (empty when the command fails).
nlohmann::json cactus_fidelity_rows(const std::string& flags) {
  // A file of this process's own: ctest runs the tests that call this in parallel processes.
  const std::filesystem::path out =
      std::filesystem::temp_directory_path() / ("wobble_metrics_fidelity_" + std::to_string(::getpid()) + ".json");
  std::string command = WOBBLE_CLI;
  command += " fields metrics --fidelity --fidelity-grid 12 --baseline-steps 0 --json --model \"";
  command += std::string(WOBBLE_SOURCE_DIR) + "/models/physskin_small_untrained.wfield\" \"";
  command += std::string(WOBBLE_SHARED_ASSETS) + "/shapes/cactus.off\" " + flags;
  command += " > \"" + out.string() + "\" 2> /dev/null";
  const bool ran = std::system(command.c_str()) == 0;
  nlohmann::json rows;
  if (ran) rows = nlohmann::json::parse(std::ifstream(out));
  std::filesystem::remove(out);
  return rows;
}

const nlohmann::json& row_of(const nlohmann::json& rows, const std::string& method) {
  for (const nlohmann::json& row : rows)
    if (row["method"] == method) return row;
  throw std::runtime_error("no row " + method);
}

}  // namespace

TEST(NeuralMetrics, FidelityTakesThePinBlendAndTheEigenmodeCount) {
  const nlohmann::json plain = cactus_fidelity_rows("");
  const nlohmann::json changed = cactus_fidelity_rows("--pin-blend 0.6 --eigenmodes 3");
  ASSERT_EQ(plain.size(), 3u);
  ASSERT_EQ(changed.size(), 3u);
  // The full-space reference does not depend on the subspace's settings.
  EXPECT_EQ(plain[0]["tet_nodes"], changed[0]["tet_nodes"]);
  EXPECT_EQ(plain[0]["full_frequencies"], changed[0]["full_frequencies"]);
  // The pins' blend reaches the subspace: the same network's sag error moves.
  const double sag_plain = row_of(plain, "neural (feed-forward)")["sag_error"];
  const double sag_changed = row_of(changed, "neural (feed-forward)")["sag_error"];
  EXPECT_GT(std::abs(sag_plain - sag_changed), 1e-3 * sag_plain);
  // --eigenmodes sets the baseline's fields (the constant on top), not the network's; its
  // quality ratio is against its own bound, so at least 1 on this connected shape (Ky Fan).
  EXPECT_EQ(row_of(plain, "skinning eigenmodes")["fields"], 9);
  EXPECT_EQ(row_of(changed, "skinning eigenmodes")["fields"], 4);
  EXPECT_EQ(row_of(changed, "neural (feed-forward)")["fields"], 9);
  EXPECT_GE(row_of(changed, "skinning eigenmodes")["quality_ratio"].get<double>(), 1.0);
  EXPECT_TRUE(cactus_fidelity_rows("--pin-blend 2abc").empty());
  EXPECT_TRUE(cactus_fidelity_rows("--eigenmodes 0").empty());
}

TEST(NeuralMetrics, CandidateRowsContainTheSelectionAndTheProjectedEigenmodes) {
  const nlohmann::json rows = cactus_fidelity_rows("--candidates");
  ASSERT_EQ(rows.size(), 5u);
  const nlohmann::json& all = row_of(rows, "neural candidates (all)");
  const auto network =
      fields::FieldNetwork::load(std::string(WOBBLE_SOURCE_DIR) + "/models/physskin_small_untrained.wfield");
  EXPECT_EQ(all["fields"], network->raw_field_count() + 1);
  EXPECT_EQ(row_of(rows, "eigenmodes in candidate span")["fields"], 9);
  // The selected fields and the projected eigenmodes are combinations of the candidates, so their
  // subspaces lie in the candidates' one: each of its frequencies is at most theirs (Courant-Fischer).
  for (const char* inside : {"neural (feed-forward)", "eigenmodes in candidate span"}) {
    const nlohmann::json& errors = row_of(rows, inside)["frequency_errors"];
    ASSERT_EQ(errors.size(), all["frequency_errors"].size());
    for (std::size_t k = 0; k < errors.size(); ++k)
      EXPECT_LE(all["frequency_errors"][k].get<double>(), errors[k].get<double>() + 1e-9) << inside << " " << k;
  }
  std::string alone = WOBBLE_CLI;
  alone += " fields metrics --candidates \"";
  alone += std::string(WOBBLE_SHARED_ASSETS) + "/shapes/cactus.off\" > /dev/null 2>&1";
  EXPECT_NE(std::system(alone.c_str()), 0);  // --candidates needs --fidelity
}

TEST(NeuralNpy, HeaderAndDataFollowTheFormat) {
  Eigen::MatrixXd values(3, 2);
  values << 1, 2, 3, 4, 5, 6.5;
  const auto file = std::filesystem::temp_directory_path() / "wobble_test.npy";
  write_npy(file, values);
  std::ifstream in(file, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GE(bytes.size(), 10u);
  EXPECT_EQ(std::string(bytes.data(), 6), "\x93NUMPY");
  EXPECT_EQ(bytes[6], 1);
  EXPECT_EQ(bytes[7], 0);
  const std::size_t header_length = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
  EXPECT_EQ((10 + header_length) % 64, 0u);
  const std::string header(bytes.data() + 10, header_length);
  EXPECT_NE(header.find("'descr': '<f4'"), std::string::npos);
  EXPECT_NE(header.find("'fortran_order': False"), std::string::npos);
  EXPECT_NE(header.find("'shape': (3, 2)"), std::string::npos);
  EXPECT_EQ(header.back(), '\n');
  ASSERT_EQ(bytes.size(), 10 + header_length + 6 * sizeof(float));
  float data[6];
  std::memcpy(data, bytes.data() + 10 + header_length, sizeof(data));
  EXPECT_EQ(data[1], 2.0f);  // C order: row 0 first
  EXPECT_EQ(data[2], 3.0f);
  EXPECT_EQ(data[5], 6.5f);
  std::filesystem::remove(file);
}

TEST(NeuralLossCurves, CsvRoundTripAndPlot) {
  LossCurves curves;
  for (int s = 1; s <= 20; ++s) curves.add(s, {{"total", 10.0 / s}, {"validation", s % 5 ? std::nan("") : 12.0 / s}});
  const auto dir = std::filesystem::temp_directory_path();
  curves.write_csv(dir / "wobble_losses.csv");
  const LossCurves back = read_loss_csv(dir / "wobble_losses.csv", 10);
  ASSERT_EQ(back.steps().size(), 10u);
  EXPECT_NEAR(back.series("total")[3], 10.0 / 4, 1e-9);
  EXPECT_TRUE(std::isnan(back.series("validation")[3]));
  EXPECT_NEAR(back.series("validation")[4], 12.0 / 5, 1e-9);
  curves.write_plot(dir / "wobble_losses.png", {"total", "validation"});
  std::ifstream png(dir / "wobble_losses.png", std::ios::binary);
  char magic[8];
  png.read(magic, 8);
  EXPECT_EQ(std::string(magic + 1, 3), "PNG");
}

TEST(NeuralLossCurves, ACellThatIsNotANumberIsAnErrorNamingItsPlace) {
  const auto file = std::filesystem::temp_directory_path() / "wobble_bad_losses.csv";
  std::ofstream(file) << "step,total,validation\n1,2.5,\n2,2abc,1\n";
  try {
    read_loss_csv(file, 10);
    ADD_FAILURE() << "'2abc' was read as a number";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("wobble_bad_losses.csv: line 3, column 'total': '2abc' is not a number"),
              std::string::npos)
        << e.what();
  }
  std::filesystem::remove(file);
}

// `wobble fields plot`: a run's curves as a PNG of the asked size; a missing column is an error.
TEST(NeuralLossCurves, PlotCommandDrawsTheCsvsCurves) {
  const auto dir = std::filesystem::temp_directory_path();
  LossCurves curves;
  for (int s = 1; s <= 30; ++s)
    curves.add(s, {{"lr", 1e-3}, {"smooth", 100.0 / s}, {"validation_quality", 3.0 - s / 30.0}});
  curves.write_csv(dir / "wobble_plot_losses.csv");
  const std::string cli = WOBBLE_CLI, csv = (dir / "wobble_plot_losses.csv").string(),
                    png = (dir / "wobble_plot.png").string();
  std::filesystem::remove(png);
  ASSERT_EQ(std::system((cli + " fields plot " + csv + " -o " + png + " --width 400 --height 300 > /dev/null").c_str()),
            0);
  std::ifstream in(png, std::ios::binary);
  unsigned char header[24] = {};
  in.read(reinterpret_cast<char*>(header), 24);
  ASSERT_EQ(std::string(reinterpret_cast<char*>(header) + 1, 3), "PNG");
  const auto big_endian = [&](int at) {
    return header[at] << 24 | header[at + 1] << 16 | header[at + 2] << 8 | header[at + 3];
  };
  EXPECT_EQ(big_endian(16), 400);  // IHDR width
  EXPECT_EQ(big_endian(20), 300);  // and height
  EXPECT_NE(std::system((cli + " fields plot " + csv + " -o " + png + " --series orthogonality 2> /dev/null").c_str()),
            0);
  std::filesystem::remove(csv);
  std::filesystem::remove(png);
}

TEST(NeuralShapes, AugmentedCopiesStayInTheNormalisedFrameWithConsistentVolumesAndNormals) {
  const Mesh mesh = procedural_shape(ShapeKind::Tube, 5);
  const ShapeSample sample = make_shape_sample(mesh, "tube", ShapeSampleOptions{}, 2);
  const ShapeTensors shape(sample, mesh);
  // Rotations keep every distance; a stretch by (a, b, c) scales volumes by abc; both then get the
  // frame's uniform rescaling, which shows in the surface points' mutual distances.
  fields::Random random(9);
  for (int k = 0; k < 6; ++k) {
    const bool stretch = k % 2 == 1;
    const ShapeTensors t = augmented(shape, random, true, stretch ? 1.8 : 1.0);
    const torch::Tensor low = std::get<0>(t.vertices.min(0)), high = std::get<0>(t.vertices.max(0));
    EXPECT_NEAR((high - low).max().item<double>(), 2.0, 1e-5);                                // longest side 2
    EXPECT_LT((low + high).abs().max().item<double>(), 1e-5);                                 // centred
    EXPECT_LT(((t.surface.slice(1, 3, 6).norm(2, 1)) - 1).abs().max().item<double>(), 1e-5);  // unit normals
    const double scale = (t.surface[1].slice(0, 0, 3) - t.surface[0].slice(0, 0, 3)).norm().item<double>() /
                         (shape.surface[1].slice(0, 0, 3) - shape.surface[0].slice(0, 0, 3)).norm().item<double>();
    const double volume_ratio = t.volumes.sum().item<double>() / shape.volumes.sum().item<double>();
    if (!stretch) {
      EXPECT_NEAR(volume_ratio, std::pow(scale, 3), 1e-4 * volume_ratio);
    }
    // Normals stay perpendicular to the surface: the rotated tangent of a triangle of the cloud
    // is not known here, so check the map instead: n' is parallel to A^-T n for the affine map A
    // that takes the original cubature points to the new ones (least squares, exact here).
    const torch::Tensor P = torch::cat({shape.cubature, torch::ones({shape.cubature.size(0), 1})}, 1);
    const torch::Tensor A = std::get<0>(torch::linalg_lstsq(P, t.cubature, {}, {})).slice(0, 0, 3).t();  // 3 x 3
    const torch::Tensor expected = torch::mm(shape.surface.slice(1, 3, 6), torch::linalg::inv(A));  // rows: n^T A^-1
    const torch::Tensor cosine = (expected / expected.norm(2, 1, true) * t.surface.slice(1, 3, 6)).sum(1);
    EXPECT_GT(cosine.min().item<double>(), 1 - 1e-4);
    EXPECT_NEAR(volume_ratio, std::abs(torch::linalg::det(A).item<double>()), 1e-3 * volume_ratio);
  }
}

TEST(NeuralShapes, ResampledDrawsSeeNewPointsOfTheSameShapeAndFixedDrawsRepeat) {
  const nlohmann::json data = {
      {"procedural_shapes", 0},
      {"validation_procedural", 0},
      {"real_train", {(std::filesystem::path(WOBBLE_SHARED_ASSETS) / "shapes/helmet.off").string()}},
      {"cubature_points", 300},
      {"surface_points", 256}};
  const TrainingConfig fixed_config = TrainingConfig::from_json({{"data", data}}, "fixed.json");
  nlohmann::json resampling = data;
  resampling["resample_points"] = true;
  const TrainingConfig resample_config = TrainingConfig::from_json({{"data", resampling}}, "resample.json");
  ASSERT_FALSE(fixed_config.resample_points);
  ASSERT_TRUE(resample_config.resample_points);
  const TrainingShapes fixed(fixed_config), resampled(resample_config);
  auto draw = [](const TrainingShapes& shapes, int step) {
    ItemRandom item(1, step, 0);
    return shapes.draw(item.random);
  };

  EXPECT_TRUE(torch::equal(draw(fixed, 0).cubature, draw(fixed, 1).cubature));  // one quadrature for every step
  const ShapeTensors a = draw(resampled, 0), b = draw(resampled, 1);
  EXPECT_TRUE(torch::equal(a.cubature, draw(resampled, 0).cubature));  // a function of the draw's seed (ranks agree)
  ASSERT_EQ(a.cubature.sizes(), b.cubature.sizes());
  EXPECT_GT((a.cubature - b.cubature).abs().max().item<double>(), 1e-2);  // new points ...
  // ... of the same solid: the same frame (the vertices) and nearly the same volume.
  EXPECT_TRUE(torch::equal(a.vertices, b.vertices));
  const double volume_a = a.volumes.sum().item<double>(), volume_b = b.volumes.sum().item<double>();
  EXPECT_NEAR(volume_a, volume_b, 0.05 * volume_a);
  const torch::Tensor low = std::get<0>(a.vertices.min(0)) - 1e-3, high = std::get<0>(a.vertices.max(0)) + 1e-3;
  EXPECT_TRUE(((b.cubature >= low) & (b.cubature <= high)).all().item<bool>());
}
