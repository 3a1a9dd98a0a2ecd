// Direct Delta Mush on real characters: exact rest pose and rigid motions, proper rotations
// (det +1), closeness to Delta Mush in baked stacks, bind mismatch, thread determinism; the CLI.
// The nearest rotation, the implicit smoothing, degenerate meshes and the cheap variants' turns on
// procedural meshes: tests/runtime/test_direct_delta_mush.cpp.
#include <cmath>
#include <cstring>

#include <gtest/gtest.h>

#include <wobble/offline/bake.hpp>
#include <wobble/delta_mush.hpp>
#include <wobble/direct_delta_mush.hpp>
#include <wobble/error.hpp>
#include <wobble/io/files.hpp>
#include <wobble/lbs.hpp>
#include <wobble/parallel.hpp>
#include <wobble/pose.hpp>

#include "runtime/mush_cases.hpp"
#include "synthetic_rigs.hpp"
#include "test_util.hpp"

using namespace wobble;

namespace {

using test::kVariants;
using test::max_distance;
using test::variants;

Character figure() { return load_character(test::shared_asset("characters/RiggedFigure/RiggedFigure.gltf")); }

}  // namespace

TEST(DirectDeltaMush, RestPoseAndRigidMotionAreExactForEveryVariant) {
  const Character character = figure();
  const Mesh& mesh = character.mesh;
  const float size = mesh.size();
  Pose rest;
  evaluate_pose(character.rig, nullptr, 0.0f, rest);
  // The rest pose of the rig need not be the bind pose: use identity skinning matrices for "rest".
  const std::vector<Mat4f> identity(character.rig.joint_count(), Mat4f::Identity());
  Mat4f rigid = Mat4f::Identity();
  rigid.topLeftCorner<3, 3>() = Eigen::AngleAxisf(2.0f, Vec3f(1, -1, 0.5f).normalized()).toRotationMatrix();
  rigid.topRightCorner<3, 1>() = Vec3f(0.3f, 1.0f, -2.0f) * size;
  const std::vector<Mat4f> moved(character.rig.joint_count(), rigid);
  for (const DirectDeltaMushSettings& settings : variants()) {
    DirectDeltaMush ddm;
    ddm.bind(mesh.positions, mesh.triangles, character.skin, character.rig.joint_count(), settings);
    std::vector<Vec3f> positions(mesh.vertex_count());
    std::vector<Mat3f> rotations(mesh.vertex_count());
    ddm.evaluate(identity, positions, nullptr, rotations);
    EXPECT_LE(max_distance(positions, mesh.positions), 1e-6 * size) << to_string(settings.variant);
    ddm.evaluate(moved, positions, nullptr, rotations);
    std::vector<Vec3f> expected(mesh.vertex_count());
    for (std::size_t v = 0; v < expected.size(); ++v) expected[v] = (rigid * mesh.positions[v].homogeneous()).head<3>();
    EXPECT_LE(max_distance(positions, expected), 1e-5 * size) << to_string(settings.variant);
  }
}

TEST(DirectDeltaMush, RotationsAreProperOnAnimatedCharacters) {
  for (const char* file : {"characters/RiggedFigure/RiggedFigure.gltf", "characters/wipf.glb"}) {
    const Character character = load_character(test::shared_asset(file));
    for (DdmVariant variant : kVariants) {
      DirectDeltaMushSettings settings;
      settings.variant = variant;
      DirectDeltaMush ddm;
      ddm.bind(character.mesh.positions, character.mesh.triangles, character.skin, character.rig.joint_count(),
               settings);
      const Clip& clip = character.clips[0];
      Pose pose;
      std::vector<Vec3f> positions(character.mesh.vertex_count());
      std::vector<Mat3f> rotations(character.mesh.vertex_count());
      double worst_det = 0, worst_orthogonality = 0;
      for (int k = 0; k <= 8; ++k) {
        evaluate_pose(character.rig, &clip, clip.start() + clip.duration() * k / 8.0f, pose);
        ddm.evaluate(pose.skinning, positions, nullptr, rotations);
        // Without rotations asked for, v3 runs its AVX2 kernel (with them, the scalar loop): the same positions.
        std::vector<Vec3f> alone(positions.size());
        ddm.evaluate(pose.skinning, alone);
        EXPECT_LE(max_distance(alone, positions), 1e-5 * character.mesh.size()) << file << " " << to_string(variant);
        for (const Mat3f& r : rotations) {
          worst_det = std::max<double>(worst_det, std::abs(r.determinant() - 1.0f));
          worst_orthogonality = std::max<double>(worst_orthogonality, (r.transpose() * r - Mat3f::Identity()).norm());
        }
        for (const Vec3f& p : positions) ASSERT_TRUE(p.allFinite());
      }
      EXPECT_LT(worst_det, 1e-4) << file << " " << to_string(variant);
      EXPECT_LT(worst_orthogonality, 1e-4) << file << " " << to_string(variant);
    }
  }
}

TEST(DirectDeltaMush, StaysCloseToDeltaMushOnRealCharacters) {
  // DDM approximates Delta Mush: compare both (and LBS) over each character's first clip.
  struct Bound {
    const char* file;
    double rms, max;  // relative to the character size, for v0
  };
  for (const Bound bound : {Bound{"characters/RiggedFigure/RiggedFigure.gltf", 0.01, 0.05},
                            Bound{"characters/wipf.glb", 0.01, 0.06}, Bound{"characters/clonk.glb", 0.01, 0.06}}) {
    const Character character = load_character(test::shared_asset(bound.file));
    const float size = character.mesh.size();
    BakeOptions options;
    options.fps = 10;
    options.stack = StackDescription::parse("lbs,deltamush");
    options.settings = test::settings_of({{"deltamush", {{"iterations", 10}, {"step", 0.5}}}});
    const BakedFrames mush = bake(character, options);
    options.stack = StackDescription::parse("lbs");
    options.settings = StackSettings();
    const BakedFrames lbs = bake(character, options);
    auto compare = [&](const BakedFrames& other, double& rms, double& max) {
      double sum2 = 0;
      std::size_t count = 0;
      max = 0;
      for (std::size_t k = 0; k < mush.positions.size(); ++k) {
        for (std::size_t v = 0; v < character.mesh.vertex_count(); ++v) {
          const double d = (mush.positions[k][v] - other.positions[k][v]).norm() / size;
          sum2 += d * d, max = std::max(max, d), ++count;
        }
      }
      rms = std::sqrt(sum2 / double(count));
    };
    double lbs_rms, lbs_max;
    compare(lbs, lbs_rms, lbs_max);
    std::printf(
        "%s (%zu vertices, %zu frames): distance to Delta Mush (10 iterations, step 0.5), relative to the size:\n"
        "  lbs     rms %.5f max %.5f\n",
        bound.file, character.mesh.vertex_count(), mush.positions.size(), lbs_rms, lbs_max);
    for (DdmVariant v : kVariants) {
      const char* variant = to_string(v);
      options.stack = StackDescription::parse("lbs,ddm");
      options.settings = test::settings_of({{"ddm", {{"variant", variant}}}});
      const BakedFrames ddm = bake(character, options);
      double rms, max;
      compare(ddm, rms, max);
      std::printf("  ddm %s  rms %.5f max %.5f\n", variant, rms, max);
      if (v == DdmVariant::V0) {
        EXPECT_LT(rms, bound.rms) << bound.file;
        EXPECT_LT(max, bound.max) << bound.file;
      }
      EXPECT_LT(rms, 3 * bound.rms) << bound.file << " " << variant;
    }
  }
}

TEST(DirectDeltaMush, BindMismatchAndBadSettingsAreClearErrors) {
  const Character character = figure();
  DirectDeltaMush ddm;
  ddm.bind(character.mesh.positions, character.mesh.triangles, character.skin, character.rig.joint_count(), {});
  std::vector<Vec3f> other = character.mesh.positions;
  other[0].y() += 1;
  try {
    ddm.check_same_mesh(other, character.mesh.triangles);
    FAIL();
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("another mesh"), std::string::npos);
  }
  std::vector<Vec3f> fewer(3);
  const std::vector<Mat4f> identity(character.rig.joint_count(), Mat4f::Identity());
  EXPECT_THROW(ddm.evaluate(identity, fewer), Error);
  DirectDeltaMushSettings bad;
  bad.iterations = 0;
  EXPECT_THROW(
      ddm.bind(character.mesh.positions, character.mesh.triangles, character.skin, character.rig.joint_count(), bad),
      Error);
  EXPECT_THROW(parse_ddm_variant("v9"), Error);
  EXPECT_THROW(ddm.bind(character.mesh.positions, character.mesh.triangles, character.skin, 1, {}), Error);
}

TEST(DirectDeltaMush, IdenticalBytesForAnyThreadCount) {
  const Character character = load_character(test::shared_asset("characters/clonk.glb"));
  DirectDeltaMush ddm;
  ddm.bind(character.mesh.positions, character.mesh.triangles, character.skin, character.rig.joint_count(), {});
  Pose pose;
  evaluate_pose(character.rig, &character.clips[0], 0.3f, pose);
  std::vector<Vec3f> one(character.mesh.vertex_count()), two(character.mesh.vertex_count());
  ddm.evaluate(pose.skinning, one, nullptr);
  ThreadPool pool(3);
  ddm.evaluate(pose.skinning, two, &pool);
  EXPECT_EQ(std::memcmp(one.data(), two.data(), one.size() * sizeof(Vec3f)), 0);
}

TEST(DirectDeltaMushCli, BakesWithTheVariantFlag) {
  test::ScratchDir scratch;
  const std::string input = test::shared_asset("characters/RiggedFigure/RiggedFigure.gltf").string();
  for (DdmVariant v : kVariants) {
    const char* variant = to_string(v);
    const auto out = scratch / (std::string(variant) + ".pc2");
    const auto result = test::run_wobble("bake '" + input + "' --clip 0 --fps 10 --deformer lbs,ddm --ddm-variant " +
                                         variant + " -q -o '" + out.string() + "'");
    ASSERT_EQ(result.exit_code, 0) << result.output;
    const auto frames = read_pc2(out);
    ASSERT_FALSE(frames.empty());
    for (const Vec3f& p : frames.back()) ASSERT_TRUE(p.allFinite());
  }
  const auto result = test::run_wobble("bake '" + input + "' --deformer lbs,ddm --ddm-variant v7 -q -o '" +
                                       (scratch / "bad.pc2").string() + "'");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.output.find("--ddm-variant: 'v7' is not one of v0, v1, v2, v3"), std::string::npos) << result.output;
}
