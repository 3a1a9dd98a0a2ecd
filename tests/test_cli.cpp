// The wobble command end to end: info, bake to every output type, errors, determinism.
#include <cmath>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <wobble/io/files.hpp>
#include <wobble/pose.hpp>

#include "test_util.hpp"

using namespace wobble;
using wobble::test::count_lines;
using wobble::test::run_wobble;
using wobble::test::ScratchDir;
using wobble::test::shell_quoted;

TEST(Cli, InfoJsonDescribesTheBundledCharacter) {
  const auto result = run_wobble("info --json " + shell_quoted(test::bundled_asset("clonk.glb")) + " 2>/dev/null");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const auto info = nlohmann::json::parse(result.output);
  EXPECT_EQ(info["vertices"], 1814);
  EXPECT_EQ(info["skinned_joint_count"], 51);
  EXPECT_EQ(info["clips"].size(), 83u);
  EXPECT_GE(info["skin"]["max_influences"].get<int>(), 1);
  bool has_walk = false;
  for (const auto& clip : info["clips"]) has_walk |= clip["name"] == "Walk";
  EXPECT_TRUE(has_walk);
  EXPECT_FALSE(info["repairs"].empty());  // the export's weights do not sum to one
}

TEST(Cli, InfoTextListsJointsClipsAndRepairs) {
  const auto result = run_wobble("info " + shell_quoted(test::shared_asset("characters/wipf.glb")));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("joints"), std::string::npos);
  EXPECT_NE(result.output.find("clips (8)"), std::string::npos);
  EXPECT_NE(result.output.find("repairs:"), std::string::npos);
}

TEST(Cli, BakePc2MatchesAnIndependentLinearBlendSkinning) {
  ScratchDir dir;
  const auto input = test::shared_asset("characters/RiggedFigure/RiggedFigure.gltf");
  const auto result = run_wobble("bake " + shell_quoted(input) + " --clip 0 --fps 30 --deformer lbs -q -o " +
                                 shell_quoted(dir / "out.pc2"));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const Character character = load_character(input);
  const Clip& clip = character.clips[0];
  const auto frames = read_pc2(dir / "out.pc2");
  const auto expected_frames = static_cast<std::size_t>(std::floor(clip.duration() * 30 + 1e-6)) + 1;
  ASSERT_EQ(frames.size(), expected_frames);
  const float size = character.mesh.size();
  for (std::size_t k : {std::size_t(0), frames.size() / 2, frames.size() - 1}) {
    Pose pose;
    evaluate_pose(character.rig, &clip, clip.start() + static_cast<float>(k) / 30.0f, pose);
    ASSERT_EQ(frames[k].size(), character.mesh.vertex_count());
    for (std::size_t v = 0; v < frames[k].size(); ++v) {
      Eigen::Vector3d expected = Eigen::Vector3d::Zero();
      for (std::size_t i = 0; i < character.skin.joints_of(v).size(); ++i) {
        const Mat4f& m = pose.skinning[character.skin.joints_of(v)[i]];
        expected +=
            character.skin.weights_of(v)[i] * (m * character.mesh.positions[v].homogeneous()).head<3>().cast<double>();
      }
      ASSERT_LT((frames[k][v].cast<double>() - expected).norm(), 1e-5 * size) << "frame " << k << " vertex " << v;
    }
  }
}

TEST(Cli, BakeGlbPassesTheKhronosValidator) {
  ScratchDir dir;
  const auto out = dir / "walk.glb";
  const auto result = run_wobble("bake " + shell_quoted(test::bundled_asset("clonk.glb")) +
                                 " --clip Walk --fps 30 --deformer dqs -q -o " + shell_quoted(out));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const auto validation = test::validate_gltf(out);
  EXPECT_EQ(validation.exit_code, 0) << validation.output;
  EXPECT_NE(validation.output.find("\"errors\":0"), std::string::npos) << validation.output;
}

TEST(Cli, BakeObjSequenceWritesOneFilePerFrame) {
  ScratchDir dir;
  const auto result =
      run_wobble("bake " + shell_quoted(test::shared_asset("characters/RiggedSimple/RiggedSimple.gltf")) +
                 " --clip 0 --fps 10 --start 0 --end 0.5 -q -o " + shell_quoted(dir.path().string() + "/seq/"));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir / "seq"))
    files += entry.path().extension() == ".obj";
  EXPECT_EQ(files, 6u);  // t = 0, 0.1, ..., 0.5
  const Character frame = read_obj(dir / "seq/frame_0000.obj");
  EXPECT_EQ(frame.mesh.vertex_count(), 96u);
}

TEST(Cli, TwoBakesGiveIdenticalBytes) {
  ScratchDir dir;
  const std::string input = shell_quoted(test::shared_asset("characters/wipf.glb"));
  for (const char* name : {"a", "b"}) {
    for (const char* extension : {".pc2", ".glb"}) {
      const auto result = run_wobble("bake " + input + " --clip 1 --fps 24 -q --threads 2 -o " +
                                     shell_quoted(dir / (std::string(name) + extension)));
      ASSERT_EQ(result.exit_code, 0) << result.output;
    }
  }
  EXPECT_EQ(test::read_bytes(dir / "a.pc2"), test::read_bytes(dir / "b.pc2"));
  EXPECT_EQ(test::read_bytes(dir / "a.glb"), test::read_bytes(dir / "b.glb"));
  // Threads do not change the result either.
  ASSERT_EQ(
      run_wobble("bake " + input + " --clip 1 --fps 24 -q --threads 1 -o " + shell_quoted(dir / "c.pc2")).exit_code, 0);
  EXPECT_EQ(test::read_bytes(dir / "a.pc2"), test::read_bytes(dir / "c.pc2"));
}

// Every failure: exit code 1, one line naming the file and the problem, no output file.
TEST(Cli, ErrorsAreOneLineAndLeaveNoOutput) {
  ScratchDir dir;
  const std::string clonk = shell_quoted(test::bundled_asset("clonk.glb"));
  const std::string out = shell_quoted(dir / "out.pc2");
  struct Case {
    std::string arguments, expected;
  };
  const Case cases[] = {
      {"bake " + shell_quoted(dir / "missing.glb") + " -q -o " + out, "missing.glb"},
      {"bake " + clonk + " --clip NoSuchClip -q -o " + out, "NoSuchClip"},
      {"bake " + clonk + " --clip 999 -q -o " + out, "999"},
      {"bake " + clonk + " --deformer lbs,wiggle -q -o " + out, "wiggle"},
      {"bake " + clonk + " --clip Walk -q -o " + shell_quoted(dir / "no/such/folder/out.pc2"), "folder"},
      {"bake " + clonk + " --clip Walk -q -o " + shell_quoted(dir / "out.xyz"), ".xyz"},
      {"bake " + clonk + " --clip Walk --fps 0 -q -o " + out, "--fps: 0 is out of range"},
      {"bake " + clonk + " --clip Walk --no-such-flag -q -o " + out, "no-such-flag"},
      {"info " + shell_quoted(dir / "missing.fbx"), "missing.fbx"},
  };
  for (const Case& c : cases) {
    const auto result = run_wobble(c.arguments + " 2>&1 >/dev/null");
    EXPECT_EQ(result.exit_code, 1) << c.arguments << "\n" << result.output;
    EXPECT_NE(result.output.find(c.expected), std::string::npos) << c.arguments << "\n" << result.output;
    EXPECT_EQ(count_lines(result.output), 1u) << c.arguments << "\n" << result.output;
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

// Values are read whole and range-checked: each of these was once accepted as something it is not
// (or hung, for --threads). One line naming the flag, exit code 1, no output.
TEST(Cli, BadValuesAreRefusedByFlagName) {
  ScratchDir dir;
  const std::string wipf = shell_quoted(test::shared_asset("characters/wipf.glb"));
  const std::string shape = shell_quoted(test::shared_asset("shapes/cactus.off"));
  const std::string out = shell_quoted(dir / "out.pc2");
  struct Case {
    std::string arguments, expected;
  };
  const std::string bake = "bake " + wipf + " --clip 0 -q -o " + out + " ";
  const std::string simulate = "simulate " + shape + " --frames 2 -q -o " + out + " ";
  const Case cases[] = {
      {bake + "--threads -1", "--threads: -1 is out of range [1, 1024]"},
      {bake + "--threads 4294967296", "--threads: 4294967296 is out of range [1, 1024]"},
      {bake + "--threads 99999", "--threads: 99999 is out of range [1, 1024]"},
      {bake + "--threads ''", "--threads: '' is not an integer"},
      {bake + "--threads 2.5", "--threads: '2.5' is not an integer"},
      {bake + "--start nan", "--start: 'nan' is not a number"},
      {bake + "--end nan", "--end: 'nan' is not a number"},
      {bake + "--end 1e300", "--end: 1e+300 is out of range"},
      {bake + "--fps 2abc", "--fps: '2abc' is not a number"},
      {bake + "--fps 1/0", "--fps: '1/0' is not a number"},
      {bake + "--fps 0x10", "--fps: '0x10' is not a number"},
      {bake + "--quiet=maybe", "--quiet: 'maybe' is not a boolean"},
      {"info " + wipf + " --json=2", "--json: '2' is not a boolean"},
      {"measure " + wipf + " --clip 0 --fps inf", "--fps: 'inf' is not a number"},
      {simulate + "--pin-blend -1", "--pin-blend: -1 is out of range [0, 10]"},
      {simulate + "--floor inf", "--floor: 'inf' is not a number"},
      {simulate + "--gravity [0,1e308,0]", "--gravity[1]: 1e+308 is out of range [-10000, 10000]"},
      {simulate + "--handles 1e3", "--handles: '1e3' is not an integer"},
      {simulate + "--points 0x100", "--points: '0x100' is not an integer"},
      {simulate + "--youngs -5", "--youngs: -5 is out of range"},
      {simulate + "--poisson 0.5", "--poisson: 0.5 is out of range [0, 0.4999]"},
      {"simulate " + shape + " -q -o " + out + " --frames 10000000000", "--frames: 10000000000 is out of range"},
      {"simulate --rig " + wipf + " --clip 0 -q -o " + out + " --loop-tolerance 1e-3",
       "--loop-tolerance: needs --loop"},
      {simulate + "--loop", "--loop: only with --rig CHARACTER"},
      {simulate + "--loop-tolerance 1e-3", "--loop-tolerance: only with --rig CHARACTER"},
  };
  for (const Case& c : cases) {
    const auto result = run_wobble(c.arguments + " 2>&1 >/dev/null");
    EXPECT_EQ(result.exit_code, 1) << c.arguments << "\n" << result.output;
    EXPECT_NE(result.output.find(c.expected), std::string::npos) << c.arguments << "\n" << result.output;
    EXPECT_EQ(count_lines(result.output), 1u) << c.arguments << "\n" << result.output;
    EXPECT_FALSE(std::filesystem::exists(dir / "out.pc2")) << c.arguments;
  }
  // What the help shows as a default is accepted, fractions included.
  EXPECT_EQ(run_wobble(bake + "--fps 48/2 --start 0 --end 1/4 --threads 1").exit_code, 0);
  EXPECT_EQ(test::read_bytes(dir / "out.pc2").size(), 32u + 7u * 643u * 12u);  // t = 0, 1/24, ..., 6/24 = 1/4
}

TEST(Cli, TruncatedInputIsAnErrorNamingTheFile) {
  ScratchDir dir;
  const auto bytes = test::read_bytes(test::bundled_asset("clonk.glb"));
  test::write_bytes(dir / "cut.glb", std::string(bytes.begin(), bytes.begin() + 5000));
  const auto result =
      run_wobble("bake " + shell_quoted(dir / "cut.glb") + " -q -o " + shell_quoted(dir / "out.pc2") + " 2>&1");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.output.find("cut.glb"), std::string::npos) << result.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "out.pc2"));
}
