// File formats: the assimp importer on real skinned models and BVH motion capture, OFF shapes,
// OBJ and PC2 round trips, and clear errors (naming the file) for bad inputs and failed writes.
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <wobble/error.hpp>
#include <wobble/io/files.hpp>
#include <wobble/pose.hpp>

#include "test_util.hpp"

using namespace wobble;
namespace fs = std::filesystem;

namespace {

// Runs `action` and returns the message of the wobble::Error it throws ("" if none is thrown).
template <typename F>
std::string error_of(F&& action) {
  try {
    action();
  } catch (const Error& error) {
    return error.what();
  }
  return {};
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Linear blend skinning written out plainly: p' = sum_k w_k (M_jk p).
std::vector<Vec3f> skin_positions(const Character& character, const Pose& pose) {
  std::vector<Vec3f> out(character.mesh.vertex_count(), Vec3f::Zero());
  for (std::size_t v = 0; v < out.size(); ++v) {
    const auto joints = character.skin.joints_of(v);
    const auto weights = character.skin.weights_of(v);
    const Eigen::Vector4f p = character.mesh.positions[v].homogeneous();
    for (std::size_t k = 0; k < joints.size(); ++k) out[v] += weights[k] * (pose.skinning[joints[k]] * p).head<3>();
  }
  return out;
}

// Expected counts of the skinned assimp test models. They come from `assimp dump FILE out.xml -s`
// (assimp's own command-line tool, raw import without post-processing), read by a short Python
// script: vertices = sum of <Positions num> over meshes, triangles = sum over faces of (corners - 2),
// bones = distinct <Bone name>s, joints = the nodes that are bones or animation targets plus all
// their ancestors (counted in the dumped node tree), clips = <Animation> elements, and the clip
// length = duration / tick_cnt of the first animation. `assimp info FILE -r` agrees on the
// vertex, bone and animation counts.
struct SkinnedModel {
  const char* file;
  std::size_t vertices, triangles, joints, bones, clips;
  double first_clip_seconds;
};
// GoogleTest prints parameters in test listings (and CTest shows them): the file, not raw bytes.
void PrintTo(const SkinnedModel& model, std::ostream* os) { *os << model.file; }
const SkinnedModel kSkinnedModels[] = {
    {"X/BCN_Epileptic.X", 15378, 5126, 58, 54, 1, 15840.0 / 4800.0},
    {"X/Testwuson.X", 11196, 3732, 40, 37, 3, 4640.0 / 4800.0},
    {"FBX/animation_with_skeleton.fbx", 4224, 2112, 16, 14, 1, 20.0 / 24.0},
    {"FBX/huesitos.fbx", 256, 120, 11, 9, 1, 39.0 / 25.0},
};

}  // namespace

// --- assimp: skinned models -----------------------------------------------------------------

class FormatsSkinnedModel : public ::testing::TestWithParam<SkinnedModel> {};

TEST_P(FormatsSkinnedModel, LoadsWithTheRightCountsAndSkinsToFinitePositions) {
  const SkinnedModel& model = GetParam();
  const fs::path file = test::assimp_model(model.file);
  if (!fs::exists(file)) GTEST_SKIP() << file << " not installed (Debian package assimp-testmodels)";
  const Character character = load_character(file);

  EXPECT_EQ(character.source, file);
  EXPECT_TRUE(character.is_skinned());
  EXPECT_EQ(character.mesh.vertex_count(), model.vertices);
  EXPECT_EQ(character.mesh.triangle_count(), model.triangles);
  EXPECT_EQ(character.rig.joint_count(), model.joints);
  ASSERT_EQ(character.clips.size(), model.clips);
  EXPECT_NEAR(character.clips[0].duration(), model.first_clip_seconds, 1e-3);
  EXPECT_EQ(character.mesh.normals.size(), model.vertices);

  // Every bone is a skinned joint (a rigidly attached mesh node would add one more).
  const auto skinned = std::count(character.rig.skinned.begin(), character.rig.skinned.end(), true);
  EXPECT_GE(static_cast<std::size_t>(skinned), model.bones);
  EXPECT_LE(static_cast<std::size_t>(skinned), model.bones + 3);

  // Weights: one row per vertex, each summing to one.
  ASSERT_EQ(character.skin.vertex_count(), model.vertices);
  for (std::size_t v = 0; v < model.vertices; ++v) {
    double sum = 0;
    for (float w : character.skin.weights_of(v)) {
      ASSERT_TRUE(std::isfinite(w) && w > 0.0f && w <= 1.0f + 1e-6f) << "vertex " << v;
      sum += w;
    }
    ASSERT_NEAR(sum, 1.0, 1e-5) << "vertex " << v;
  }

  // Every clip, sampled in its middle, skins to finite positions within a sane distance.
  const float size = character.mesh.size();
  ASSERT_GT(size, 0.0f);
  const Vec3f centre = character.mesh.bounds().center();
  for (const Clip& clip : character.clips) {
    Pose pose;
    evaluate_pose(character.rig, &clip, 0.5f * (clip.start() + clip.end()), pose);
    const std::vector<Vec3f> posed = skin_positions(character, pose);
    for (std::size_t v = 0; v < posed.size(); ++v) {
      ASSERT_TRUE(posed[v].allFinite()) << clip.name << " vertex " << v;
      ASSERT_LT((posed[v] - centre).norm(), 100.0f * size) << clip.name << " vertex " << v;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Formats, FormatsSkinnedModel, ::testing::ValuesIn(kSkinnedModels),
                         [](const ::testing::TestParamInfo<SkinnedModel>& info) {
                           return wobble::test::parameter_name(fs::path(info.param.file).stem().string());
                         });

// Skinning the bind pose must give back the bind-space mesh: this checks the inverse bind
// matrices (assimp's offset matrices, row-major, moved into wobble's bind space) against the node
// transforms and key values, which are read independently. In these files the rest pose is the
// bind pose (checked with a small program on assimp's own data: boneWorld * offset * v gives the
// mesh back to 1e-5 of its size), and Testwuson's clip "Wuson_Bind" holds it too.
// (animation_with_skeleton.fbx's rest pose is not its bind pose, so it is not in this list.)
TEST(FormatsAssimp, BindPoseSkinsToTheBindMesh) {
  const struct {
    const char* file;
    const char* clip;  // nullptr: the rest pose
  } cases[] = {{"FBX/huesitos.fbx", nullptr},
               {"X/Testwuson.X", nullptr},
               {"X/BCN_Epileptic.X", nullptr},
               {"X/Testwuson.X", "Wuson_Bind"}};
  for (const auto& c : cases) {
    const fs::path file = test::assimp_model(c.file);
    if (!fs::exists(file)) GTEST_SKIP() << file << " not installed";
    const Character character = load_character(file);
    const Clip* clip = nullptr;
    if (c.clip) {
      const auto index = character.find_clip(c.clip);
      ASSERT_TRUE(index.has_value()) << c.file;
      clip = &character.clips[*index];
    }
    Pose pose;
    evaluate_pose(character.rig, clip, clip ? clip->start() : 0.0f, pose);
    const std::vector<Vec3f> posed = skin_positions(character, pose);
    const float tolerance = 1e-3f * character.mesh.size();
    float worst = 0;
    for (std::size_t v = 0; v < posed.size(); ++v)
      worst = std::max(worst, (posed[v] - character.mesh.positions[v]).norm());
    EXPECT_LT(worst, tolerance) << c.file;
  }
}

TEST(FormatsAssimp, ClipsNameTheFileAnimationsAndUseSeconds) {
  const fs::path file = test::assimp_model("X/Testwuson.X");
  if (!fs::exists(file)) GTEST_SKIP() << file << " not installed";
  const Character character = load_character(file);
  // Names and lengths as listed by `assimp info -r` / `assimp dump` (4800 ticks per second).
  ASSERT_EQ(character.clips.size(), 3u);
  EXPECT_EQ(character.clips[0].name, "Wuson_Run");
  EXPECT_EQ(character.clips[1].name, "Wuson_Walk");
  EXPECT_EQ(character.clips[2].name, "Wuson_Bind");
  EXPECT_NEAR(character.clips[1].duration(), 17280.0 / 4800.0, 1e-3);
  EXPECT_TRUE(character.find_clip("Wuson_Walk").has_value());
  for (const Clip& clip : character.clips)
    for (const Channel& channel : clip.channels) {
      EXPECT_EQ(channel.interpolation, Interpolation::Linear);
      if (channel.path != ChannelPath::Rotation) continue;
      for (std::size_t k = 0; k < channel.key_count(); ++k) {
        const Eigen::Map<const Vec4f> q(&channel.values[4 * k]);
        ASSERT_NEAR(q.norm(), 1.0f, 1e-4f);
      }
    }
}

// --- assimp: BVH motion capture (skeleton and motion, no mesh) --------------------------------

TEST(FormatsBvh, LoadsSkeletonAndOneClipWithoutMesh) {
  // Node and animated-node counts from `assimp dump FILE out.xml -s` (all nodes of the hierarchy,
  // end sites included, become joints; every joint but the end sites has a channel).
  const struct {
    const char* file;
    std::size_t joints, animated;
    double seconds;  // duration / ticks per second from the dump
  } cases[] = {{"BVH/01_01.bvh", 38, 31, 2751.0 / 120.0005},
               {"BVH/01_03.bvh", 38, 31, 4510.0 / 120.0005},
               {"BVH/Boxing_Toes.bvh", 26, 21, 3068.0 / 100.0}};
  for (const auto& c : cases) {
    const fs::path file = test::assimp_model(c.file);
    if (!fs::exists(file)) GTEST_SKIP() << file << " not installed";
    const Character character = load_character(file);
    EXPECT_EQ(character.mesh.vertex_count(), 0u) << c.file;
    EXPECT_TRUE(character.skin.empty()) << c.file;
    EXPECT_FALSE(character.is_skinned()) << c.file;
    EXPECT_EQ(character.rig.joint_count(), c.joints) << c.file;
    ASSERT_EQ(character.clips.size(), 1u) << c.file;
    std::set<std::uint32_t> animated;
    for (const Channel& channel : character.clips[0].channels) animated.insert(channel.joint);
    EXPECT_EQ(animated.size(), c.animated) << c.file;
    EXPECT_NEAR(character.clips[0].duration(), c.seconds, 1e-2) << c.file;
    Pose pose;
    evaluate_pose(character.rig, &character.clips[0], 0.5f * character.clips[0].end(), pose);
    for (const Mat4f& world : pose.world) ASSERT_TRUE(world.allFinite()) << c.file;
  }
}

// --- OFF ---------------------------------------------------------------------------------------

namespace {
struct OffCounts {
  std::size_t vertices = 0, faces = 0, triangles = 0;
};
// The test's own OFF reading: header counts, and triangles as sum of (corners - 2) over faces.
OffCounts count_off(const fs::path& file) {
  std::ifstream in(file);
  std::string keyword;
  in >> keyword;
  OffCounts counts;
  std::size_t edges;
  in >> counts.vertices >> counts.faces >> edges;
  std::string line;
  std::getline(in, line);
  for (std::size_t v = 0; v < counts.vertices;) {
    std::getline(in, line);
    if (line.find_first_not_of(" \t\r") != std::string::npos) ++v;
  }
  for (std::size_t f = 0; f < counts.faces;) {
    std::getline(in, line);
    std::istringstream words(line);
    std::size_t corners = 0;
    if (words >> corners) {
      counts.triangles += corners >= 3 ? corners - 2 : 0;
      ++f;
    }
  }
  return counts;
}
}  // namespace

TEST(FormatsOff, EveryShapeLoadsWithTheHeaderCounts) {
  const fs::path folder = test::shared_asset("shapes");
  if (!fs::is_directory(folder)) GTEST_SKIP() << folder << " missing";
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(folder)) {
    if (entry.path().extension() != ".off") continue;
    ++files;
    const OffCounts expected = count_off(entry.path());
    const Character character = load_character(entry.path());
    EXPECT_EQ(character.mesh.vertex_count(), expected.vertices) << entry.path();
    EXPECT_EQ(character.mesh.triangle_count(), expected.triangles) << entry.path();
    EXPECT_EQ(expected.triangles, expected.faces) << entry.path() << " (all CGAL shapes are triangle meshes)";
    EXPECT_TRUE(character.rig.empty());
    EXPECT_TRUE(character.skin.empty());
    EXPECT_FALSE(character.is_skinned());
    EXPECT_GT(character.mesh.size(), 0.0f) << entry.path();
  }
  EXPECT_GE(files, 29u);
}

TEST(FormatsOff, ReadsVariantsCommentsAndFansPolygons) {
  test::ScratchDir dir;
  // NOFF with normals, counts on the keyword line, comments, a quad and a colour after a face.
  test::write_bytes(dir / "quad.off",
                    "NOFF 5 2 0  # header\n"
                    "# a comment line\n"
                    "0 0 0  0 0 2\n1 0 0  0 0 1\n1 1 0  0 0 1\n0 1 0  0 0 1\n\n0.5 0.5 1  0 1 0\n"
                    "4 0 1 2 3\n"
                    "3 0 1 4  255 0 0\n");
  const Character character = read_off(dir / "quad.off");
  ASSERT_EQ(character.mesh.vertex_count(), 5u);
  ASSERT_EQ(character.mesh.triangle_count(), 3u);
  EXPECT_EQ(character.mesh.triangles[0], (Triangle{0, 1, 2}));
  EXPECT_EQ(character.mesh.triangles[1], (Triangle{0, 2, 3}));
  EXPECT_EQ(character.mesh.triangles[2], (Triangle{0, 1, 4}));
  ASSERT_EQ(character.mesh.normals.size(), 5u);
  EXPECT_TRUE(character.mesh.normals[0].isApprox(Vec3f(0, 0, 1)));  // normalised
  EXPECT_TRUE(character.mesh.positions[4].isApprox(Vec3f(0.5f, 0.5f, 1.0f)));

  test::write_bytes(dir / "color.off",
                    "COFF\n3 1 0\n0 0 0 255 0 0 255\n1 0 0 0 255 0 255\n0 1 0 0 0 255 255\n3 0 1 2\n");
  EXPECT_EQ(read_off(dir / "color.off").mesh.triangle_count(), 1u);
}

// --- OBJ ---------------------------------------------------------------------------------------

TEST(FormatsObj, SplitsVerticesPerCornerAndResolvesNegativeIndices) {
  test::ScratchDir dir;
  test::write_bytes(dir / "seams.obj",
                    "# two groups sharing positions, with a uv seam\n"
                    "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\n"
                    "vt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nvt 0.5 0.25\n"
                    "vn 0 0 1\n"
                    "g first\n"
                    "f 1/1/1 2/2/1 3/3/1 4/4/1\n"
                    "g second\n"
                    "usemtl red\n"
                    "f -4/-1/-1 -3/2/1 -2/3/1\n");
  const Character character = read_obj(dir / "seams.obj");
  const Mesh& mesh = character.mesh;
  // First group: 4 corners, 2 triangles; second: 3 new corners (vertices are not shared across
  // groups, and corner 1 has a different uv anyway).
  ASSERT_EQ(mesh.vertex_count(), 7u);
  ASSERT_EQ(mesh.triangle_count(), 3u);
  ASSERT_EQ(mesh.primitives.size(), 2u);
  EXPECT_EQ(mesh.primitives[0].name, "first");
  EXPECT_EQ(mesh.primitives[1].name, "second");
  EXPECT_EQ(mesh.primitives[1].first_vertex, 4u);
  EXPECT_EQ(mesh.primitives[1].triangle_count, 1u);
  ASSERT_EQ(mesh.materials.size(), 1u);
  EXPECT_EQ(mesh.materials[0].name, "red");
  EXPECT_EQ(mesh.primitives[1].material, 0);
  EXPECT_EQ(mesh.primitives[0].material, -1);
  EXPECT_EQ(mesh.triangles[1], (Triangle{0, 2, 3}));
  EXPECT_EQ(mesh.triangles[2], (Triangle{4, 5, 6}));
  EXPECT_TRUE(mesh.positions[4].isApprox(Vec3f(0, 0, 0)));
  // OBJ's v runs up the image, glTF's (and Mesh::uvs') down: v is flipped.
  EXPECT_TRUE(mesh.uvs[4].isApprox(Vec2f(0.5f, 0.75f)));
  EXPECT_TRUE(mesh.uvs[1].isApprox(Vec2f(1.0f, 1.0f)));
  ASSERT_EQ(mesh.normals.size(), 7u);
  EXPECT_TRUE(character.rig.empty());
  EXPECT_TRUE(character.skin.empty());
}

TEST(FormatsObj, MaterialTexturesAreTypedByTheirExtensionInAnyCase) {
  test::ScratchDir dir;
  test::write_bytes(dir / "skin.JPEG", std::string("\xFF\xD8\xFF\xE0 not a whole JPEG", 20));
  test::write_bytes(dir / "decal.Png", "png bytes");
  test::write_bytes(dir / "bump.tga", "tga bytes");
  test::write_bytes(dir / "box.mtl",
                    "newmtl skin\nmap_Kd -s 1 1 1 skin.JPEG\n"
                    "newmtl decal\nmap_Kd decal.Png\n"
                    "newmtl bump\nmap_Kd bump.tga\n");
  test::write_bytes(dir / "box.obj",
                    "mtllib box.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\n"
                    "usemtl skin\nf 1 2 3\nusemtl decal\nf 1 2 3\nusemtl bump\nf 1 2 3\n");
  const Character character = read_obj(dir / "box.obj");
  const Mesh& mesh = character.mesh;
  ASSERT_EQ(mesh.images.size(), 2u);
  EXPECT_EQ(mesh.images[0].name, "skin.JPEG");
  EXPECT_EQ(mesh.images[0].mime_type, "image/jpeg");
  EXPECT_EQ(mesh.images[1].mime_type, "image/png");
  EXPECT_EQ(mesh.images[1].encoded.size(), std::string("png bytes").size());
  // A TGA is neither PNG nor JPEG: skipped, said once.
  EXPECT_EQ(character.diagnostics.count("obj_texture_skipped"), 1u);
}

TEST(FormatsObj, WriteThenReadKeepsPositionsUvsAndTriangles) {
  Mesh mesh;
  mesh.positions = {{0.1f, 0.2f, 0.3f}, {1.5f, -2.25f, 1e-7f}, {3.0f, 1.0f / 3.0f, -4.0f}, {7, 8, 9}, {1, 1, 1}};
  mesh.uvs = {{0.0f, 0.0f}, {0.25f, 0.5f}, {1.0f, 1.0f}, {0.3f, 0.7f}, {0.9f, 0.1f}};
  mesh.triangles = {{0, 1, 2}, {2, 1, 3}, {3, 4, 0}};
  Primitive a, b;
  a.name = "left part";
  a.vertex_count = 5;
  a.triangle_count = 2;
  b.name = "right";
  b.first_triangle = 2;
  b.triangle_count = 1;
  mesh.primitives = {a, b};
  // Deformed positions: the file holds these, not the rest ones.
  std::vector<Vec3f> positions = mesh.positions;
  for (Vec3f& p : positions) p = p * 2.0f + Vec3f(0.5f, 0, 0);

  test::ScratchDir dir;
  write_obj(dir / "out.obj", mesh, positions);
  const Character back = read_obj(dir / "out.obj");
  ASSERT_EQ(back.mesh.triangle_count(), mesh.triangle_count());
  ASSERT_EQ(back.mesh.uvs.size(), back.mesh.vertex_count());
  ASSERT_EQ(back.mesh.primitives.size(), 2u);
  EXPECT_EQ(back.mesh.primitives[0].name, "left_part");
  EXPECT_EQ(back.mesh.primitives[1].triangle_count, 1u);
  for (std::size_t t = 0; t < mesh.triangle_count(); ++t)
    for (int k = 0; k < 3; ++k) {
      const auto original = mesh.triangles[t][k];
      const auto read = back.mesh.triangles[t][k];
      EXPECT_EQ(back.mesh.positions[read], positions[original]) << "triangle " << t;  // shortest round-trip text
      EXPECT_NEAR(back.mesh.uvs[read].x(), mesh.uvs[original].x(), 1e-6f);
      EXPECT_NEAR(back.mesh.uvs[read].y(), mesh.uvs[original].y(), 1e-6f);
    }

  // Writing the same thing twice gives the same bytes.
  write_obj(dir / "again.obj", mesh, positions);
  EXPECT_EQ(test::read_bytes(dir / "out.obj"), test::read_bytes(dir / "again.obj"));
}

TEST(FormatsObj, SequenceWritesOneFilePerFrame) {
  Mesh mesh;
  mesh.positions = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
  mesh.triangles = {{0, 1, 2}};
  BakedFrames baked;
  for (int f = 0; f < 3; ++f) {
    baked.times.push_back(f / 30.0f);
    baked.positions.push_back({{0, 0, float(f)}, {1, 0, float(f)}, {0, 1, float(f)}});
  }
  test::ScratchDir dir;
  write_obj_sequence(dir / "frames", mesh, baked);
  for (int f = 0; f < 3; ++f) {
    const fs::path file = dir / "frames" / (std::string("frame_000") + char('0' + f) + ".obj");
    ASSERT_TRUE(fs::exists(file)) << file;
    EXPECT_EQ(read_obj(file).mesh.positions[0].z(), float(f));
  }
  EXPECT_EQ(std::distance(fs::directory_iterator(dir / "frames"), fs::directory_iterator()), 3);

  // A frame with the wrong vertex count: an error, and no folder at all.
  baked.positions[2].pop_back();
  EXPECT_TRUE(contains(error_of([&] { write_obj_sequence(dir / "broken", mesh, baked); }), "broken"));
  EXPECT_FALSE(fs::exists(dir / "broken"));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 1);
}

// --- PC2 ---------------------------------------------------------------------------------------

TEST(FormatsPc2, HeaderBytesOfAHandMadeCache) {
  BakedFrames baked;
  baked.times = {1.0f, 1.0f + 1.0f / 24.0f, 1.0f + 2.0f / 24.0f};
  baked.positions = {{{1, 2, 3}, {4, 5, 6}}, {{1.5f, 2, 3}, {4, 5, 6}}, {{2, 2, 3}, {4, 5, -6}}};
  test::ScratchDir dir;
  write_pc2(dir / "cache.pc2", baked, 24.0f);
  const std::vector<char> bytes = test::read_bytes(dir / "cache.pc2");
  ASSERT_EQ(bytes.size(), 32u + 3u * 2u * 12u);
  const unsigned char header[32] = {
      'P',  'O',  'I',  'N',  'T', 'C', 'A', 'C', 'H', 'E', '2', 0,  // magic
      1,    0,    0,    0,                                           // version 1
      2,    0,    0,    0,                                           // 2 points
      0x00, 0x00, 0xC0, 0x41,                                        // start frame 24.0f (1 s at 24 fps)
      0x00, 0x00, 0x80, 0x3F,                                        // sample step 1.0f (every frame)
      3,    0,    0,    0,                                           // 3 samples
  };
  EXPECT_EQ(std::memcmp(bytes.data(), header, 32), 0);
  // First sample, first point: 1.0f 2.0f 3.0f, little-endian.
  const unsigned char first_point[12] = {0, 0, 0x80, 0x3F, 0, 0, 0, 0x40, 0, 0, 0x40, 0x40};
  EXPECT_EQ(std::memcmp(bytes.data() + 32, first_point, 12), 0);
}

TEST(FormatsPc2, WriteReadRoundTrip) {
  BakedFrames baked;
  for (int f = 0; f < 4; ++f) {
    baked.times.push_back(f / 30.0f);
    std::vector<Vec3f> frame;
    for (int v = 0; v < 5; ++v) frame.emplace_back(v * 0.1f, f * 1.5f, -v * f * 1e-3f);
    baked.positions.push_back(frame);
  }
  test::ScratchDir dir;
  write_pc2(dir / "c.pc2", baked, 30.0f);
  EXPECT_EQ(read_pc2(dir / "c.pc2"), baked.positions);
}

TEST(FormatsPc2, BadFilesAreErrorsNamingTheFile) {
  test::ScratchDir dir;
  BakedFrames baked;
  baked.times = {0.0f, 0.1f};
  baked.positions = {{{1, 2, 3}}, {{4, 5, 6}}};
  write_pc2(dir / "good.pc2", baked, 10.0f);
  std::vector<char> bytes = test::read_bytes(dir / "good.pc2");

  test::write_bytes(dir / "cut.pc2", std::string(bytes.begin(), bytes.end() - 5));
  const std::string cut = error_of([&] { read_pc2(dir / "cut.pc2"); });
  EXPECT_TRUE(contains(cut, "cut.pc2")) << cut;
  EXPECT_TRUE(contains(cut, "truncated")) << cut;

  bytes[0] = 'Q';
  test::write_bytes(dir / "magic.pc2", std::string(bytes.begin(), bytes.end()));
  const std::string magic = error_of([&] { read_pc2(dir / "magic.pc2"); });
  EXPECT_TRUE(contains(magic, "magic.pc2")) << magic;
  EXPECT_TRUE(contains(magic, "POINTCACHE2")) << magic;

  test::write_bytes(dir / "tiny.pc2", "POINT");
  EXPECT_TRUE(contains(error_of([&] { read_pc2(dir / "tiny.pc2"); }), "tiny.pc2"));

  // Non-finite positions are refused before anything is written.
  baked.positions[1][0].x() = std::nanf("");
  EXPECT_TRUE(contains(error_of([&] { write_pc2(dir / "nan.pc2", baked, 10.0f); }), "nan.pc2"));
  EXPECT_FALSE(fs::exists(dir / "nan.pc2"));
}

// --- bad inputs ------------------------------------------------------------------------------

TEST(FormatsErrors, BadInputsAreErrorsNamingTheFile) {
  test::ScratchDir dir;
  const struct {
    const char* name;
    std::string content;
    const char* detail;  // a word the message must contain
  } cases[] = {
      {"truncated.off", "OFF\n4 2 0\n0 0 0\n1 0 0\n0 1 0\n", "truncated"},
      {"truncated_faces.off", "OFF\n3 2 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n", "truncated"},
      {"range.off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 3\n", "vertex 3"},
      {"badcounts.off", "OFF\nthree 1 0\n0 0 0\n", "counts"},
      {"huge.off", "OFF\n100000000 1 0\n0 0 0\n", "truncated"},
      {"nan.off", "OFF\n3 1 0\n0 0 0\nnan 0 0\n0 1 0\n3 0 1 2\n", "not finite"},
      {"notoff.off", "PLY\n3 1 0\n", "OFF"},
      {"face.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9\n", "line 4"},
      {"zero.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n", "line 4"},
      {"nan.obj", "v 0 0 0\nv nan 0 0\nv 0 1 0\nf 1 2 3\n", "line 2"},
      {"word.obj", "v 0 0 zero\n", "line 1"},
      {"garbage.fbx", std::string("\x13\x37 this is not an FBX file \x01\x02\x03 at all\n"), "garbage.fbx"},
      {"unknown.xyzzy", "whatever", ".obj"},
      {"splat.ply",
       "ply\nformat binary_little_endian 1.0\nelement vertex 1\nproperty float x\nproperty float y\n"
       "property float z\nproperty float f_dc_0\nproperty float opacity\nend_header\n",
       "Gaussian"},
      {"empty.off", "", "OFF"},
  };
  for (const auto& c : cases) {
    test::write_bytes(dir / c.name, c.content);
    const std::string message = error_of([&] { load_character(dir / c.name); });
    EXPECT_TRUE(contains(message, c.name)) << c.name << ": '" << message << "'";
    EXPECT_TRUE(contains(message, c.detail)) << c.name << ": '" << message << "'";
    EXPECT_FALSE(contains(message, "\n")) << c.name << ": '" << message << "'";
  }
  const std::string missing = error_of([&] { load_character(dir / "missing.fbx"); });
  EXPECT_TRUE(contains(missing, "missing.fbx")) << missing;
  EXPECT_TRUE(contains(missing, "no such file")) << missing;
}

TEST(FormatsErrors, FailedWritesLeaveNoFileBehind) {
  test::ScratchDir dir;
  test::write_bytes(dir / "plain_file", "not a folder");
  Mesh mesh;
  mesh.positions = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
  mesh.triangles = {{0, 1, 2}};
  BakedFrames baked;
  baked.times = {0.0f};
  baked.positions = {mesh.positions};

  // The folder to write into is a file (permissions would not stop a test running as root).
  const fs::path bad = dir / "plain_file" / "out.obj";
  EXPECT_TRUE(contains(error_of([&] { write_obj(bad, mesh, mesh.positions); }), "out.obj"));
  EXPECT_TRUE(contains(error_of([&] { write_pc2(dir / "plain_file" / "out.pc2", baked, 24.0f); }), "out.pc2"));
  EXPECT_TRUE(contains(error_of([&] { write_obj_sequence(dir / "plain_file" / "seq", mesh, baked); }), "seq"));
  EXPECT_TRUE(
      contains(error_of([&] { write_obj(dir / "missing_folder" / "out.obj", mesh, mesh.positions); }), "out.obj"));
  // Wrong input sizes: refused, nothing written.
  const std::vector<Vec3f> two = {{0, 0, 0}, {1, 1, 1}};
  EXPECT_TRUE(contains(error_of([&] { write_obj(dir / "short.obj", mesh, two); }), "short.obj"));
  std::vector<std::string> left;
  for (const auto& entry : fs::directory_iterator(dir.path())) left.push_back(entry.path().filename().string());
  EXPECT_EQ(left, std::vector<std::string>{"plain_file"});
}
