// glTF reading and writing: the shared characters load with the expected sizes and repairs,
// round trips keep everything, written files pass the Khronos validator, baked morph-target
// output reproduces the baked positions, and bad files give one-line errors naming the file.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <tiny_gltf.h>

#include <wobble/error.hpp>
#include <wobble/io/files.hpp>
#include <wobble/pose.hpp>

#include "test_util.hpp"

namespace wobble {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using test::ScratchDir;
using test::shared_asset;

std::size_t skinned_joints(const Rig& rig) {
  std::size_t count = 0;
  for (bool s : rig.skinned) count += s ? 1 : 0;
  return count;
}

void expect_weights_sum_to_one(const Character& c) {
  for (std::size_t v = 0; v < c.skin.vertex_count(); ++v) {
    double sum = 0;
    for (float w : c.skin.weights_of(v)) sum += w;
    ASSERT_NEAR(sum, 1.0, 1e-5) << "vertex " << v;
  }
}

// Runs the validator and returns its verdict with its output for the failure message.
::testing::AssertionResult passes_validator(const fs::path& file) {
  const auto result = test::validate_gltf(file);
  if (result.exit_code == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << file << ": " << result.output.substr(0, 3000);
}

// -------------------------------------------------------------------------- loading

struct Expected {
  std::string file;
  std::size_t vertices, joints, clips;
};
// GoogleTest prints parameters in test listings (and CTest shows them): the file, not raw bytes.
void PrintTo(const Expected& expected, std::ostream* os) { *os << expected.file; }

class GltfLoad : public ::testing::TestWithParam<Expected> {};

TEST_P(GltfLoad, CountsAndWeights) {
  const Expected& e = GetParam();
  const fs::path path = e.file.front() == '/' ? fs::path(e.file) : shared_asset(e.file);
  const Character c = read_gltf(path);
  EXPECT_EQ(c.mesh.vertex_count(), e.vertices);
  EXPECT_EQ(skinned_joints(c.rig), e.joints);
  EXPECT_EQ(c.clips.size(), e.clips);
  EXPECT_TRUE(c.is_skinned());
  EXPECT_EQ(c.skin.vertex_count(), c.mesh.vertex_count());
  EXPECT_EQ(c.mesh.normals.size(), c.mesh.vertex_count());
  EXPECT_GT(c.mesh.triangle_count(), 0u);
  expect_weights_sum_to_one(c);
  for (std::size_t j = 0; j < c.rig.joint_count(); ++j) {
    EXPECT_LT(c.rig.parents[j], static_cast<int>(j));
    EXPECT_EQ(c.rig.inverse_bind[j].row(3), Eigen::RowVector4f(0, 0, 0, 1));
  }
  for (const Clip& clip : c.clips) {
    EXPECT_FALSE(clip.channels.empty()) << clip.name;
    EXPECT_GE(clip.start(), 0.0f) << clip.name;
  }
  // Also through the dispatcher.
  EXPECT_EQ(load_character(path).mesh.vertex_count(), e.vertices);
}

INSTANTIATE_TEST_SUITE_P(
    GltfCharacters, GltfLoad,
    ::testing::Values(Expected{"characters/clonk.glb", 1814, 51, 83}, Expected{"characters/wipf.glb", 643, 34, 8},
                      Expected{"characters/RiggedFigure/RiggedFigure.gltf", 370, 19, 1},
                      Expected{"characters/RiggedSimple/RiggedSimple.gltf", 96, 2, 1},
                      Expected{"characters/velocity_skinning/vs_marine.glb", 6314, 57, 3},
                      Expected{"characters/velocity_skinning/vs_cow.glb", 3225, 26, 1},
                      Expected{"characters/velocity_skinning/vs_dragon.glb", 3776, 37, 1},
                      Expected{"characters/velocity_skinning/vs_giraffe.glb", 1832, 59, 1},
                      Expected{"characters/velocity_skinning/vs_bird.glb", 604, 1, 1},
                      Expected{"/usr/share/assimp/models/glTF2/simple_skin/simple_skin.gltf", 10, 2, 1}),
    [](const ::testing::TestParamInfo<Expected>& info) {
      return wobble::test::parameter_name(fs::path(info.param.file).stem().string());
    });

TEST(Gltf, ClonkRepairsAreReported) {
  const Character c = read_gltf(shared_asset("characters/clonk.glb"));
  EXPECT_GT(c.diagnostics.count("weights_normalized"), 0u);
  // The validator lists 14 inverse bind matrices with a last row off (0,0,0,1).
  EXPECT_EQ(c.diagnostics.count("inverse_bind_last_row"), 14u);
  EXPECT_EQ(c.diagnostics.count("negative_key_times"), 0u);
  ASSERT_TRUE(c.find_clip("Walk").has_value());
  EXPECT_EQ(c.mesh.materials.size(), 1u);
  ASSERT_EQ(c.mesh.images.size(), 1u);
  EXPECT_EQ(c.mesh.images[0].mime_type, "image/png");
  EXPECT_EQ(c.mesh.materials[0].base_color_image, 0);
  EXPECT_EQ(c.mesh.uvs.size(), c.mesh.vertex_count());
}

TEST(Gltf, WipfRepairsAreReported) {
  const Character c = read_gltf(shared_asset("characters/wipf.glb"));
  EXPECT_EQ(c.diagnostics.count("inverse_bind_last_row"), 12u);
  // Three clips start before 0 ("Dig" at -3.0109e-5 s): each is shifted to start at 0.
  EXPECT_EQ(c.diagnostics.count("negative_key_times"), 3u);
  EXPECT_GT(c.diagnostics.count("weights_normalized"), 0u);
  EXPECT_EQ(c.diagnostics.count("weights_missing"), 4u);  // four vertices with all-zero weights
  const auto dig = c.find_clip("Dig");
  ASSERT_TRUE(dig.has_value());
  const Clip& clip = c.clips[*dig];
  EXPECT_EQ(clip.start(), 0.0f);
  // Keys were at k * 0.04 - 3.0109e-5 s in the file; the whole clip moved, so they are at k * 0.04 now.
  EXPECT_NEAR(clip.channels[0].times[1], 0.04f, 1e-6f);
  EXPECT_NEAR(clip.channels[0].times[2], 0.08f, 1e-6f);
  ASSERT_EQ(c.mesh.images.size(), 1u);
  EXPECT_EQ(c.mesh.images[0].mime_type, "image/jpeg");
}

TEST(Gltf, UnnamedPerNodeAnimationsBecomeOneClip) {
  const Character c = read_gltf(shared_asset("characters/RiggedFigure/RiggedFigure.gltf"));
  ASSERT_EQ(c.clips.size(), 1u);
  EXPECT_EQ(c.clips[0].name, "animation_0");
  EXPECT_EQ(c.clips[0].channels.size(), 57u);  // 19 joints x (translation, rotation, scale)
  EXPECT_EQ(c.diagnostics.count("animations_merged"), 18u);
}

TEST(Gltf, BendWeightAttributeIsRead) {
  const Character c = read_gltf(shared_asset("characters/velocity_skinning/vs_bird.glb"));
  ASSERT_EQ(c.mesh.vertex_scalars.count("_BEND_WEIGHT"), 1u);
  const auto& bend = c.mesh.vertex_scalars.at("_BEND_WEIGHT");
  ASSERT_EQ(bend.size(), c.mesh.vertex_count());
  const auto [lo, hi] = std::minmax_element(bend.begin(), bend.end());
  EXPECT_NEAR(*lo, -0.273f, 1e-3f);
  EXPECT_NEAR(*hi, 0.254f, 1e-3f);
}

// -------------------------------------------------------------------------- round trips

void expect_same_character(const Character& a, const Character& b) {
  ASSERT_EQ(a.mesh.vertex_count(), b.mesh.vertex_count());
  ASSERT_EQ(a.mesh.triangle_count(), b.mesh.triangle_count());
  for (std::size_t v = 0; v < a.mesh.vertex_count(); ++v) {
    ASSERT_LE((a.mesh.positions[v] - b.mesh.positions[v]).norm(), 1e-6f) << "vertex " << v;
    ASSERT_LE((a.mesh.normals[v].normalized() - b.mesh.normals[v]).norm(), 1e-5f) << "normal " << v;
  }
  ASSERT_EQ(a.mesh.uvs.size(), b.mesh.uvs.size());
  for (std::size_t v = 0; v < a.mesh.uvs.size(); ++v) ASSERT_EQ(a.mesh.uvs[v], b.mesh.uvs[v]) << "uv " << v;
  EXPECT_EQ(a.mesh.triangles, b.mesh.triangles);
  ASSERT_EQ(a.mesh.primitives.size(), b.mesh.primitives.size());
  for (std::size_t p = 0; p < a.mesh.primitives.size(); ++p) {
    EXPECT_EQ(a.mesh.primitives[p].first_vertex, b.mesh.primitives[p].first_vertex);
    EXPECT_EQ(a.mesh.primitives[p].triangle_count, b.mesh.primitives[p].triangle_count);
    EXPECT_EQ(a.mesh.primitives[p].material, b.mesh.primitives[p].material);
  }
  EXPECT_EQ(a.mesh.vertex_scalars, b.mesh.vertex_scalars);
  ASSERT_EQ(a.mesh.materials.size(), b.mesh.materials.size());
  for (std::size_t m = 0; m < a.mesh.materials.size(); ++m) {
    EXPECT_EQ(a.mesh.materials[m].base_color, b.mesh.materials[m].base_color);
    EXPECT_EQ(a.mesh.materials[m].base_color_image, b.mesh.materials[m].base_color_image);
    EXPECT_EQ(a.mesh.materials[m].metallic, b.mesh.materials[m].metallic);
    EXPECT_EQ(a.mesh.materials[m].roughness, b.mesh.materials[m].roughness);
  }
  ASSERT_EQ(a.mesh.images.size(), b.mesh.images.size());
  for (std::size_t i = 0; i < a.mesh.images.size(); ++i) EXPECT_EQ(a.mesh.images[i].encoded, b.mesh.images[i].encoded);

  // Hierarchy and bind.
  ASSERT_EQ(a.rig.joint_count(), b.rig.joint_count());
  EXPECT_EQ(a.rig.names, b.rig.names);
  EXPECT_EQ(a.rig.parents, b.rig.parents);
  EXPECT_EQ(a.rig.skinned, b.rig.skinned);
  for (std::size_t j = 0; j < a.rig.joint_count(); ++j) {
    EXPECT_LE((a.rig.inverse_bind[j] - b.rig.inverse_bind[j]).cwiseAbs().maxCoeff(), 1e-6f) << a.rig.names[j];
    EXPECT_LE((a.rig.rest_local[j].matrix() - b.rig.rest_local[j].matrix()).cwiseAbs().maxCoeff(), 1e-5f)
        << a.rig.names[j];
  }

  // Weights, per vertex and joint.
  ASSERT_EQ(a.skin.vertex_count(), b.skin.vertex_count());
  for (std::size_t v = 0; v < a.skin.vertex_count(); ++v) {
    std::map<std::uint32_t, float> wa, wb;
    for (std::size_t k = 0; k < a.skin.joints_of(v).size(); ++k) wa[a.skin.joints_of(v)[k]] += a.skin.weights_of(v)[k];
    for (std::size_t k = 0; k < b.skin.joints_of(v).size(); ++k) wb[b.skin.joints_of(v)[k]] += b.skin.weights_of(v)[k];
    ASSERT_EQ(wa.size(), wb.size()) << "vertex " << v;
    for (const auto& [joint, weight] : wa) {
      ASSERT_TRUE(wb.count(joint)) << "vertex " << v;
      ASSERT_NEAR(weight, wb[joint], 1e-6) << "vertex " << v;
    }
  }

  // Clips.
  ASSERT_EQ(a.clips.size(), b.clips.size());
  for (std::size_t c = 0; c < a.clips.size(); ++c) {
    const Clip &ca = a.clips[c], &cb = b.clips[c];
    EXPECT_EQ(ca.name, cb.name);
    ASSERT_EQ(ca.channels.size(), cb.channels.size()) << ca.name;
    for (std::size_t k = 0; k < ca.channels.size(); ++k) {
      const Channel &x = ca.channels[k], &y = cb.channels[k];
      EXPECT_EQ(x.joint, y.joint);
      EXPECT_EQ(x.path, y.path);
      EXPECT_EQ(x.interpolation, y.interpolation);
      ASSERT_EQ(x.times.size(), y.times.size());
      for (std::size_t i = 0; i < x.times.size(); ++i) ASSERT_NEAR(x.times[i], y.times[i], 1e-6) << ca.name;
      ASSERT_EQ(x.values.size(), y.values.size());
      for (std::size_t i = 0; i < x.values.size(); ++i) ASSERT_NEAR(x.values[i], y.values[i], 1e-5) << ca.name;
    }
  }
}

class GltfRoundTrip : public ::testing::TestWithParam<std::string> {};

TEST_P(GltfRoundTrip, WriteReadKeepsEverythingAndValidates) {
  const Character original = read_gltf(shared_asset(GetParam()));
  ScratchDir dir;
  for (const char* extension : {".glb", ".gltf"}) {
    const fs::path out = dir / (std::string("out") + extension);
    write_gltf(out, original);
    EXPECT_TRUE(passes_validator(out));
    const Character again = read_gltf(out);
    expect_same_character(original, again);
    // A clean file needs no repair.
    EXPECT_TRUE(again.diagnostics.empty()) << again.diagnostics.repairs().front().kind;
  }
}

INSTANTIATE_TEST_SUITE_P(GltfCharacters, GltfRoundTrip,
                         ::testing::Values("characters/clonk.glb", "characters/wipf.glb",
                                           "characters/RiggedFigure/RiggedFigure.gltf",
                                           "characters/RiggedSimple/RiggedSimple.gltf",
                                           "characters/velocity_skinning/vs_bird.glb",
                                           "characters/velocity_skinning/vs_marine.glb"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return wobble::test::parameter_name(fs::path(info.param).stem().string());
                         });

TEST(Gltf, BendWeightSurvivesRoundTrip) {
  const Character original = read_gltf(shared_asset("characters/velocity_skinning/vs_bird.glb"));
  ScratchDir dir;
  write_gltf(dir / "bird.glb", original);
  const Character again = read_gltf(dir / "bird.glb");
  ASSERT_EQ(again.mesh.vertex_scalars.count("_BEND_WEIGHT"), 1u);
  EXPECT_EQ(again.mesh.vertex_scalars.at("_BEND_WEIGHT"), original.mesh.vertex_scalars.at("_BEND_WEIGHT"));
}

TEST(Gltf, WritingIsDeterministic) {
  const Character c = read_gltf(shared_asset("characters/wipf.glb"));
  ScratchDir dir;
  for (const char* extension : {".glb", ".gltf"}) {
    write_gltf(dir / (std::string("a") + extension), c);
    write_gltf(dir / (std::string("b") + extension), c);
    const auto a = test::read_bytes(dir / (std::string("a") + extension));
    const auto b = test::read_bytes(dir / (std::string("b") + extension));
    EXPECT_FALSE(a.empty());
    EXPECT_EQ(a, b) << extension;
  }
  // No temporary file is left next to the outputs.
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(dir.path())) {
    (void)entry;
    ++files;
  }
  EXPECT_EQ(files, 4u);
}

TEST(Gltf, WriteRejectsUnknownExtensionAndMissingFolder) {
  const Character c = read_gltf(shared_asset("characters/RiggedSimple/RiggedSimple.gltf"));
  ScratchDir dir;
  EXPECT_THROW(write_gltf(dir / "x.fbx", c), Error);
  EXPECT_THROW(write_gltf(dir / "missing" / "x.glb", c), Error);
  EXPECT_FALSE(fs::exists(dir / "x.fbx"));
}

// -------------------------------------------------------------------------- baked morph targets

// Reads a float accessor of a tinygltf model (tightly packed or strided; float, or unsigned
// byte/short integers as plain numbers).
std::vector<double> accessor_values(const tinygltf::Model& model, int index) {
  const auto& accessor = model.accessors.at(static_cast<std::size_t>(index));
  const auto& view = model.bufferViews.at(static_cast<std::size_t>(accessor.bufferView));
  const auto& buffer = model.buffers.at(static_cast<std::size_t>(view.buffer));
  const int components = tinygltf::GetNumComponentsInType(static_cast<std::uint32_t>(accessor.type));
  const int size = tinygltf::GetComponentSizeInBytes(static_cast<std::uint32_t>(accessor.componentType));
  const std::size_t stride = view.byteStride ? view.byteStride : static_cast<std::size_t>(components * size);
  std::vector<double> out;
  for (std::size_t i = 0; i < accessor.count; ++i) {
    const unsigned char* p = buffer.data.data() + view.byteOffset + accessor.byteOffset + i * stride;
    for (int c = 0; c < components; ++c) {
      const unsigned char* q = p + c * size;
      if (accessor.componentType == TINYGLTF_COMPONENT_TYPE_FLOAT) {
        float f;
        std::memcpy(&f, q, 4);
        out.push_back(f);
      } else if (accessor.componentType == TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE) {
        out.push_back(*q);
      } else if (accessor.componentType == TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT) {
        std::uint16_t s;
        std::memcpy(&s, q, 2);
        out.push_back(s);
      } else {
        std::uint32_t u;
        std::memcpy(&u, q, 4);
        out.push_back(u);
      }
    }
  }
  return out;
}

bool no_image_decoding(tinygltf::Image*, const int, std::string*, std::string*, int, int, const unsigned char*, int,
                       void*) {
  return true;
}

void check_baked_morphs(const std::string& asset) {
  const Character c = read_gltf(shared_asset(asset));
  ASSERT_FALSE(c.clips.empty());
  const Clip& clip = c.clips[0];
  const float size = c.mesh.size();

  // The expectation, computed here: LBS of the rest positions with the clip's pose at each
  // frame, plus a smooth perturbation so the frames are not pure LBS.
  BakedFrames baked;
  const int frames = 12;
  Pose pose;
  for (int k = 0; k < frames; ++k) {
    const float t = clip.start() + clip.duration() * static_cast<float>(k) / (frames - 1);
    evaluate_pose(c.rig, &clip, t, pose);
    std::vector<Vec3f> positions(c.mesh.vertex_count());
    for (std::size_t v = 0; v < positions.size(); ++v) {
      Eigen::Vector4d p = Eigen::Vector4d::Zero();
      const auto joints = c.skin.joints_of(v);
      const auto weights = c.skin.weights_of(v);
      for (std::size_t i = 0; i < joints.size(); ++i)
        p += weights[i] * (pose.skinning[joints[i]].cast<double>() * c.mesh.positions[v].cast<double>().homogeneous());
      const double phase = 0.37 * static_cast<double>(v) + 0.9 * k;
      const Eigen::Vector3d wobble(std::sin(phase), std::cos(1.3 * phase), std::sin(0.7 * phase + 1.0));
      positions[v] = (p.head<3>() + 0.02 * size * wobble).cast<float>();
    }
    baked.times.push_back(t);
    baked.positions.push_back(std::move(positions));
    baked.skinning.push_back(pose.skinning);
  }

  ScratchDir dir;
  const fs::path out = dir / "baked.glb";
  write_gltf(out, c, &baked, 0);
  EXPECT_TRUE(passes_validator(out));

  tinygltf::TinyGLTF loader;
  loader.SetImageLoader(&no_image_decoding, nullptr);
  tinygltf::Model model;
  std::string error, warning;
  ASSERT_TRUE(loader.LoadBinaryFromFile(&model, &error, &warning, out.string())) << error;
  ASSERT_EQ(model.meshes.size(), 1u);
  ASSERT_EQ(model.skins.size(), 1u);
  const auto& skin = model.skins[0];
  std::vector<int> rig_joint_of_slot;
  for (int node : skin.joints) {
    const int j = c.rig.find(model.nodes.at(static_cast<std::size_t>(node)).name);
    ASSERT_GE(j, 0);
    rig_joint_of_slot.push_back(j);
  }
  ASSERT_EQ(model.meshes[0].weights.size(), static_cast<std::size_t>(frames));

  // The weights animation: one-hot per frame at the frame times.
  ASSERT_EQ(model.animations.size(), 1u);
  bool found_weights = false;
  for (const auto& channel : model.animations[0].channels) {
    if (channel.target_path != "weights") continue;
    found_weights = true;
    const auto& sampler = model.animations[0].samplers.at(static_cast<std::size_t>(channel.sampler));
    const auto times = accessor_values(model, sampler.input);
    const auto weights = accessor_values(model, sampler.output);
    ASSERT_EQ(times.size(), static_cast<std::size_t>(frames));
    ASSERT_EQ(weights.size(), static_cast<std::size_t>(frames * frames));
    for (int k = 0; k < frames; ++k) {
      EXPECT_FLOAT_EQ(static_cast<float>(times[static_cast<std::size_t>(k)]), baked.times[static_cast<std::size_t>(k)]);
      for (int m = 0; m < frames; ++m) EXPECT_EQ(weights[static_cast<std::size_t>(k * frames + m)], k == m ? 1.0 : 0.0);
    }
  }
  EXPECT_TRUE(found_weights);

  // Morph by target k, skin with frame k's matrices: the baked positions come back.
  std::size_t vertex = 0;
  double worst = 0.0;
  for (const auto& primitive : model.meshes[0].primitives) {
    const auto rest = accessor_values(model, primitive.attributes.at("POSITION"));
    const auto joints = accessor_values(model, primitive.attributes.at("JOINTS_0"));
    const auto weights = accessor_values(model, primitive.attributes.at("WEIGHTS_0"));
    ASSERT_EQ(primitive.targets.size(), static_cast<std::size_t>(frames));
    const std::size_t n = rest.size() / 3;
    for (int k = 0; k < frames; ++k) {
      const auto delta = accessor_values(model, primitive.targets[static_cast<std::size_t>(k)].at("POSITION"));
      ASSERT_EQ(delta.size(), rest.size());
      for (std::size_t v = 0; v < n; ++v) {
        const Eigen::Vector4d morphed(rest[3 * v] + delta[3 * v], rest[3 * v + 1] + delta[3 * v + 1],
                                      rest[3 * v + 2] + delta[3 * v + 2], 1.0);
        Eigen::Vector4d p = Eigen::Vector4d::Zero();
        for (int i = 0; i < 4; ++i) {
          const double w = weights[4 * v + static_cast<std::size_t>(i)];
          if (w == 0) continue;
          const int j = rig_joint_of_slot.at(static_cast<std::size_t>(joints[4 * v + static_cast<std::size_t>(i)]));
          p += w * (baked.skinning[static_cast<std::size_t>(k)][static_cast<std::size_t>(j)].cast<double>() * morphed);
        }
        const Vec3f expected = baked.positions[static_cast<std::size_t>(k)][vertex + v];
        worst = std::max(worst, (p.head<3>() - expected.cast<double>()).norm());
      }
    }
    vertex += n;
  }
  EXPECT_EQ(vertex, c.mesh.vertex_count());
  EXPECT_LE(worst, 1e-4 * size) << "character size " << size;
}

TEST(Gltf, BakedMorphTargetsReproduceFramesRiggedFigure) {
  check_baked_morphs("characters/RiggedFigure/RiggedFigure.gltf");
}
TEST(Gltf, BakedMorphTargetsReproduceFramesWipf) { check_baked_morphs("characters/wipf.glb"); }

// -------------------------------------------------------------------------- bad input corpus

std::string base64(const std::string& bytes) {
  static const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const std::uint32_t v = (std::uint32_t(std::uint8_t(bytes[i])) << 16) |
                            (std::uint32_t(std::uint8_t(bytes[i + 1])) << 8) | std::uint8_t(bytes[i + 2]);
    for (int s = 18; s >= 0; s -= 6) out += alphabet[(v >> s) & 63];
  }
  const std::size_t rest = bytes.size() - i;
  if (rest > 0) {
    std::uint32_t v = std::uint32_t(std::uint8_t(bytes[i])) << 16;
    if (rest == 2) v |= std::uint32_t(std::uint8_t(bytes[i + 1])) << 8;
    out += alphabet[(v >> 18) & 63];
    out += alphabet[(v >> 12) & 63];
    out += rest == 2 ? alphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

// A one-triangle, two-joint skinned glTF with one rotation clip, as JSON that a test may edit
// before writing it (buffers as a base64 data URI, or without a URI and the bytes in *bin_out,
// for a GLB's BIN chunk).
struct TinySkinnedGltf {
  std::vector<float> positions = {0, 0, 0, 1, 0, 0, 0, 2, 0};
  std::vector<std::uint8_t> joints = {0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0};
  std::vector<float> weights = {1, 0, 0, 0, 0.5f, 0.5f, 0, 0, 1, 0, 0, 0};
  int mode = 4;
  bool with_normals = true;
  bool with_skin = true;

  json build(std::string* bin_out = nullptr) const {
    std::string bin;
    json views = json::array(), accessors = json::array();
    auto add = [&](const void* data, std::size_t size, int component, std::size_t count, const char* type) {
      while (bin.size() % 4) bin += '\0';
      views.push_back({{"buffer", 0}, {"byteOffset", bin.size()}, {"byteLength", size}});
      bin.append(static_cast<const char*>(data), size);
      accessors.push_back(
          {{"bufferView", views.size() - 1}, {"componentType", component}, {"count", count}, {"type", type}});
      return static_cast<int>(accessors.size()) - 1;
    };
    const std::size_t n = positions.size() / 3;
    const int position = add(positions.data(), positions.size() * 4, 5126, n, "VEC3");
    float lo[3] = {1e30f, 1e30f, 1e30f}, hi[3] = {-1e30f, -1e30f, -1e30f};
    for (std::size_t v = 0; v < n; ++v)
      for (int c = 0; c < 3; ++c) {
        lo[c] = std::min(lo[c], positions[3 * v + c]);
        hi[c] = std::max(hi[c], positions[3 * v + c]);
      }
    accessors[static_cast<std::size_t>(position)]["min"] = json::array({lo[0], lo[1], lo[2]});
    accessors[static_cast<std::size_t>(position)]["max"] = json::array({hi[0], hi[1], hi[2]});
    json attributes = {{"POSITION", position}};
    if (with_normals) {
      std::vector<float> normals;
      for (std::size_t v = 0; v < n; ++v) normals.insert(normals.end(), {0.0f, 0.0f, 1.0f});
      attributes["NORMAL"] = add(normals.data(), normals.size() * 4, 5126, n, "VEC3");
    }
    if (with_skin) {
      attributes["JOINTS_0"] = add(joints.data(), joints.size(), 5121, n, "VEC4");
      attributes["WEIGHTS_0"] = add(weights.data(), weights.size() * 4, 5126, n, "VEC4");
    }
    const float inverse_binds[32] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0,  0, 1,
                                     1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -1, 0, 1};
    const int ibm = add(inverse_binds, sizeof inverse_binds, 5126, 2, "MAT4");
    const float times[2] = {0, 1};
    const int input = add(times, sizeof times, 5126, 2, "SCALAR");
    accessors[static_cast<std::size_t>(input)]["min"] = json::array({0.0});
    accessors[static_cast<std::size_t>(input)]["max"] = json::array({1.0});
    const float rotations[8] = {0, 0, 0, 1, 0, 0, 0.70710678f, 0.70710678f};
    const int output = add(rotations, sizeof rotations, 5126, 2, "VEC4");

    json primitive = json::object();
    primitive["attributes"] = attributes;
    if (mode != 4) primitive["mode"] = mode;
    json mesh_node = json::object();
    mesh_node["name"] = "body";
    mesh_node["mesh"] = 0;
    if (with_skin) mesh_node["skin"] = 0;
    json root = json::object(), tip = json::object();
    root["name"] = "root";
    root["children"] = json::array({2});
    tip["name"] = "tip";
    tip["translation"] = json::array({0.0, 1.0, 0.0});
    json mesh = json::object();
    mesh["name"] = "body";
    mesh["primitives"] = json::array({primitive});
    json buffer = json::object();
    buffer["byteLength"] = bin.size();
    if (bin_out)
      *bin_out = bin;
    else
      buffer["uri"] = "data:application/octet-stream;base64," + base64(bin);
    json scene = json::object();
    scene["nodes"] = json::array({0, 1});

    json gltf = json::object();
    gltf["asset"]["version"] = "2.0";
    gltf["scene"] = 0;
    gltf["scenes"] = json::array({scene});
    gltf["nodes"] = json::array({mesh_node, root, tip});
    gltf["meshes"] = json::array({mesh});
    gltf["accessors"] = accessors;
    gltf["bufferViews"] = views;
    gltf["buffers"] = json::array({buffer});
    if (with_skin) {
      json skin = json::object();
      skin["joints"] = json::array({1, 2});
      skin["inverseBindMatrices"] = ibm;
      gltf["skins"] = json::array({skin});
      json sampler = json::object();
      sampler["input"] = input;
      sampler["output"] = output;
      sampler["interpolation"] = "LINEAR";
      json channel = json::object();
      channel["sampler"] = 0;
      channel["target"]["node"] = 2;
      channel["target"]["path"] = "rotation";
      json animation = json::object();
      animation["name"] = "bend";
      animation["samplers"] = json::array({sampler});
      animation["channels"] = json::array({channel});
      gltf["animations"] = json::array({animation});
    }
    return gltf;
  }
};

void append_u32(std::string& out, std::uint32_t value) {
  for (int i = 0; i < 4; ++i) out += static_cast<char>((value >> (8 * i)) & 0xffu);
}

// A GLB of a JSON chunk and a BIN chunk (glTF 2.0, section 4.4).
std::string glb_bytes(const json& gltf, std::string bin) {
  std::string text = gltf.dump();
  while (text.size() % 4) text += ' ';
  while (bin.size() % 4) bin += '\0';
  std::string out = "glTF";
  append_u32(out, 2);
  append_u32(out, static_cast<std::uint32_t>(12 + 8 + text.size() + 8 + bin.size()));
  append_u32(out, static_cast<std::uint32_t>(text.size()));
  out += "JSON" + text;
  append_u32(out, static_cast<std::uint32_t>(bin.size()));
  out += std::string("BIN\0", 4) + bin;
  return out;
}

fs::path write_json(const ScratchDir& dir, const std::string& name, const json& gltf) {
  const fs::path path = dir / name;
  test::write_bytes(path, gltf.dump());
  return path;
}

// Expects read_gltf to throw an Error whose one-line message names the file and contains `what`.
void expect_error(const fs::path& path, const std::string& what) {
  try {
    read_gltf(path);
    ADD_FAILURE() << path << ": no error (expected one about '" << what << "')";
  } catch (const Error& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find(path.filename().string()), std::string::npos) << message;
    EXPECT_NE(message.find(what), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

TEST(GltfBadInput, TheGeneratedFileIsValidAndReads) {
  ScratchDir dir;
  const fs::path path = write_json(dir, "good.gltf", TinySkinnedGltf{}.build());
  EXPECT_TRUE(passes_validator(path));
  const Character c = read_gltf(path);
  EXPECT_EQ(c.mesh.vertex_count(), 3u);
  EXPECT_EQ(c.mesh.triangle_count(), 1u);
  EXPECT_EQ(c.rig.names, (std::vector<std::string>{"root", "tip"}));
  EXPECT_EQ(c.rig.parents, (std::vector<int>{-1, 0}));
  ASSERT_EQ(c.clips.size(), 1u);
  EXPECT_EQ(c.clips[0].name, "bend");
  EXPECT_TRUE(c.diagnostics.empty());
  EXPECT_NEAR(c.rig.inverse_bind[1](1, 3), -1.0f, 0.0f);
}

TEST(GltfBadInput, TruncatedGlb) {
  ScratchDir dir;
  const auto bytes = test::read_bytes(shared_asset("characters/wipf.glb"));
  const fs::path path = dir / "truncated.glb";
  test::write_bytes(path, std::string(bytes.begin(), bytes.begin() + 100));
  expect_error(path, "");
}

TEST(GltfBadInput, MalformedJson) {
  ScratchDir dir;
  const fs::path path = dir / "malformed.gltf";
  test::write_bytes(path, "{ \"asset\": { \"version\": \"2.0\" }, \"nodes\": [ {\"name\": ");
  expect_error(path, "");
}

TEST(GltfBadInput, NonexistentFile) {
  ScratchDir dir;
  expect_error(dir / "nothing_here.glb", "no such file");
}

TEST(GltfBadInput, NanPosition) {
  ScratchDir dir;
  TinySkinnedGltf model;
  model.positions[3] = std::numeric_limits<float>::quiet_NaN();
  expect_error(write_json(dir, "nan_position.gltf", model.build()), "vertex 1");
}

TEST(GltfBadInput, JointIndexOutOfRange) {
  ScratchDir dir;
  TinySkinnedGltf model;
  model.joints[8] = 5;  // vertex 2 bound (weight 1) to joint 5 of a 2-joint skin
  expect_error(write_json(dir, "joint_range.gltf", model.build()), "vertex 2");
}

TEST(GltfBadInput, ParentCycle) {
  ScratchDir dir;
  json gltf = TinySkinnedGltf{}.build();
  gltf["nodes"][2]["children"] = json::array({1});  // root -> tip -> root
  expect_error(write_json(dir, "cycle.gltf", gltf), "cycle");
}

TEST(GltfBadInput, NodeWithTwoParents) {
  ScratchDir dir;
  json gltf = TinySkinnedGltf{}.build();
  gltf["nodes"][0]["children"] = json::array({2});  // tip under root and under the mesh node
  expect_error(write_json(dir, "two_parents.gltf", gltf), "two parents");
}

TEST(GltfBadInput, ChannelOnMissingNode) {
  ScratchDir dir;
  json gltf = TinySkinnedGltf{}.build();
  gltf["animations"][0]["channels"][0]["target"]["node"] = 999;
  expect_error(write_json(dir, "missing_node.gltf", gltf), "999");
}

TEST(GltfBadInput, ChannelWithMissingSampler) {
  ScratchDir dir;
  json gltf = TinySkinnedGltf{}.build();
  gltf["animations"][0]["channels"][0]["sampler"] = 7;
  expect_error(write_json(dir, "missing_sampler.gltf", gltf), "sampler 7");
}

TEST(GltfBadInput, NonIncreasingKeyTimes) {
  ScratchDir dir;
  json gltf = TinySkinnedGltf{}.build();
  // Both keys at time 0: point the input at a zero-filled accessor (no bufferView).
  gltf["accessors"].push_back({{"componentType", 5126}, {"count", 2}, {"type", "SCALAR"}});
  gltf["animations"][0]["samplers"][0]["input"] = gltf["accessors"].size() - 1;
  expect_error(write_json(dir, "times.gltf", gltf), "not increasing");
}

TEST(GltfBadInput, AllZeroWeightsAreBoundToTheRootJoint) {
  ScratchDir dir;
  TinySkinnedGltf model;
  std::fill(model.weights.begin() + 4, model.weights.begin() + 8, 0.0f);  // vertex 1
  const Character c = read_gltf(write_json(dir, "zero_weights.gltf", model.build()));
  EXPECT_EQ(c.diagnostics.count("weights_missing"), 1u);
  ASSERT_EQ(c.skin.joints_of(1).size(), 1u);
  EXPECT_EQ(c.skin.joints_of(1)[0], static_cast<std::uint32_t>(c.rig.find("root")));
  EXPECT_EQ(c.skin.weights_of(1)[0], 1.0f);
}

TEST(GltfBadInput, InverseBindLastRowIsRepaired) {
  ScratchDir dir;
  json gltf = TinySkinnedGltf{}.build();
  // Replace the IBM accessor's data with matrices whose m[3][3] is 0.9999999.
  const float inverse_binds[32] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0,  0, 0.9999999f,
                                   1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -1, 0, 1.0000001f};
  std::string bin(reinterpret_cast<const char*>(inverse_binds), sizeof inverse_binds);
  gltf["buffers"].push_back(
      {{"byteLength", bin.size()}, {"uri", "data:application/octet-stream;base64," + base64(bin)}});
  gltf["bufferViews"].push_back({{"buffer", 1}, {"byteLength", bin.size()}});
  gltf["accessors"].push_back(
      {{"bufferView", gltf["bufferViews"].size() - 1}, {"componentType", 5126}, {"count", 2}, {"type", "MAT4"}});
  gltf["skins"][0]["inverseBindMatrices"] = gltf["accessors"].size() - 1;
  const Character c = read_gltf(write_json(dir, "ibm.gltf", gltf));
  EXPECT_EQ(c.diagnostics.count("inverse_bind_last_row"), 2u);
  EXPECT_EQ(c.rig.inverse_bind[0](3, 3), 1.0f);
  EXPECT_EQ(c.rig.inverse_bind[1](3, 3), 1.0f);
}

TEST(GltfBadInput, NegativeKeyTimesShiftTheClip) {
  ScratchDir dir;
  json gltf = TinySkinnedGltf{}.build();
  const float times[2] = {-0.5f, 0.25f};
  std::string bin(reinterpret_cast<const char*>(times), sizeof times);
  gltf["buffers"].push_back(
      {{"byteLength", bin.size()}, {"uri", "data:application/octet-stream;base64," + base64(bin)}});
  gltf["bufferViews"].push_back({{"buffer", 1}, {"byteLength", bin.size()}});
  gltf["accessors"].push_back({{"bufferView", gltf["bufferViews"].size() - 1},
                               {"componentType", 5126},
                               {"count", 2},
                               {"type", "SCALAR"},
                               {"min", json::array({-0.5})},
                               {"max", json::array({0.25})}});
  gltf["animations"][0]["samplers"][0]["input"] = gltf["accessors"].size() - 1;
  const Character c = read_gltf(write_json(dir, "negative.gltf", gltf));
  EXPECT_EQ(c.diagnostics.count("negative_key_times"), 1u);
  EXPECT_EQ(c.clips[0].channels[0].times, (std::vector<float>{0.0f, 0.75f}));
}

TEST(GltfBadInput, MissingNormalsAreComputed) {
  ScratchDir dir;
  TinySkinnedGltf model;
  model.with_normals = false;
  const Character c = read_gltf(write_json(dir, "no_normals.gltf", model.build()));
  EXPECT_EQ(c.diagnostics.count("normals_computed"), 1u);
  ASSERT_EQ(c.mesh.normals.size(), 3u);
  for (const Vec3f& n : c.mesh.normals) EXPECT_NEAR(std::abs(n.z()), 1.0f, 1e-6f);
}

TEST(GltfBadInput, TriangleStripIsConverted) {
  ScratchDir dir;
  TinySkinnedGltf model;
  model.positions = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0};
  model.joints.assign(16, 0);
  model.weights = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
  model.mode = 5;
  const Character c = read_gltf(write_json(dir, "strip.gltf", model.build()));
  ASSERT_EQ(c.mesh.triangle_count(), 2u);
  EXPECT_EQ(c.mesh.triangles[0], (Triangle{0, 1, 2}));
  // glTF 2.0: triangle i of a strip is (v_i, v_{i+1+i%2}, v_{i+2-i%2}), keeping the winding.
  EXPECT_EQ(c.mesh.triangles[1], (Triangle{1, 3, 2}));
}

TEST(GltfBadInput, LinesAreSkipped) {
  ScratchDir dir;
  json gltf = TinySkinnedGltf{}.build();
  json lines = gltf["meshes"][0]["primitives"][0];
  lines["mode"] = 1;
  gltf["meshes"][0]["primitives"].push_back(lines);
  const Character c = read_gltf(write_json(dir, "lines.gltf", gltf));
  EXPECT_EQ(c.mesh.vertex_count(), 3u);
  EXPECT_EQ(c.diagnostics.count("primitive_skipped"), 1u);
}

TEST(GltfBadInput, SparsePositionsAreApplied) {
  ScratchDir dir;
  json gltf = TinySkinnedGltf{}.build();
  // Replace vertex 1's position by (5, 0, 0) with a sparse substitution.
  const std::uint16_t index[2] = {1, 0};
  const float value[3] = {5, 0, 0};
  std::string bin(reinterpret_cast<const char*>(index), sizeof index);
  bin.append(reinterpret_cast<const char*>(value), sizeof value);
  gltf["buffers"].push_back(
      {{"byteLength", bin.size()}, {"uri", "data:application/octet-stream;base64," + base64(bin)}});
  gltf["bufferViews"].push_back({{"buffer", 1}, {"byteLength", 2}});
  gltf["bufferViews"].push_back({{"buffer", 1}, {"byteOffset", 4}, {"byteLength", 12}});
  const std::size_t views = gltf["bufferViews"].size();
  auto& position = gltf["accessors"][0];
  position["sparse"] = {{"count", 1},
                        {"indices", {{"bufferView", views - 2}, {"componentType", 5123}}},
                        {"values", {{"bufferView", views - 1}}}};
  position["max"][0] = 5.0;
  const fs::path path = write_json(dir, "sparse.gltf", gltf);
  const Character c = read_gltf(path);
  EXPECT_EQ(c.mesh.positions[1], Vec3f(5, 0, 0));
  EXPECT_EQ(c.mesh.positions[2], Vec3f(0, 2, 0));
}

// -------------------------------------------------------------------------- bounded reading

// Counts a file cannot back are refused before anything is allocated (once, each of these made
// the reader allocate count x 24 bytes first and end in std::bad_alloc).
TEST(GltfBounds, AccessorCountsLargerThanTheirDataAreRefused) {
  ScratchDir dir;
  for (const std::uint64_t count :
       {std::uint64_t(1) << 31, (std::uint64_t(1) << 31) - 1, (std::uint64_t(1) << 32) - 1, std::uint64_t(1) << 53}) {
    json gltf = TinySkinnedGltf{}.build();
    gltf["accessors"][0]["count"] = count;
    expect_error(write_json(dir, "count.gltf", gltf), "reads past the end of bufferView");
    // Without a buffer view the accessor is zeros: nothing backs the count but the read budget.
    gltf["accessors"][0].erase("bufferView");
    expect_error(write_json(dir, "zeros.gltf", gltf), "more than reading this");
  }
}

TEST(GltfBounds, SparseCountsAndOffsetsAreChecked) {
  ScratchDir dir;
  json gltf = TinySkinnedGltf{}.build();
  gltf["accessors"][0]["sparse"] = {{"count", 2'000'000'000},
                                    {"indices", {{"bufferView", 0}, {"componentType", 5125}}},
                                    {"values", {{"bufferView", 0}}}};
  expect_error(write_json(dir, "sparse.gltf", gltf), "sparse count");
  gltf["accessors"][0]["sparse"]["count"] = 3;
  gltf["accessors"][0]["sparse"]["indices"]["byteOffset"] = 2'000'000'000;
  expect_error(write_json(dir, "sparse.gltf", gltf), "sparse indices reads past the end");
}

// A small file whose one large accessor every node of a static scene reads again: the read
// budget (64 MiB + 32 x the file size) stops it; WOBBLE_READ_FACTOR raises the budget.
TEST(GltfBounds, RepeatedReferencesAreChargedToTheReadBudget) {
  ScratchDir dir;
  TinySkinnedGltf model;
  model.with_skin = false;
  model.with_normals = false;
  model.positions.assign(3 * 60'000, 0.0f);  // 0.7 MiB of floats, 1.4 MiB of doubles decoded
  for (std::size_t v = 0; v < model.positions.size() / 3; ++v) model.positions[3 * v] = static_cast<float>(v % 7);
  json gltf = model.build();
  for (int copy = 0; copy < 120; ++copy) gltf["nodes"].push_back({{"mesh", 0}});
  const fs::path path = write_json(dir, "copies.gltf", gltf);
  expect_error(path, "more than reading this");
  ::setenv("WOBBLE_READ_FACTOR", "400", 1);
  const Character c = read_gltf(path);
  ::setenv("WOBBLE_READ_FACTOR", "none", 1);
  try {
    read_gltf(path);
    ADD_FAILURE() << "WOBBLE_READ_FACTOR=none was accepted";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("WOBBLE_READ_FACTOR (the read allocation factor): 'none' is not a number"),
              std::string::npos)
        << error.what();
  }
  ::unsetenv("WOBBLE_READ_FACTOR");
  EXPECT_EQ(c.mesh.vertex_count(), 121u * 60'000u);
}

// Buffer URIs may name regular files in the glTF's folder (or below it), nothing else.
TEST(GltfBounds, BufferUrisOutsideRegularFilesOfTheFolderAreRefusedByName) {
  ScratchDir dir;
  fs::create_directories(dir / "model" / "sub");
  json gltf = TinySkinnedGltf{}.build();
  const std::string data = gltf["buffers"][0]["uri"].get<std::string>();
  // The same bytes as an external file, beside the glTF, below it and above it.
  const std::string bytes = [&] {
    std::string text = data.substr(data.find(',') + 1), out;
    const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::uint32_t bits = 0;
    int count = 0;
    for (char c : text) {
      if (c == '=') break;
      bits = (bits << 6) | static_cast<std::uint32_t>(alphabet.find(c));
      if ((count += 6) >= 8) out += static_cast<char>((bits >> (count -= 8)) & 0xFF);
    }
    return out;
  }();
  test::write_bytes(dir / "model" / "buffer.bin", bytes);
  test::write_bytes(dir / "model" / "sub" / "buffer.bin", bytes);
  test::write_bytes(dir / "outside.bin", bytes);
  fs::create_symlink("/dev/zero", dir / "model" / "zero.bin");
  fs::create_symlink(dir / "outside.bin", dir / "model" / "link.bin");
  auto with_uri = [&](const std::string& uri) {
    gltf["buffers"][0]["uri"] = uri;
    return write_json(dir, "model/model.gltf", gltf);
  };
  EXPECT_EQ(read_gltf(with_uri("buffer.bin")).mesh.vertex_count(), 3u);
  EXPECT_EQ(read_gltf(with_uri("sub/buffer.bin")).mesh.vertex_count(), 3u);
  expect_error(with_uri("."), "URI '.' is a folder");
  expect_error(with_uri("sub"), "URI 'sub' is a folder");
  expect_error(with_uri("%00%zz"), "holds a NUL byte");
  expect_error(with_uri("buffer.bin%00.png"), "holds a NUL byte");
  expect_error(with_uri("../outside.bin"), "leads outside the glTF file's folder");
  expect_error(with_uri("link.bin"), "leads outside the glTF file's folder");
  expect_error(with_uri("zero.bin"), "leads outside the glTF file's folder");
  expect_error(with_uri((dir / "outside.bin").string()), "outside");
}

TEST(GltfBounds, OnlyRegularFilesAreRead) {
  ScratchDir dir;
  fs::create_directories(dir / "folder.glb");
  expect_error(dir / "folder.glb", "is a folder");
  fs::create_symlink("/dev/zero", dir / "zero.glb");
  expect_error(dir / "zero.glb", "device or other special file");
  ASSERT_EQ(::mkfifo((dir / "pipe.gltf").c_str(), 0600), 0);
  expect_error(dir / "pipe.gltf", "device or other special file");  // and no blocking read on it
}

TEST(GltfBadInput, StaticMeshGetsWorldPositions) {
  ScratchDir dir;
  TinySkinnedGltf model;
  model.with_skin = false;
  json gltf = model.build();
  gltf["nodes"][0]["translation"] = json::array({10.0, 0.0, 0.0});
  const Character c = read_gltf(write_json(dir, "static.gltf", gltf));
  EXPECT_TRUE(c.rig.empty());
  EXPECT_TRUE(c.skin.empty());
  EXPECT_EQ(c.mesh.positions[1], Vec3f(11, 0, 0));
  // And it writes and validates as a static mesh.
  write_gltf(dir / "static_out.glb", c);
  EXPECT_TRUE(passes_validator(dir / "static_out.glb"));
  EXPECT_EQ(read_gltf(dir / "static_out.glb").mesh.positions[1], Vec3f(11, 0, 0));
}

// ------------------------------------------------------------------ indices into the file's arrays

// Debian's tinygltf copies a GLB's BIN chunk with data.at(0) into a buffer of byteLength bytes: a
// byteLength of 0 escaped as "vector::_M_range_check: __n (which is 0) >= this->size() (which is 0)",
// naming neither the file nor the element (issue 36's outside campaign; also
// fuzz/regressions/gltf/empty-buffer-bufferview-817.glb, with an accessor on bufferView 817).
TEST(GltfIndices, GlbBufferOfByteLengthZeroIsNamed) {
  ScratchDir dir;
  std::string bin;
  json gltf = TinySkinnedGltf{}.build(&bin);
  const fs::path good = dir / "good.glb";
  test::write_bytes(good, glb_bytes(gltf, bin));
  EXPECT_EQ(read_gltf(good).mesh.vertex_count(), 3u);
  gltf["buffers"][0]["byteLength"] = 0;
  gltf["accessors"][6]["bufferView"] = 817;
  const fs::path path = dir / "empty_buffer.glb";
  test::write_bytes(path, glb_bytes(gltf, bin));
  expect_error(path, "buffers[0].byteLength: 0 is below glTF's minimum of 1");
}

struct BadIndex {
  const char* pointer;  // JSON pointer into TinySkinnedGltf's document
  int value;
  const char* message;  // what the one-line error must hold besides the file's name
};
void PrintTo(const BadIndex& bad, std::ostream* os) { *os << bad.pointer << " = " << bad.value; }

class GltfIndexOutOfRange : public ::testing::TestWithParam<BadIndex> {};

// Every index a glTF file gives into one of its arrays, out of range: an error that names the file,
// the element and the index, never a library's exception or a crash.
TEST_P(GltfIndexOutOfRange, IsAnErrorNamingTheElement) {
  ScratchDir dir;
  json gltf = TinySkinnedGltf{}.build();
  gltf[json::json_pointer(GetParam().pointer)] = GetParam().value;
  expect_error(write_json(dir, "bad_index.gltf", gltf), GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(
    EveryKind, GltfIndexOutOfRange,
    ::testing::Values(BadIndex{"/animations/0/samplers/0/output", 817,
                               "animation 0 ('bend') channel 0 output: accessor 817 does not exist (7 accessors)"},
                      BadIndex{"/animations/0/samplers/0/input", 817,
                               "animation 0 ('bend') channel 0 input: accessor 817 does not exist (7 accessors)"},
                      BadIndex{"/animations/0/channels/0/sampler", 3,
                               "animation 0 ('bend') channel 0: sampler 3 out of range (1 samplers)"},
                      BadIndex{"/animations/0/channels/0/target/node", 9,
                               "animation 0 ('bend') channel 0: target node 9 out of range (3 nodes)"},
                      BadIndex{"/accessors/6/bufferView", 817, "accessor 6 refers to missing bufferView 817"},
                      BadIndex{"/bufferViews/6/buffer", 4, "bufferView 6 refers to missing buffer 4"},
                      BadIndex{"/meshes/0/primitives/0/attributes/POSITION", 817,
                               "mesh 0 primitive 0 POSITION: accessor 817 does not exist"},
                      BadIndex{"/meshes/0/primitives/0/attributes/NORMAL", 817,
                               "mesh 0 primitive 0 NORMAL: accessor 817 does not exist"},
                      BadIndex{"/meshes/0/primitives/0/attributes/JOINTS_0", 817,
                               "mesh 0 primitive 0 JOINTS_0: accessor 817 does not exist"},
                      BadIndex{"/meshes/0/primitives/0/attributes/WEIGHTS_0", 817,
                               "mesh 0 primitive 0 WEIGHTS_0: accessor 817 does not exist"},
                      BadIndex{"/meshes/0/primitives/0/indices", 817, "primitive indices accessor out of bounds"},
                      BadIndex{"/skins/0/inverseBindMatrices", 817,
                               "skin 0 inverseBindMatrices: accessor 817 does not exist"},
                      BadIndex{"/skins/0/joints/1", 9, "skin 0 joint 1 refers to node 9 out of range (3 nodes)"},
                      BadIndex{"/nodes/0/skin", 2, "node 0 ('body') refers to skin 2 out of range (1 skins)"},
                      BadIndex{"/nodes/0/mesh", 2, "node 0 ('body') refers to mesh 2 out of range (1 meshes)"},
                      BadIndex{"/nodes/1/children/0", 9, "node 1 ('root') has child index 9 out of range (3 nodes)"},
                      BadIndex{"/skins/0/skeleton", 9, "skin 0 skeleton: node 9 does not exist (3 nodes)"},
                      BadIndex{"/scenes/0/nodes/1", 9, "scenes[0].nodes[1]: node 9 does not exist (3 nodes)"},
                      BadIndex{"/scene", 2, "scene: scene 2 does not exist (1 scenes)"}));

// Indices to optional parts (a material, a texture) are repairs, each reported.
TEST(GltfIndices, MissingMaterialAndTextureAreReportedRepairs) {
  ScratchDir dir;
  json gltf = TinySkinnedGltf{}.build();
  gltf["meshes"][0]["primitives"][0]["material"] = 1;
  gltf["materials"] = json::array({{{"pbrMetallicRoughness", {{"baseColorTexture", {{"index", 5}}}}}}});
  const Character c = read_gltf(write_json(dir, "optional.gltf", gltf));
  EXPECT_EQ(c.diagnostics.count("material_missing"), 1u);
  EXPECT_EQ(c.diagnostics.count("texture_missing"), 1u);
  EXPECT_EQ(c.mesh.primitives[0].material, -1);
}

}  // namespace
}  // namespace wobble
