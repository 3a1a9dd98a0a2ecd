// Skinning decomposition on procedural animations whose bones are known.
#include <cmath>
#include <random>
#include <set>

#include <gtest/gtest.h>

#include <wobble/error.hpp>
#include <wobble/offline/skinning_decomposition.hpp>
#include <wobble/parallel.hpp>

namespace wobble {
namespace {

// A tube along y of `rings` rings of `around` vertices, height 3 (one unit a segment of bones).
Mesh tube(int rings, int around) {
  Mesh mesh;
  for (int r = 0; r < rings; ++r)
    for (int a = 0; a < around; ++a) {
      const double angle = 2 * M_PI * a / around;
      mesh.positions.emplace_back(0.3f * std::cos(angle), 3.0f * r / (rings - 1), 0.3f * std::sin(angle));
    }
  for (int r = 0; r + 1 < rings; ++r)
    for (int a = 0; a < around; ++a) {
      const auto v = [&](int rr, int aa) { return static_cast<std::uint32_t>(rr * around + (aa % around)); };
      mesh.triangles.push_back({v(r, a), v(r + 1, a), v(r + 1, a + 1)});
      mesh.triangles.push_back({v(r, a), v(r + 1, a + 1), v(r, a + 1)});
    }
  return mesh;
}

BoneTransform random_rigid(std::mt19937& random) {
  std::normal_distribution<double> normal;
  const Eigen::Quaterniond q(normal(random), normal(random), normal(random), normal(random));
  BoneTransform m;
  m.leftCols<3>() = q.normalized().toRotationMatrix();
  m.col(3) = Eigen::Vector3d(normal(random), normal(random), normal(random));
  return m;
}

struct KnownAnimation {
  Mesh mesh;
  std::vector<std::vector<BoneTransform>> bones;  // [frame][bone]
  std::vector<std::vector<Vec3f>> frames;
  std::vector<int> segment;  // the bone of each vertex (hard assignment)
};

// Each third of the tube on its own random rigid bone in every frame.
KnownAnimation rigid_segments(int frames, unsigned seed) {
  KnownAnimation a;
  a.mesh = tube(13, 8);
  std::mt19937 random(seed);
  for (const Vec3f& p : a.mesh.positions) a.segment.push_back(std::min(2, static_cast<int>(p.y())));
  for (int f = 0; f < frames; ++f) {
    a.bones.push_back({random_rigid(random), random_rigid(random), random_rigid(random)});
    std::vector<Vec3f> frame;
    for (std::size_t v = 0; v < a.mesh.vertex_count(); ++v) {
      const Eigen::Vector4d p(a.mesh.positions[v].x(), a.mesh.positions[v].y(), a.mesh.positions[v].z(), 1.0);
      frame.push_back((a.bones[f][a.segment[v]] * p).cast<float>());
    }
    a.frames.push_back(frame);
  }
  return a;
}

DecompositionInput input_of(const KnownAnimation& a) {
  DecompositionInput input;
  input.rest = a.mesh.positions;
  input.triangles = a.mesh.triangles;
  input.frames = a.frames;
  return input;
}

// A tube bent by two blended bones (the upper one turned about the middle by up to about 60
// degrees): no rigid fit is exact, so the error falls over several iterations.
KnownAnimation bent_tube() {
  KnownAnimation a;
  a.mesh = tube(13, 8);
  for (int f = 0; f < 30; ++f) {
    const double angle = 1.0 * std::sin(0.3 * f);
    BoneTransform lower = BoneTransform::Identity(), upper;
    const Eigen::Matrix3d turn = Eigen::AngleAxisd(angle, Eigen::Vector3d::UnitZ()).toRotationMatrix();
    upper.leftCols<3>() = turn;
    upper.col(3) = Eigen::Vector3d(0, 1.5, 0) - turn * Eigen::Vector3d(0, 1.5, 0);
    std::vector<Vec3f> frame;
    for (const Vec3f& p : a.mesh.positions) {
      const double w = std::clamp((p.y() - 1.0) / 1.0, 0.0, 1.0);
      const Eigen::Vector4d q(p.x(), p.y(), p.z(), 1.0);
      frame.push_back(((1 - w) * (lower * q) + w * (upper * q)).cast<float>());
    }
    a.frames.push_back(frame);
  }
  return a;
}

// Three bones, two influences, run to convergence (no smoothing, no error target: the default
// stops at 1e-3 of the size).
DecompositionParameters three_segment_parameters() {
  return {.bones = 3, .influences = 2, .target_error = 0, .smoothness = 0};
}

TEST(SkinningDecomposition, RecoversRigidSegmentsExactly) {
  const KnownAnimation a = rigid_segments(20, 7);
  const Decomposition result = decompose(input_of(a), three_segment_parameters());
  EXPECT_LT(result.rmse, 1e-5 * a.mesh.size());
  // Each segment found as one bone: the vertices' dominant bones partition them as the segments do.
  std::set<std::pair<int, std::uint32_t>> pairs;
  for (std::size_t v = 0; v < a.mesh.vertex_count(); ++v) {
    const auto bones = result.weights.joints_of(v);
    const auto weights = result.weights.weights_of(v);
    const std::size_t best = std::max_element(weights.begin(), weights.end()) - weights.begin();
    EXPECT_NEAR(weights[best], 1.0f, 1e-4f) << "vertex " << v;
    pairs.insert({a.segment[v], bones[best]});
  }
  EXPECT_EQ(pairs.size(), 3u);  // a one-to-one map between segments and bones
  // And each bone's transforms are its segment's.
  for (const auto& [segment, bone] : pairs)
    for (std::size_t f = 0; f < a.frames.size(); ++f)
      EXPECT_LT((result.transforms[f][bone] - a.bones[f][segment]).norm(), 1e-4) << "frame " << f;
}

// Smooth blending between two bones (weights linear in height): the model the decomposition fits.
TEST(SkinningDecomposition, FitsBlendedBonesWithConvexWeights) {
  const KnownAnimation a = bent_tube();
  DecompositionParameters parameters;
  parameters.bones = 2;
  parameters.influences = 2;
  const Decomposition result = decompose(input_of(a), parameters);
  EXPECT_LT(result.rmse, 2e-3 * a.mesh.size());
  for (std::size_t v = 0; v < a.mesh.vertex_count(); ++v) {
    float sum = 0;
    for (float w : result.weights.weights_of(v)) {
      EXPECT_GE(w, 0.0f);
      sum += w;
    }
    EXPECT_NEAR(sum, 1.0f, 1e-5f);
    EXPECT_LE(result.weights.joints_of(v).size(), 2u);
  }
  // Without the smoothness term (which trades error for smooth weights) and with every bone
  // allowed (nothing cut to K), each update is exact for its half: the error never grows.
  parameters.smoothness = 0;
  const Decomposition exact = decompose(input_of(a), parameters);
  for (std::size_t k = 1; k < exact.rmse_history.size(); ++k)
    EXPECT_LE(exact.rmse_history[k], exact.rmse_history[k - 1] * (1 + 1e-9) + 1e-12) << "iteration " << k;
}

// The error target stops the fit at the first iteration whose RMSE is within it (a fraction of
// the rest diagonal), with the same history up to there as a fit without it. On the bent tube,
// whose error falls over several iterations far above rounding (an exact fit's history is
// rounding noise, ordered differently on each processor).
TEST(SkinningDecomposition, StopsAtTheFirstIterationWithinTheTargetError) {
  const KnownAnimation a = bent_tube();
  DecompositionParameters parameters{.bones = 2, .influences = 2, .target_error = 0};
  const Decomposition converged = decompose(input_of(a), parameters);
  ASSERT_GE(converged.rmse_history.size(), 3u);
  // A target between the first and the second iteration's errors: two iterations exactly.
  const double size =
      Eigen::AlignedBox3d(a.mesh.bounds().min().cast<double>(), a.mesh.bounds().max().cast<double>()).diagonal().norm();
  ASSERT_GT(converged.rmse_history[0], 1e-4 * size);
  ASSERT_LT(converged.rmse_history[1], 0.9 * converged.rmse_history[0]);
  parameters.target_error = std::sqrt(converged.rmse_history[0] * converged.rmse_history[1]) / size;
  const Decomposition stopped = decompose(input_of(a), parameters);
  EXPECT_EQ(stopped.iterations, 2u);
  EXPECT_EQ(stopped.rmse_history,
            std::vector<double>(converged.rmse_history.begin(), converged.rmse_history.begin() + 2));
}

TEST(SkinningDecomposition, InfluencesAreAtMostK) {
  const KnownAnimation a = rigid_segments(10, 11);
  DecompositionParameters parameters;
  parameters.bones = 6;
  parameters.influences = 1;
  parameters.target_error = 0;
  const Decomposition result = decompose(input_of(a), parameters);
  for (std::size_t v = 0; v < a.mesh.vertex_count(); ++v) EXPECT_EQ(result.weights.joints_of(v).size(), 1u);
  EXPECT_LT(result.rmse, 1e-4 * a.mesh.size());  // six bones can do what three do
}

TEST(SkinningDecomposition, SameResultForAnyThreadCount) {
  const KnownAnimation a = rigid_segments(12, 5);
  DecompositionParameters parameters;
  parameters.bones = 4;
  ThreadPool one(1), two(2);
  const Decomposition first = decompose(input_of(a), parameters, &one);
  const Decomposition second = decompose(input_of(a), parameters, &two);
  EXPECT_EQ(first.weights.joints, second.weights.joints);
  EXPECT_EQ(first.weights.weights, second.weights.weights);
  for (std::size_t f = 0; f < first.transforms.size(); ++f)
    for (std::size_t b = 0; b < first.transforms[f].size(); ++b)
      EXPECT_EQ(first.transforms[f][b], second.transforms[f][b]);
}

TEST(SkinningDecomposition, PeriodicInputEndsWhereItStarts) {
  KnownAnimation a = rigid_segments(10, 9);
  a.frames.push_back(a.frames.front());
  DecompositionInput input = input_of(a);
  input.periodic = true;
  DecompositionParameters parameters;
  parameters.bones = 3;
  const Decomposition result = decompose(input, parameters);
  ASSERT_EQ(result.transforms.size(), a.frames.size());
  EXPECT_EQ(result.transforms.back(), result.transforms.front());
}

// Fixed bones that reproduce all but one segment: the one free bone takes that segment.
TEST(SkinningDecomposition, FreeBonesTakeWhatFixedBonesMiss) {
  const KnownAnimation a = rigid_segments(15, 21);
  DecompositionInput input = input_of(a);
  Skin fixed_skin;
  for (std::size_t v = 0; v < a.mesh.vertex_count(); ++v) {
    const Influence influence{static_cast<std::uint32_t>(std::min(a.segment[v], 1)), 1.0f};  // segment 2 on bone 1
    fixed_skin.add_vertex(std::span(&influence, 1));
  }
  for (std::size_t f = 0; f < a.frames.size(); ++f) input.fixed.push_back({a.bones[f][0], a.bones[f][1]});
  input.fixed_usable = {true, true};
  input.fixed_skin = &fixed_skin;
  DecompositionParameters parameters;
  parameters.bones = 1;
  parameters.influences = 1;
  parameters.smoothness = 0;
  parameters.target_error = 0;
  const Decomposition result = decompose(input, parameters);
  EXPECT_EQ(result.fixed_bones, 2u);
  EXPECT_LT(result.rmse, 1e-5 * a.mesh.size());
  for (std::size_t v = 0; v < a.mesh.vertex_count(); ++v) {
    const std::uint32_t expected = a.segment[v] == 2 ? 2u : static_cast<std::uint32_t>(a.segment[v]);
    EXPECT_EQ(result.weights.joints_of(v)[0], expected) << "vertex " << v;
  }
}

TEST(SkinningDecomposition, BadInputIsAClearError) {
  KnownAnimation a = rigid_segments(4, 1);
  DecompositionParameters parameters;
  parameters.bones = 3;
  auto message = [&](const DecompositionInput& input, const DecompositionParameters& p) {
    try {
      decompose(input, p);
    } catch (const Error& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  KnownAnimation short_frame = a;
  short_frame.frames[2].pop_back();
  EXPECT_EQ(message(input_of(short_frame), parameters), "frame 2 has 103 vertices, the rest pose 104");
  KnownAnimation nan = a;
  nan.frames[1][5].y() = std::nanf("");
  EXPECT_EQ(message(input_of(nan), parameters), "frame 1: vertex 5 is not finite");
  DecompositionParameters none = parameters;
  none.bones = 0;
  EXPECT_NE(message(input_of(a), none).find("'bones': 0 is out of range"), std::string::npos)
      << message(input_of(a), none);
  DecompositionParameters wide = parameters;
  wide.influences = 9;
  EXPECT_NE(message(input_of(a), wide).find("'influences': 9 is out of range"), std::string::npos);
  DecompositionParameters many = parameters;
  many.bones = 105;
  EXPECT_EQ(message(input_of(a), many), "105 bones for 104 vertices: at most one bone a vertex");
}

}  // namespace
}  // namespace wobble
