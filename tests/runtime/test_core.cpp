// Skin repairs, rig checks, the deformer stack's rules, the pool.
#include <atomic>
#include <vector>

#include <gtest/gtest.h>

#include <wobble/deformer.hpp>
#include <wobble/error.hpp>
#include <wobble/parallel.hpp>

using namespace wobble;

TEST(Skin, NormalizeRepairsAndReportsEachKindOnce) {
  Skin skin;
  const Influence a[] = {{0, 0.5f}, {1, 0.3f}};    // sums to 0.8: normalised
  const Influence b[] = {{0, 0.0f}};               // no weight: bound to the fallback
  const Influence c[] = {{1, -0.2f}, {2, 2.0f}};   // negative dropped, then normalised
  const Influence d[] = {{1, 0.25f}, {1, 0.75f}};  // duplicates merged: exactly 1
  skin.add_vertex(a);
  skin.add_vertex(b);
  skin.add_vertex(c);
  skin.add_vertex(d);
  Diagnostics diagnostics;
  skin.normalize(3, 0, diagnostics, "x.glb");
  ASSERT_EQ(skin.vertex_count(), 4u);
  EXPECT_FLOAT_EQ(skin.weights_of(0)[0], 0.625f);
  EXPECT_FLOAT_EQ(skin.weights_of(0)[1], 0.375f);
  ASSERT_EQ(skin.joints_of(1).size(), 1u);
  EXPECT_EQ(skin.joints_of(1)[0], 0u);
  EXPECT_FLOAT_EQ(skin.weights_of(1)[0], 1.0f);
  ASSERT_EQ(skin.joints_of(2).size(), 1u);
  EXPECT_EQ(skin.joints_of(2)[0], 2u);
  ASSERT_EQ(skin.joints_of(3).size(), 1u);
  EXPECT_FLOAT_EQ(skin.weights_of(3)[0], 1.0f);
  EXPECT_EQ(diagnostics.count("weights_normalized"), 2u);
  EXPECT_EQ(diagnostics.count("weights_missing"), 1u);
  EXPECT_EQ(diagnostics.count("weights_invalid"), 1u);
  EXPECT_EQ(diagnostics.repairs().size(), 3u);
}

TEST(Skin, JointOutOfRangeIsAnErrorNamingTheFile) {
  Skin skin;
  const Influence a[] = {{7, 1.0f}};
  skin.add_vertex(a);
  Diagnostics diagnostics;
  try {
    skin.normalize(3, 0, diagnostics, "broken.glb");
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("broken.glb"), std::string::npos);
    EXPECT_NE(std::string(error.what()).find("joint 7"), std::string::npos);
  }
}

TEST(Skin, PackedLayoutKeepsTheStrongestInfluencesRenormalised) {
  Skin skin;
  const Influence a[] = {{0, 0.1f}, {1, 0.2f}, {2, 0.3f}, {3, 0.4f}};
  skin.add_vertex(a);
  const PackedSkin wide = PackedSkin::from(skin);
  EXPECT_EQ(wide.width, 4u);
  const PackedSkin narrow = PackedSkin::from(skin, 2);
  ASSERT_EQ(narrow.width, 2u);
  EXPECT_EQ(narrow.joints[0], 3);
  EXPECT_EQ(narrow.joints[1], 2);
  EXPECT_FLOAT_EQ(narrow.weights[0], 0.4f / 0.7f);
  EXPECT_FLOAT_EQ(narrow.weights[1], 0.3f / 0.7f);
  const PackedSkin padded = PackedSkin::from(skin, 6);
  EXPECT_EQ(padded.weights[5], 0.0f);
}

TEST(Rig, CheckRejectsAParentThatComesLater) {
  Rig rig;
  rig.add_joint("a", -1, Transform{}, Mat4f::Identity(), true);
  rig.add_joint("b", 0, Transform{}, Mat4f::Identity(), true);
  rig.parents[0] = 1;  // a cycle a <-> b
  EXPECT_THROW(rig.check("cycle.glb"), Error);
  rig.parents[0] = -1;
  EXPECT_NO_THROW(rig.check("ok.glb"));
  EXPECT_EQ(rig.depth(1), 1);
  EXPECT_EQ(rig.max_depth(), 1);
}

TEST(DeformerStack, ParsesKnownDeformersAndRejectsTheRest) {
  EXPECT_EQ(DeformerStack::parse("lbs").spec(), "lbs");
  EXPECT_EQ(DeformerStack::parse(" dqs ").spec(), "dqs");
  EXPECT_THROW(DeformerStack::parse("lbs,nonsense"), Error);
  EXPECT_THROW(DeformerStack::parse("lbs,dqs"), Error);  // two base skinnings
  EXPECT_THROW(DeformerStack::parse("lbs,"), Error);
  EXPECT_THROW(StackSettings::from_json(R"({"lbs": {"nope": 1}})", "s.json"), Error);  // unknown parameter
  EXPECT_THROW(StackSettings::from_json(R"({"unknown": {}})", "s.json"), Error);
  try {
    DeformerStack::parse("wobbly");
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("wobbly"), std::string::npos);
  }
}

// 4294967296 threads (--threads -1 read as unsigned) once hung the pool's constructor.
TEST(ThreadPool, RefusesMoreThreadsThanAnyMachineHas) {
  EXPECT_THROW(ThreadPool(ThreadPool::kMaxThreads + 1), Error);
  EXPECT_THROW(ThreadPool(std::size_t(1) << 32), Error);
  ThreadPool most(2);  // and a small pool still works
  std::atomic<int> sum = 0;
  most.parallel_for(4, 1, [&](std::size_t b, std::size_t e) { sum += static_cast<int>(e - b); });
  EXPECT_EQ(sum, 4);
}

TEST(ThreadPool, VisitsEveryIndexExactlyOnce) {
  ThreadPool pool(3);
  std::vector<std::atomic<int>> visits(10007);
  for (int round = 0; round < 3; ++round) {
    pool.parallel_for(visits.size(), 100, [&](std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i) ++visits[i];
    });
  }
  for (const auto& v : visits) ASSERT_EQ(v.load(), 3);
}
