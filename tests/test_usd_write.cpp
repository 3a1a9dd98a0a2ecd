// USD text output: what write_usda puts in the file, checked against the usda it must be (hand
// computed on a two-triangle square), and its refusals. tests/usd reads real bakes back with
// TinyUSDZ, an independent USD reader.
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include <wobble/error.hpp>
#include <wobble/io/usd_write.hpp>

#include "test_util.hpp"

namespace wobble {
namespace {

// A unit square in the XY plane (normal +Z), two triangles, UVs at the corners.
Character square() {
  Character c;
  c.source = "my square.glb";
  c.mesh.positions = {Vec3f(0, 0, 0), Vec3f(1, 0, 0), Vec3f(1, 1, 0), Vec3f(0, 1, 0)};
  c.mesh.normals.assign(4, Vec3f(0, 0, 1));
  c.mesh.uvs = {Vec2f(0, 1), Vec2f(1, 1), Vec2f(1, 0), Vec2f(0, 0)};
  c.mesh.triangles = {Triangle{0, 1, 2}, Triangle{0, 2, 3}};
  return c;
}

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(UsdWrite, SquareTurnedAboutX) {
  const Character c = square();
  BakedFrames baked;
  baked.times = {0.5f, 0.5f + 1.0f / 24};
  baked.positions = {c.mesh.positions,
                     {Vec3f(0, 0, 0), Vec3f(1, 0, 0), Vec3f(1, 0, 1), Vec3f(0, 0, 1)}};  // a quarter turn
  test::ScratchDir dir;
  write_usda(dir / "out.usda", c, baked, 24, "a \"test\"");
  const std::string text = read_text(dir / "out.usda");
  EXPECT_EQ(text.rfind("#usda 1.0\n(\n", 0), 0u);
  for (const char* expected :
       {"    defaultPrim = \"my_square\"\n", "    doc = \"a \\\"test\\\"\"\n", "    startTimeCode = 12\n",
        "    endTimeCode = 13\n", "    timeCodesPerSecond = 24\n", "    framesPerSecond = 24\n", "    upAxis = \"Y\"\n",
        "    metersPerUnit = 1\n", "def Xform \"my_square\"\n", "    def Mesh \"Mesh\"\n",
        "        int[] faceVertexCounts = [3, 3]\n", "        int[] faceVertexIndices = [0, 1, 2, 0, 2, 3]\n",
        "            12: [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0)],\n",
        "            13: [(0, 0, 0), (1, 0, 0), (1, 0, 1), (0, 0, 1)],\n",
        // The normals turn with the surface: +Z, then -Y.
        "            12: [(0, 0, 1), (0, 0, 1), (0, 0, 1), (0, 0, 1)],\n",
        "            13: [(0, -1, 0), (0, -1, 0), (0, -1, 0), (0, -1, 0)],\n",
        "            13: [(0, 0, 0), (1, 0, 1)],\n",  // extent
        "        normal3f[] normals (\n            interpolation = \"vertex\"\n        )\n",
        // glTF's v runs down the image, USD's t up.
        "        texCoord2f[] primvars:st = [(0, 0), (1, 0), (1, 1), (0, 1)] (\n            interpolation = "
        "\"vertex\"\n",
        "        uniform token subdivisionScheme = \"none\"\n"}) {
    EXPECT_NE(text.find(expected), std::string::npos) << "missing: " << expected;
  }
}

TEST(UsdWrite, RefusesBadFramesAndLeavesNoFile) {
  const Character c = square();
  test::ScratchDir dir;
  const auto path = dir / "out.usda";
  BakedFrames nan_frame{{0.0f}, {c.mesh.positions}, {}};
  nan_frame.positions[0][2].x() = std::numeric_limits<float>::quiet_NaN();
  BakedFrames wrong_count{{0.0f}, {{Vec3f::Zero()}}, {}};
  BakedFrames backwards{{0.1f, 0.0f}, {c.mesh.positions, c.mesh.positions}, {}};
  for (const BakedFrames* baked : {&nan_frame, &wrong_count, &backwards}) {
    EXPECT_THROW(write_usda(path, c, *baked, 30), Error);
    EXPECT_FALSE(std::filesystem::exists(path));
  }
  BakedFrames good{{0.0f}, {c.mesh.positions}, {}};
  EXPECT_THROW(write_usda(path, c, good, 0), Error);
  EXPECT_THROW(write_usda(dir / "no such folder" / "out.usda", c, good, 30), Error);
  try {
    write_usda(path, c, nan_frame, 30);
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("out.usda: frame 0 vertex 2 is not finite"), std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace wobble
