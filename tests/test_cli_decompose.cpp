// `wobble decompose` end to end: an animation made of two rigid parts comes back exactly as two
// bones, through OBJ frames and PC2 alike; the glTF it writes is valid and plays the animation
// back under plain LBS; bad input is one line naming the file or flag, with no output left.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>

#include <gtest/gtest.h>

#include <wobble/io/files.hpp>
#include <wobble/io/mesh_animation.hpp>

#include "box_mesh.hpp"
#include "test_util.hpp"

using namespace wobble;
using wobble::test::run_wobble;
using wobble::test::ScratchDir;
using wobble::test::shell_quoted;

namespace {

constexpr int kFrames = 12;

// Two boxes apart: the left one slides and turns about y, the right one swings about z around
// x = 3. Rigid parts: two bones with one influence each reproduce every frame exactly.
Mesh two_boxes() {
  Mesh left = test::box_mesh(0.5f, 0.5f, 0.5f), right = test::box_mesh(1.0f, 0.25f, 0.25f);
  Mesh mesh = left;
  for (Vec3f& p : mesh.positions) p.x() -= 2.0f;
  for (const Vec3f& p : right.positions) mesh.positions.push_back(p + Vec3f(3.0f, 0.0f, 0.0f));
  for (const auto& t : right.triangles) mesh.triangles.push_back({t[0] + 8, t[1] + 8, t[2] + 8});
  return mesh;
}

std::vector<Vec3f> frame_of(const Mesh& mesh, int frame) {
  const Eigen::AngleAxisf turn(0.05f * frame, Vec3f::UnitY()), swing(0.12f * frame, Vec3f::UnitZ());
  const Vec3f pivot(3.0f, 0.0f, 0.0f);
  std::vector<Vec3f> out;
  for (std::size_t v = 0; v < mesh.positions.size(); ++v) {
    const Vec3f& p = mesh.positions[v];
    out.push_back(p.x() < 0 ? Vec3f(turn * p + Vec3f(0.0f, 0.1f * frame, 0.0f)) : Vec3f(swing * (p - pivot) + pivot));
  }
  return out;
}

BakedFrames animation_of(const Mesh& mesh) {
  BakedFrames baked;
  for (int f = 0; f < kFrames; ++f) {
    baked.times.push_back(f / 60.0f);
    baked.positions.push_back(frame_of(mesh, f));
  }
  return baked;
}

double largest_gap(const std::vector<std::vector<Vec3f>>& a, const std::vector<std::vector<Vec3f>>& b) {
  EXPECT_EQ(a.size(), b.size());
  double gap = 0;
  for (std::size_t f = 0; f < std::min(a.size(), b.size()); ++f)
    for (std::size_t v = 0; v < a[f].size(); ++v) gap = std::max(gap, double((a[f][v] - b[f][v]).norm()));
  return gap;
}

struct Scene {
  ScratchDir dir;
  Mesh mesh;
  BakedFrames animation;
  // The caches number the vertices as wobble reads rest.obj (an OBJ's face-corner order).
  Scene() {
    const Mesh boxes = two_boxes();
    write_obj(dir / "rest.obj", boxes, boxes.positions);
    mesh = read_obj(dir / "rest.obj").mesh;
    animation = animation_of(mesh);
    std::filesystem::create_directory(dir / "frames");
    for (int f = 0; f < kFrames; ++f)
      write_obj(dir / "frames" / fmt_frame(f), mesh, animation.positions[static_cast<std::size_t>(f)]);
    write_pc2(dir / "anim.pc2", animation, 60.0f);
  }
  static std::string fmt_frame(int f) {
    return "frame_" + std::string(f < 10 ? "000" : "00") + std::to_string(f) + ".obj";
  }
};

}  // namespace

TEST(CliDecompose, RigidPartsComeBackAsTwoBonesFromObjFrames) {
  Scene scene;
  const auto result =
      run_wobble("decompose " + shell_quoted(scene.dir / "rest.obj") + " --cache " +
                 shell_quoted(scene.dir / "frames") + " --bones 2 --influences 1 --threads 2 -o " +
                 shell_quoted(scene.dir / "out.glb") + " -o " + shell_quoted(scene.dir / "out.pc2") + " 2>&1");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("2 bones"), std::string::npos) << result.output;

  // The reconstruction is the animation, and so is the glTF played with plain LBS by wobble bake.
  EXPECT_LT(largest_gap(read_pc2(scene.dir / "out.pc2"), scene.animation.positions), 1e-4);
  const auto replay = run_wobble("bake " + shell_quoted(scene.dir / "out.glb") + " --deformer lbs -q -o " +
                                 shell_quoted(scene.dir / "replay.pc2"));
  ASSERT_EQ(replay.exit_code, 0) << replay.output;
  EXPECT_LT(largest_gap(read_pc2(scene.dir / "replay.pc2"), scene.animation.positions), 1e-4);

  const Character character = read_gltf(scene.dir / "out.glb");
  EXPECT_EQ(character.rig.joint_count(), 3u);  // the root and two bones
  EXPECT_EQ(character.clips.size(), 1u);
  const auto validation = test::validate_gltf(scene.dir / "out.glb");
  EXPECT_EQ(validation.exit_code, 0) << validation.output;
}

TEST(CliDecompose, PointCacheInputAndEightInfluences) {
  Scene scene;
  const auto result = run_wobble("decompose " + shell_quoted(scene.dir / "rest.obj") + " --cache " +
                                 shell_quoted(scene.dir / "anim.pc2") + " --bones 3 --influences 8 -q -o " +
                                 shell_quoted(scene.dir / "out.gltf") + " -o " + shell_quoted(scene.dir / "out.pc2"));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_LT(largest_gap(read_pc2(scene.dir / "out.pc2"), scene.animation.positions), 1e-4);
  const auto validation = test::validate_gltf(scene.dir / "out.gltf");
  EXPECT_EQ(validation.exit_code, 0) << validation.output;
}

TEST(CliDecompose, AMorphTargetBakeIsReadAsItsPointCache) {
  ScratchDir dir;
  const std::filesystem::path clonk = test::bundled_asset("clonk.glb");
  const std::string bake =
      "bake " + shell_quoted(clonk) + " --clip Walk --fps 20 --start 0 --end 0.5 --deformer lbs,dynamic -q -o ";
  ASSERT_EQ(run_wobble(bake + shell_quoted(dir / "bake.glb")).exit_code, 0);
  ASSERT_EQ(run_wobble(bake + shell_quoted(dir / "bake.pc2")).exit_code, 0);

  // The glTF's targets, morphed and skinned by its clip at its keys, are the PC2's world positions.
  const BakedFrames gltf = read_mesh_animation(dir / "bake.glb", 60), pc2 = read_mesh_animation(dir / "bake.pc2", 20);
  ASSERT_EQ(gltf.times.size(), 11u);
  ASSERT_EQ(pc2.times.size(), 11u);
  for (std::size_t f = 0; f < 11; ++f) EXPECT_NEAR(gltf.times[f], pc2.times[f], 1e-6) << f;
  const Mesh rest = read_gltf(clonk).mesh;
  EXPECT_LT(largest_gap(gltf.positions, pc2.positions), 1e-5 * rest.size());
  EXPECT_GT(largest_gap({pc2.positions.back()}, {rest.positions}), 0.05 * rest.size());  // the frames move

  // So the decompositions of either are one (their reconstructions, within float noise).
  const std::string decompose =
      "decompose " + shell_quoted(clonk) + " --bones 6 --iterations 10 --threads 2 -q --cache ";
  ASSERT_EQ(
      run_wobble(decompose + shell_quoted(dir / "bake.glb") + " -o " + shell_quoted(dir / "from_gltf.pc2")).exit_code,
      0);
  ASSERT_EQ(
      run_wobble(decompose + shell_quoted(dir / "bake.pc2") + " --fps 20 -o " + shell_quoted(dir / "from_pc2.pc2"))
          .exit_code,
      0);
  EXPECT_LT(largest_gap(read_pc2(dir / "from_gltf.pc2"), read_pc2(dir / "from_pc2.pc2")), 1e-4 * rest.size());

  // Another rest pose: the vertex counts differ.
  write_obj(dir / "box.obj", test::box_mesh(1.0f, 1.0f, 1.0f), test::box_mesh(1.0f, 1.0f, 1.0f).positions);
  const auto mismatch =
      run_wobble("decompose " + shell_quoted(dir / "box.obj") + " --cache " + shell_quoted(dir / "bake.glb") +
                 " -q -o " + shell_quoted(dir / "out.glb") + " 2>&1");
  EXPECT_EQ(mismatch.exit_code, 1);
  EXPECT_NE(mismatch.output.find("bake.glb: 1814 vertices a frame, the rest pose"), std::string::npos)
      << mismatch.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "out.glb"));
}

TEST(CliDecompose, BadInputIsOneLineNamingTheFileOrFlag) {
  Scene scene;
  Mesh fewer = scene.mesh;
  fewer.positions.resize(8);
  fewer.triangles.resize(12);
  write_obj(scene.dir / "fewer.obj", fewer, fewer.positions);
  std::vector<char> nan_cache = test::read_bytes(scene.dir / "anim.pc2");  // frame 3, vertex 5, y: a NaN
  const float nan = std::nanf("");
  std::memcpy(nan_cache.data() + 32 + (3 * 16 + 5) * 12 + 4, &nan, sizeof nan);
  test::write_bytes(scene.dir / "nan.pc2", std::string(nan_cache.begin(), nan_cache.end()));
  std::filesystem::create_directory(scene.dir / "empty");

  const std::string rest = shell_quoted(scene.dir / "rest.obj"),
                    pc2 = " --cache " + shell_quoted(scene.dir / "anim.pc2");
  const std::string out = " -q -o " + shell_quoted(scene.dir / "out.glb");
  struct Case {
    std::string arguments, expected;
  };
  const Case cases[] = {
      {"decompose " + shell_quoted(scene.dir / "fewer.obj") + pc2 + out, "anim.pc2: 16 vertices a frame"},
      {"decompose " + rest + " --cache " + shell_quoted(scene.dir / "nan.pc2") + out,
       "nan.pc2: frame 3 vertex 5 is not finite"},
      {"decompose " + rest + " --cache " + shell_quoted(scene.dir / "empty") + out, "empty: no .obj files"},
      {"decompose " + rest + " --cache " + shell_quoted(scene.dir / "missing.pc2") + out, "missing.pc2"},
      {"decompose " + rest + " --cache " + shell_quoted(scene.dir / "rest.obj") + out, "unknown mesh animation '.obj'"},
      {"decompose " + rest + " --cache " + shell_quoted(test::bundled_asset("clonk.glb")) + out,
       "clonk.glb: has no morph targets"},
      {"decompose " + rest + pc2 + " --bones 0" + out, "--bones: 0 is out of range"},
      {"decompose " + rest + pc2 + " --bones 2abc" + out, "--bones: '2abc'"},
      {"decompose " + rest + pc2 + " --bones 17" + out, "--bones: 17 bones for 16 vertices"},
      {"decompose " + rest + pc2 + " --influences 9" + out, "--influences: 9 is out of range"},
      {"decompose " + rest + pc2 + " --tolerance nan" + out, "--tolerance: 'nan'"},
      {"decompose " + rest + pc2 + " --fps 0" + out, "--fps: 0 is out of range"},
      {"decompose " + rest + pc2 + " -q -o " + shell_quoted(scene.dir / "out.fbx"), "unknown output type '.fbx'"},
  };
  for (const Case& c : cases) {
    const auto result = run_wobble(c.arguments + " 2>&1 >/dev/null");
    EXPECT_EQ(result.exit_code, 1) << c.arguments << "\n" << result.output;
    EXPECT_NE(result.output.find(c.expected), std::string::npos) << c.arguments << "\n" << result.output;
    EXPECT_EQ(wobble::test::count_lines(result.output), 1u) << c.arguments << "\n" << result.output;
    EXPECT_FALSE(std::filesystem::exists(scene.dir / "out.glb")) << c.arguments;
  }
}
