// The helper-bone C API (wobble/wobble_offline.h) as a host uses it: a procedural chain whose top
// segment twists about its bone on top of the clip (a rigid secondary motion), handed over as
// joint world matrices and positions per frame; one helper carries the twist, and the returned
// arrays, composed here by hand (parent world * local * inverse bind, LBS over the refitted skin),
// replay the frames. Bad input fails with a status and a message naming what is wrong.
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <wobble/wobble_offline.h>

#include "../runtime/c_api_arrays.hpp"
#include "../synthetic_rigs.hpp"

using namespace wobble;

namespace {

constexpr double kPi = 3.14159265358979323846;

// A host's bake: the chain's LBS with joint 2's vertices twisted about the bone's axis (y) by a
// lagging angle, as flat arrays.
struct HostBake {
  Character character;
  std::vector<double> times;
  std::vector<float> world, positions;
  std::vector<std::vector<Vec3f>> frames;

  HostBake() : character(test::chain_character(3, 1.0f)) {
    test::add_rotation(character, 1, Vec3f::UnitZ(), 1.0f, [](double t) { return 0.5 * std::sin(2 * kPi * t); });
    const BakedFrames lbs = test::bake_stack(character, "lbs", nlohmann::json::object(), 30.0);
    for (std::size_t f = 0; f < lbs.times.size(); ++f) {
      times.push_back(lbs.times[f]);
      std::vector<Mat4f> joint_world;
      for (std::size_t j = 0; j < character.rig.joint_count(); ++j) {
        joint_world.push_back(lbs.skinning[f][j] * character.rig.inverse_bind[j].inverse());
        world.insert(world.end(), joint_world[j].data(), joint_world[j].data() + 16);
      }
      const Eigen::Affine3f twist_frame(joint_world[2]);
      const Eigen::AngleAxisf twist(static_cast<float>(0.4 * std::sin(2 * kPi * lbs.times[f] - 1.2)), Vec3f::UnitY());
      std::vector<Vec3f> frame = lbs.positions[f];
      for (std::size_t v = 0; v < frame.size(); ++v)
        if (character.skin.joints_of(v)[0] == 2) frame[v] = twist_frame * (twist * (twist_frame.inverse() * frame[v]));
      for (const Vec3f& p : frame) positions.insert(positions.end(), {p.x(), p.y(), p.z()});
      frames.push_back(std::move(frame));
    }
  }

  wobble_baked_frames arrays() const {
    return {static_cast<uint32_t>(times.size()), times.data(), world.data(), positions.data()};
  }
};

struct Fit {
  test::Arrays arrays;
  test::Handles handles;
  wobble_helper_bones* helpers = nullptr;
  wobble_status status = WOBBLE_FAILED;
  wobble_helper_bones_result result{};

  Fit(const HostBake& bake, const char* settings, const std::vector<uint8_t>& weighted, uint32_t threads)
      : arrays(bake.character) {
    EXPECT_EQ(wobble_character_create(&arrays.mesh, &handles.character), WOBBLE_OK) << wobble_last_error();
    const wobble_baked_frames frames = bake.arrays();
    status = wobble_helper_bones_fit(handles.character, &frames, settings, weighted.empty() ? nullptr : weighted.data(),
                                     0, threads, &helpers);
    if (status == WOBBLE_OK) {
      EXPECT_EQ(wobble_helper_bones_get(helpers, &result), WOBBLE_OK);
    }
  }
  ~Fit() { wobble_helper_bones_destroy(helpers); }
};

// Helper h's skinning matrix in frame f from the result's arrays: parent world * local * inverse bind.
Mat4f helper_skinning(const HostBake& bake, const wobble_helper_bones_result& r, std::size_t f, std::size_t h) {
  const float* local = r.local_transforms + (f * r.helper_count + h) * 10;
  Transform trs;
  trs.translation = Vec3f(local[0], local[1], local[2]);
  trs.rotation = Quatf(local[6], local[3], local[4], local[5]);
  trs.scale = Vec3f(local[7], local[8], local[9]);
  const std::size_t joints = bake.character.rig.joint_count();
  const Mat4f parent_world = Eigen::Map<const Mat4f>(bake.world.data() + 16 * (f * joints + r.parents[h]));
  return parent_world * trs.matrix() * Eigen::Map<const Mat4f>(r.inverse_bind_matrices + 16 * h);
}

// The largest distance between LBS of the extended skeleton (the result's skin) and the frames.
double replay_gap(const HostBake& bake, const wobble_helper_bones_result& r) {
  const Rig& rig = bake.character.rig;
  double gap = 0;
  for (std::size_t f = 0; f < bake.frames.size(); ++f) {
    std::vector<Mat4f> skinning;
    for (std::size_t j = 0; j < rig.joint_count(); ++j)
      skinning.push_back(Eigen::Map<const Mat4f>(bake.world.data() + 16 * (f * rig.joint_count() + j)) *
                         rig.inverse_bind[j]);
    for (std::size_t h = 0; h < r.helper_count; ++h) skinning.push_back(helper_skinning(bake, r, f, h));
    for (std::size_t v = 0; v < bake.frames[f].size(); ++v) {
      Vec3f p = Vec3f::Zero();
      for (std::size_t k = 0; k < r.influences_per_vertex; ++k) {
        const std::size_t slot = v * r.influences_per_vertex + k;
        p += r.influence_weights[slot] *
             (skinning[r.influence_joints[slot]] * bake.character.mesh.positions[v].homogeneous()).head<3>();
      }
      gap = std::max(gap, double((p - bake.frames[f][v]).norm()));
    }
  }
  return gap;
}

}  // namespace

TEST(HelperBonesCApi, OneHelperCarriesATwistAndTheArraysReplayIt) {
  const HostBake bake;
  const Fit fit(bake, R"({"bones": 1, "influences": 1})", {}, 2);
  ASSERT_EQ(fit.status, WOBBLE_OK) << wobble_last_error();
  const wobble_helper_bones_result& r = fit.result;
  EXPECT_EQ(r.helper_count, 1u);
  EXPECT_EQ(r.frame_count, bake.times.size());
  EXPECT_EQ(r.influences_per_vertex, 1u);
  EXPECT_EQ(r.parents[0], 2);  // the joint whose vertices twist
  EXPECT_GT(r.secondary_rms, 0.02);
  EXPECT_LT(r.rmse, 1e-4);
  EXPECT_LT(replay_gap(bake, r), 2e-4);

  // The same bytes on one thread.
  const Fit single(bake, R"({"bones": 1, "influences": 1})", {}, 1);
  ASSERT_EQ(single.status, WOBBLE_OK) << wobble_last_error();
  const std::size_t values = 10 * r.frame_count * r.helper_count;
  EXPECT_EQ(std::vector<float>(r.local_transforms, r.local_transforms + values),
            std::vector<float>(single.result.local_transforms, single.result.local_transforms + values));
}

TEST(HelperBonesCApi, AJointThatMayNotCarryWeightIsReplacedByTheHelper) {
  const HostBake bake;
  // Joint 2 as a host that cannot weight it. No smoothness: the chain has no triangles, and
  // without neighbours the smoothness term pulls every weight towards 0, spreading each vertex
  // over both influences (an RMSE of 6.5e-3 with the default 1e-4).
  const Fit fit(bake, R"({"bones": 1, "influences": 2, "smoothness": 0})", {1, 1, 0}, 1);
  ASSERT_EQ(fit.status, WOBBLE_OK) << wobble_last_error();
  const wobble_helper_bones_result& r = fit.result;
  EXPECT_NE(r.parents[0], 2);
  for (std::size_t slot = 0; slot < bake.character.mesh.vertex_count() * r.influences_per_vertex; ++slot)
    EXPECT_FALSE(r.influence_joints[slot] == 2 && r.influence_weights[slot] > 0) << "slot " << slot;
  EXPECT_LT(r.rmse, 1e-4);  // the helper moves as joint 2 and the twist together
  EXPECT_LT(replay_gap(bake, r), 2e-4);
}

TEST(HelperBonesCApi, BadInputFailsWithTheReason) {
  HostBake bake;
  const auto refused = [&](const HostBake& input, const char* settings, const std::vector<uint8_t>& weighted,
                           wobble_status expected, const std::string& part) {
    const Fit fit(input, settings, weighted, 1);
    EXPECT_EQ(fit.status, expected) << part;
    EXPECT_EQ(fit.helpers, nullptr) << part;
    EXPECT_NE(std::string(wobble_last_error()).find(part), std::string::npos) << wobble_last_error();
  };
  refused(bake, R"({"bonez": 2})", {}, WOBBLE_INVALID_SETTINGS, "unknown parameter 'bonez'");
  refused(bake, R"({"influences": 9})", {}, WOBBLE_INVALID_SETTINGS, "settings.influences");
  refused(bake, R"([1])", {}, WOBBLE_INVALID_SETTINGS, "settings: expected an object");
  refused(bake, R"({"bones": 100})", {}, WOBBLE_INVALID_ARGUMENT, "100 helpers for 48 vertices");
  refused(bake, R"({"bones": 1})", {0, 0, 0}, WOBBLE_INVALID_ARGUMENT, "joints_weighted: no joint may carry weight");
  HostBake backwards = bake;
  backwards.times[3] = backwards.times[2];
  refused(backwards, R"({"bones": 1})", {}, WOBBLE_INVALID_ARGUMENT, "times[3]");
  HostBake nan = bake;
  nan.positions[3 * 50 + 1] = std::nanf("");
  refused(nan, R"({"bones": 1})", {}, WOBBLE_INVALID_ARGUMENT, "position 2 of frame 1 is not finite");

  const char* description = nullptr;
  ASSERT_EQ(wobble_helper_bones_description(&description), WOBBLE_OK);
  EXPECT_NE(std::string(description).find("\"name\": \"decompose\""), std::string::npos);
  EXPECT_NE(std::string(description).find("\"key\": \"influences\""), std::string::npos);
}
