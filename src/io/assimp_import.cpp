// Everything assimp reads (FBX, Collada, DirectX .x, Ogre, B3D, MD5, BVH, 3DS, PLY ...) into a
// Character.
//
// Spaces. assimp keeps each mesh in the local space of the node that holds it, and gives each bone
// an offset matrix so that a vertex is skinned to boneWorld * offset * v. wobble wants one bind
// space for the whole merged mesh: the scene's (root) space at rest. Positions are
// meshWorld * v and a bone's inverse bind matrix is offset * meshWorld^-1, so skinning gives
// boneWorld * offset * meshWorld^-1 * meshWorld * v, exactly assimp's result, and meshes held by
// different nodes, or unskinned meshes attached rigidly to their node (inverse bind =
// nodeWorld^-1, weight 1), all fit in the same space. DirectX .x skins are the exception: their
// offsets expect the raw vertices (the mesh node's transform is not part of the skin), so there
// the skinned meshes keep their raw vertices and the offsets are the inverse bind matrices as
// they are; which case a file is in is told by the rest pose (see skin_in_raw_space).
//
// Vertices are kept as assimp produces them (no welding, no limit on influences per vertex).
//
// Isolation. assimp's parsers crash on some broken files (Debian's 5.2.5 X importer on an index
// of 99999, for one), so read_with_assimp runs the import and the conversion in a child process
// (isolated_call.hpp) and gets the Character back over a pipe (character_wire.hpp). The
// conversion itself (character_from_assimp) checks every index and count it uses.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <system_error>
#include <unordered_map>
#include <vector>

#include <assimp/Importer.hpp>
#include <assimp/config.h>
#include <assimp/material.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <fmt/format.h>

#include <wobble/error.hpp>
#include <wobble/io/files.hpp>
#include <wobble/io/read_limits.hpp>

#include "core/fail.hpp"
#include "assimp_scene.hpp"
#include "character_wire.hpp"
#include "isolated_call.hpp"

namespace wobble {
namespace {

namespace fs = std::filesystem;

// aiMatrix4x4 is row-major with column vectors (translation in a4, b4, c4): element (r, c) of the
// Eigen matrix is row r, column c of assimp's.
Mat4f to_eigen(const aiMatrix4x4& a) {
  Mat4f m;
  m << a.a1, a.a2, a.a3, a.a4,  //
      a.b1, a.b2, a.b3, a.b4,   //
      a.c1, a.c2, a.c3, a.c4,   //
      a.d1, a.d2, a.d3, a.d4;
  return m;
}

std::string one_line(std::string s) {
  for (char& c : s) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
    else if (static_cast<unsigned char>(c) < 32 || static_cast<unsigned char>(c) > 126) c = '?';
  }
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s.empty() ? std::string("unknown error") : s;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

bool nearly_equal(const Mat4f& a, const Mat4f& b) {
  const float scale = 1.0f + std::max(a.cwiseAbs().maxCoeff(), b.cwiseAbs().maxCoeff());
  return (a - b).cwiseAbs().maxCoeff() <= 1e-4f * scale;
}

// A mesh wobble can use: it has triangles (after Triangulate and SortByPType, a mesh holds one
// primitive type).
bool is_triangle_mesh(const aiMesh* mesh) {
  return mesh && (mesh->mPrimitiveTypes & aiPrimitiveType_TRIANGLE) && mesh->mNumVertices > 0 && mesh->mNumFaces > 0;
}

struct SceneNodes {
  std::vector<const aiNode*> order;                        // pre-order (parents first)
  std::unordered_map<const aiNode*, const aiNode*> parent;
  std::unordered_map<const aiNode*, Mat4f> world;          // rest world transforms
  std::unordered_map<std::string, const aiNode*> by_name;  // first node of each name
  std::vector<const aiNode*> mesh_holder;                  // per mesh: first node referencing it, or null

  void collect(const aiScene* scene) {
    mesh_holder.assign(scene->mNumMeshes, nullptr);
    // Iterative pre-order traversal (deep hierarchies must not overflow the stack).
    std::vector<const aiNode*> stack{scene->mRootNode};
    parent[scene->mRootNode] = nullptr;
    while (!stack.empty()) {
      const aiNode* node = stack.back();
      stack.pop_back();
      order.push_back(node);
      const aiNode* up = parent[node];
      const Mat4f local = to_eigen(node->mTransformation);
      world[node] = up ? Mat4f(world[up] * local) : local;
      by_name.emplace(node->mName.C_Str(), node);
      for (unsigned k = 0; k < node->mNumMeshes; ++k) {
        const unsigned m = node->mMeshes[k];
        if (m < mesh_holder.size() && !mesh_holder[m]) mesh_holder[m] = node;
      }
      for (unsigned k = node->mNumChildren; k-- > 0;) {
        const aiNode* child = node->mChildren[k];
        if (!child || parent.count(child)) continue;  // a malformed graph: visit each node once
        parent[child] = node;
        stack.push_back(child);
      }
    }
  }
  const aiNode* find(const aiString& name) const {
    auto it = by_name.find(name.C_Str());
    return it == by_name.end() ? nullptr : it->second;
  }
  Mat4f world_of(const aiNode* node) const { return node ? world.at(node) : Mat4f(Mat4f::Identity()); }
};

std::string mime_of(const std::string& hint_or_extension) {
  const std::string h = lower(hint_or_extension);
  if (h == "png" || h == ".png") return "image/png";
  if (h == "jpg" || h == "jpeg" || h == ".jpg" || h == ".jpeg") return "image/jpeg";
  return {};
}

// Materials: name, diffuse (or PBR base) colour and opacity, two-sidedness, and the diffuse
// texture when it is a PNG or JPEG, embedded or next to the model.
void read_materials(const fs::path& path, const aiScene* scene, Mesh& mesh, Diagnostics& diagnostics) {
  std::unordered_map<std::string, int> image_of;  // texture reference -> index in mesh.images
  for (unsigned i = 0; i < scene->mNumMaterials; ++i) {
    const aiMaterial* source = scene->mMaterials[i];
    Material material;
    aiString name;
    if (source->Get(AI_MATKEY_NAME, name) == AI_SUCCESS) material.name = name.C_Str();
    aiColor4D color;
    if (source->Get(AI_MATKEY_BASE_COLOR, color) == AI_SUCCESS ||
        source->Get(AI_MATKEY_COLOR_DIFFUSE, color) == AI_SUCCESS) {
      const Vec4f c(color.r, color.g, color.b, color.a);
      if (c.allFinite()) material.base_color = c.cwiseMax(0.0f).cwiseMin(1.0f);
    }
    float opacity = 1.0f;
    if (source->Get(AI_MATKEY_OPACITY, opacity) == AI_SUCCESS && std::isfinite(opacity) && opacity < 1.0f)
      material.base_color.w() = std::clamp(opacity, 0.0f, 1.0f);
    int two_sided = 0;
    if (source->Get(AI_MATKEY_TWOSIDED, two_sided) == AI_SUCCESS) material.double_sided = two_sided != 0;

    aiString texture;
    if (source->GetTexture(aiTextureType_BASE_COLOR, 0, &texture) == AI_SUCCESS ||
        source->GetTexture(aiTextureType_DIFFUSE, 0, &texture) == AI_SUCCESS) {
      const std::string reference = texture.C_Str();
      if (auto it = image_of.find(reference); it != image_of.end()) {
        material.base_color_image = it->second;
      } else if (const aiTexture* embedded = scene->GetEmbeddedTexture(reference.c_str())) {
        const std::string mime = mime_of(embedded->achFormatHint);
        if (embedded->mHeight == 0 && !mime.empty() && embedded->pcData) {
          Image image;
          image.name = embedded->mFilename.length ? embedded->mFilename.C_Str() : reference;
          image.mime_type = mime;
          const auto* bytes = reinterpret_cast<const std::uint8_t*>(embedded->pcData);
          image.encoded.assign(bytes, bytes + embedded->mWidth);
          material.base_color_image = image_of[reference] = static_cast<int>(mesh.images.size());
          mesh.images.push_back(std::move(image));
        } else {
          diagnostics.repair("texture_skipped", fmt::format("embedded texture {} is not PNG/JPEG: skipped", reference));
        }
      } else if (!reference.empty()) {
        std::string relative = reference;
        std::replace(relative.begin(), relative.end(), '\\', '/');
        const fs::path file = path.parent_path() / relative;
        std::error_code ec;
        const std::string mime = mime_of(file.extension().string());
        if (!mime.empty() && fs::is_regular_file(file, ec)) {
          std::ifstream in(file, std::ios::binary);
          Image image;
          image.name = file.filename().string();
          image.mime_type = mime;
          image.encoded.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
          material.base_color_image = image_of[reference] = static_cast<int>(mesh.images.size());
          mesh.images.push_back(std::move(image));
        } else {
          diagnostics.repair("texture_skipped",
                             fmt::format("texture {} is missing or not PNG/JPEG: skipped", reference));
        }
      }
    }
    mesh.materials.push_back(std::move(material));
  }
}

// One channel from assimp keys: times in seconds, strictly increasing, finite values.
template <typename Key, typename Store>
void add_channel(Clip& clip, std::uint32_t joint, ChannelPath path, const Key* keys, unsigned count, double ticks_per_second,
                 const std::string& where, Diagnostics& diagnostics, Store store) {
  Channel channel;
  channel.joint = joint;
  channel.path = path;
  channel.interpolation = Interpolation::Linear;
  std::size_t dropped_order = 0, dropped_values = 0;
  for (unsigned k = 0; k < count; ++k) {
    const double seconds = keys[k].mTime / ticks_per_second;
    const float t = static_cast<float>(seconds);
    float value[4];
    if (!std::isfinite(seconds) || !store(keys[k], value)) {
      ++dropped_values;
      continue;
    }
    if (!channel.times.empty() && !(t > channel.times.back())) {
      ++dropped_order;
      continue;
    }
    channel.times.push_back(t);
    channel.values.insert(channel.values.end(), value, value + channel.components());
  }
  if (dropped_order)
    diagnostics.repair("clip_key_times_not_increasing",
                       fmt::format("{}: keys whose time does not increase were dropped", where), dropped_order);
  if (dropped_values)
    diagnostics.repair("clip_key_not_finite", fmt::format("{}: keys with non-finite values were dropped", where),
                       dropped_values);
  if (!channel.times.empty()) clip.channels.push_back(std::move(channel));
}

// assimp catches what its importers throw and keeps only the text: an allocation that failed
// (a count of 4294967295 vertices, say) comes back as "std::bad_alloc". Rethrown, the isolated
// call reports it as the import's memory limit instead of showing the C++ library's name.
[[noreturn]] void import_failed(const fs::path& path, const Assimp::Importer& importer) {
  const std::string error = importer.GetErrorString();
  if (error == "std::bad_alloc") throw std::bad_alloc();
  fail(path, "cannot import: {}", one_line(error));
}

// assimp's import and wobble's conversion, in this process (the isolated child runs this).
Character import_here(const fs::path& path) {
  Assimp::Importer importer;
  const aiScene* scene =
      importer.ReadFile(path.string(), aiProcess_Triangulate | aiProcess_SortByPType | aiProcess_ValidateDataStructure);
  if (!scene || !scene->mRootNode) import_failed(path, importer);
  bool missing_normals = false;
  for (unsigned m = 0; m < scene->mNumMeshes; ++m)
    if (is_triangle_mesh(scene->mMeshes[m]) && !scene->mMeshes[m]->HasNormals()) missing_normals = true;
  if (missing_normals) {
    scene = importer.ApplyPostProcessing(aiProcess_GenNormals);
    if (!scene) import_failed(path, importer);
  }
  return character_from_assimp(*scene, path);
}

// "X" for a.x, "MESH.XML" for an Ogre a.mesh.xml: the importer's name in messages.
std::string format_name(const fs::path& path) {
  std::string name = path.filename().string();
  const std::size_t dot = lower(name).find(".mesh.xml") != std::string::npos ? name.size() - 9 : name.rfind('.');
  std::string format = dot == std::string::npos ? std::string("(no extension)") : name.substr(dot + 1);
  for (char& c : format) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return format;
}

}  // namespace

Character read_with_assimp(const fs::path& path) {
  require_regular_file(path, "a file assimp can import");
  std::error_code ec;
  const std::uintmax_t size = fs::file_size(path, ec);
  const std::string bytes = run_isolated([&] { return encode_character(import_here(path)); }, import_limits(size),
                                         "the assimp " + format_name(path) + " importer", path);
  return decode_character(bytes, path);
}

Character character_from_assimp(const aiScene& scene_ref, const fs::path& path) {
  const aiScene* scene = &scene_ref;  // the conversion reads it through a pointer, as assimp hands it out
  Character character;
  character.source = path;
  Diagnostics& diagnostics = character.diagnostics;
  Mesh& mesh = character.mesh;
  Rig& rig = character.rig;

  SceneNodes nodes;
  nodes.collect(scene);

  // The meshes to keep, in file order. A BVH file is a skeleton and its motion only; for it and
  // other skeleton-only files assimp makes up a mesh of bone shapes (material "SkeletonMaterial"),
  // which is no part of the character. (assimp's option not to make it cannot be used: its
  // validation step then rejects the scene for having no mesh.)
  const bool skeleton_file = lower(path.extension().string()) == ".bvh";
  auto is_skeleton_mesh = [&](const aiMesh* source) {
    if (source->mMaterialIndex >= scene->mNumMaterials) return false;
    aiString name;
    return scene->mMaterials[source->mMaterialIndex]->Get(AI_MATKEY_NAME, name) == AI_SUCCESS &&
           std::string(name.C_Str()) == "SkeletonMaterial";
  };
  std::vector<unsigned> meshes;
  std::size_t skipped_meshes = 0;
  for (unsigned m = 0; m < scene->mNumMeshes; ++m) {
    if (skeleton_file || is_skeleton_mesh(scene->mMeshes[m])) continue;
    if (is_triangle_mesh(scene->mMeshes[m])) meshes.push_back(m);
    else ++skipped_meshes;
  }
  if (skipped_meshes)
    diagnostics.repair("non_triangle_mesh_skipped", "meshes of points or lines have no surface: skipped", skipped_meshes);
  if (meshes.empty() && scene->mNumAnimations == 0)
    fail(path, "no triangle mesh and no animation in the file");

  // --- which nodes become joints -----------------------------------------------------------
  std::unordered_map<const aiNode*, bool> needed;
  for (unsigned m : meshes) {
    const aiMesh* source = scene->mMeshes[m];
    for (unsigned b = 0; b < source->mNumBones; ++b) {
      if (const aiNode* node = nodes.find(source->mBones[b]->mName)) needed[node] = true;
    }
  }
  for (unsigned a = 0; a < scene->mNumAnimations; ++a) {
    const aiAnimation* animation = scene->mAnimations[a];
    for (unsigned c = 0; c < animation->mNumChannels; ++c)
      if (const aiNode* node = nodes.find(animation->mChannels[c]->mNodeName)) needed[node] = true;
  }
  const bool has_rig = !needed.empty() || meshes.empty();
  // Which mesh vertices carry weights; the others are attached rigidly to the mesh's node.
  std::vector<std::vector<bool>> weighted(scene->mNumMeshes);
  std::vector<bool> needs_holder(scene->mNumMeshes, false);
  if (has_rig) {
    for (unsigned m : meshes) {
      const aiMesh* source = scene->mMeshes[m];
      weighted[m].assign(source->mNumVertices, false);
      for (unsigned b = 0; b < source->mNumBones; ++b) {
        const aiBone* bone = source->mBones[b];
        if (!nodes.find(bone->mName)) continue;
        for (unsigned w = 0; w < bone->mNumWeights; ++w)
          if (bone->mWeights[w].mVertexId < source->mNumVertices && bone->mWeights[w].mWeight > 0.0f)
            weighted[m][bone->mWeights[w].mVertexId] = true;
      }
      if (std::find(weighted[m].begin(), weighted[m].end(), false) != weighted[m].end()) {
        needs_holder[m] = true;
        needed[nodes.mesh_holder[m] ? nodes.mesh_holder[m] : scene->mRootNode] = true;
      }
    }
    if (meshes.empty())  // a skeleton file: every node is a joint (BVH end sites included)
      for (const aiNode* node : nodes.order) needed[node] = true;
    // Ancestors carry the transforms of the joints below them.
    for (const aiNode* node : nodes.order)
      if (needed.count(node))
        for (const aiNode* up = nodes.parent.at(node); up && !needed.count(up); up = nodes.parent.at(up)) needed[up] = true;
  }

  std::unordered_map<const aiNode*, std::uint32_t> joint_of;
  for (const aiNode* node : nodes.order) {
    if (!needed.count(node)) continue;
    const aiNode* up = nodes.parent.at(node);
    const int parent = up ? static_cast<int>(joint_of.at(up)) : -1;
    std::string name = node->mName.C_Str();
    if (name.empty()) name = fmt::format("node_{}", rig.joint_count());
    joint_of[node] = static_cast<std::uint32_t>(
        rig.add_joint(name, parent, Transform::from_matrix(to_eigen(node->mTransformation)), Mat4f::Identity(), false));
  }

  // --- meshes, merged --------------------------------------------------------------------------
  if (!meshes.empty()) read_materials(path, scene, mesh, diagnostics);
  std::vector<bool> bind_set(rig.joint_count(), false);
  auto set_bind = [&](std::uint32_t joint, const Mat4f& inverse_bind, const std::string& what) {
    if (bind_set[joint]) {
      if (!nearly_equal(rig.inverse_bind[joint], inverse_bind))
        diagnostics.repair("bind_conflict",
                           fmt::format("joint {} has different bind matrices ({}): the first is used",
                                       rig.names[joint], what));
      return;
    }
    bind_set[joint] = true;
    rig.inverse_bind[joint] = inverse_bind;
    rig.skinned[joint] = true;
  };

  // Which space the skinned meshes' bind pose lives in. With boneWorld * offset * v as the skinned
  // position, files differ in what the bind pose gives back: FBX and Collada exporters put the mesh
  // node's transform into the offsets (the bind pose reproduces meshWorld * v), DirectX .x files do
  // not (it reproduces the raw v, the mesh node's transform is not part of the skin). Skinning is
  // the same either way; the choice decides where the bind-space mesh sits. The rest pose is the
  // bind pose in most files, so the space it reproduces better is taken (the scene space on a tie).
  bool skin_in_raw_space = false;
  if (has_rig) {
    double error_raw = 0, error_scene = 0;
    for (unsigned m : meshes) {
      const aiMesh* source = scene->mMeshes[m];
      if (source->mNumBones == 0) continue;
      std::vector<Vec3f> skinned(source->mNumVertices, Vec3f::Zero());
      std::vector<float> weight_sum(source->mNumVertices, 0.0f);
      for (unsigned b = 0; b < source->mNumBones; ++b) {
        const aiBone* bone = source->mBones[b];
        const aiNode* node = nodes.find(bone->mName);
        if (!node) continue;
        const Mat4f matrix = nodes.world_of(node) * to_eigen(bone->mOffsetMatrix);
        for (unsigned w = 0; w < bone->mNumWeights; ++w) {
          const aiVertexWeight& weight = bone->mWeights[w];
          if (weight.mVertexId >= source->mNumVertices || !(weight.mWeight > 0.0f)) continue;
          const aiVector3D& p = source->mVertices[weight.mVertexId];
          skinned[weight.mVertexId] += weight.mWeight * (matrix * Vec4f(p.x, p.y, p.z, 1.0f)).head<3>();
          weight_sum[weight.mVertexId] += weight.mWeight;
        }
      }
      const Mat4f mesh_world = nodes.world_of(nodes.mesh_holder[m]);
      for (unsigned v = 0; v < source->mNumVertices; ++v) {
        if (!(weight_sum[v] > 0.0f)) continue;
        const Vec3f at_rest = skinned[v] / weight_sum[v];
        const Vec3f raw(source->mVertices[v].x, source->mVertices[v].y, source->mVertices[v].z);
        const double to_raw = (at_rest - raw).norm(), to_scene = (at_rest - (mesh_world * raw.homogeneous()).head<3>()).norm();
        if (std::isfinite(to_raw) && std::isfinite(to_scene)) error_raw += to_raw, error_scene += to_scene;
      }
    }
    skin_in_raw_space = error_raw < error_scene;
  }

  std::size_t total_vertices = 0;
  for (unsigned m : meshes) total_vertices += scene->mMeshes[m]->mNumVertices;
  if (total_vertices > std::numeric_limits<std::uint32_t>::max()) fail(path, "too many vertices ({})", total_vertices);
  bool any_uvs = false;
  for (unsigned m : meshes) any_uvs |= scene->mMeshes[m]->HasTextureCoords(0);
  std::vector<std::vector<Influence>> influences(has_rig ? total_vertices : 0);
  std::size_t missing_uvs = 0, bad_faces = 0, bad_weights = 0, unweighted = 0;

  for (unsigned m : meshes) {
    const aiMesh* source = scene->mMeshes[m];
    const aiNode* holder = nodes.mesh_holder[m];
    // Bind space from the mesh's space: its node's rest world transform, or none for a skin whose
    // offsets expect the raw vertices (see skin_in_raw_space).
    const bool raw = skin_in_raw_space && source->mNumBones > 0;
    const Mat4f mesh_world = raw ? Mat4f(Mat4f::Identity()) : nodes.world_of(holder);
    const Mat3f normal_matrix = mesh_world.topLeftCorner<3, 3>().inverse().transpose();
    const Mat4f mesh_world_inverse = mesh_world.inverse();
    const std::string mesh_name = source->mName.length ? source->mName.C_Str() : fmt::format("mesh_{}", m);

    Primitive primitive;
    primitive.name = source->mName.C_Str();
    primitive.source_mesh = static_cast<int>(m);
    primitive.material = source->mMaterialIndex < mesh.materials.size() ? static_cast<int>(source->mMaterialIndex) : -1;
    primitive.first_vertex = static_cast<std::uint32_t>(mesh.positions.size());
    primitive.first_triangle = static_cast<std::uint32_t>(mesh.triangles.size());
    const std::uint32_t first = primitive.first_vertex;

    for (unsigned v = 0; v < source->mNumVertices; ++v) {
      const aiVector3D& p = source->mVertices[v];
      mesh.positions.push_back((mesh_world * Vec4f(p.x, p.y, p.z, 1.0f)).head<3>());
      Vec3f n = Vec3f::UnitY();
      if (source->HasNormals()) {
        const aiVector3D& s = source->mNormals[v];
        const Vec3f transformed = normal_matrix * Vec3f(s.x, s.y, s.z);
        const float length = transformed.norm();
        if (std::isfinite(length) && length > 1e-12f) n = transformed / length;
      }
      mesh.normals.push_back(n);
      if (any_uvs) {
        if (source->HasTextureCoords(0)) {
          const aiVector3D& t = source->mTextureCoords[0][v];
          mesh.uvs.emplace_back(t.x, 1.0f - t.y);  // assimp: v up; glTF: v down
        } else {
          mesh.uvs.emplace_back(0.0f, 0.0f);
        }
      }
    }
    if (any_uvs && !source->HasTextureCoords(0)) missing_uvs += source->mNumVertices;
    for (unsigned f = 0; f < source->mNumFaces; ++f) {
      const aiFace& face = source->mFaces[f];
      if (face.mNumIndices != 3 || face.mIndices[0] >= source->mNumVertices || face.mIndices[1] >= source->mNumVertices ||
          face.mIndices[2] >= source->mNumVertices) {
        ++bad_faces;
        continue;
      }
      mesh.triangles.push_back({first + face.mIndices[0], first + face.mIndices[1], first + face.mIndices[2]});
    }
    primitive.vertex_count = source->mNumVertices;
    primitive.triangle_count = static_cast<std::uint32_t>(mesh.triangles.size()) - primitive.first_triangle;
    mesh.primitives.push_back(primitive);

    if (!has_rig) continue;
    for (unsigned b = 0; b < source->mNumBones; ++b) {
      const aiBone* bone = source->mBones[b];
      const aiNode* node = nodes.find(bone->mName);
      if (!node) {
        diagnostics.repair("bone_without_node",
                           fmt::format("bone {} of mesh {} has no node in the hierarchy: its weights were dropped",
                                       bone->mName.C_Str(), mesh_name),
                           bone->mNumWeights);
        continue;
      }
      const std::uint32_t joint = joint_of.at(node);
      set_bind(joint, Mat4f(to_eigen(bone->mOffsetMatrix) * mesh_world_inverse), "bone of mesh " + mesh_name);
      for (unsigned w = 0; w < bone->mNumWeights; ++w) {
        const aiVertexWeight& weight = bone->mWeights[w];
        if (weight.mVertexId >= source->mNumVertices) {
          ++bad_weights;
          continue;
        }
        influences[first + weight.mVertexId].push_back({joint, weight.mWeight});
      }
    }
    if (needs_holder[m]) {
      // Unskinned vertices (a mesh without bones, or vertices no bone weighs) follow the mesh's node.
      const aiNode* node = holder ? holder : scene->mRootNode;
      const std::uint32_t joint = joint_of.at(node);
      set_bind(joint, Mat4f(nodes.world_of(node).inverse()), "rigid attachment of mesh " + mesh_name);
      std::size_t count = 0;
      for (unsigned v = 0; v < source->mNumVertices; ++v)
        if (!weighted[m][v]) influences[first + v] = {{joint, 1.0f}}, ++count;
      if (source->mNumBones > 0) unweighted += count;
    }
  }
  if (missing_uvs)
    diagnostics.repair("uvs_incomplete", "some meshes have no texture coordinates: (0, 0) used", missing_uvs);
  if (bad_faces) diagnostics.repair("bad_face_skipped", "faces with bad vertex indices were skipped", bad_faces);
  if (bad_weights)
    diagnostics.repair("bad_weight_skipped", "bone weights naming vertices out of range were skipped", bad_weights);
  if (unweighted)
    diagnostics.repair("unweighted_vertices", "vertices that no bone weighs were bound to their mesh's node", unweighted);

  if (has_rig && !mesh.positions.empty()) {
    for (const auto& row : influences) character.skin.add_vertex(row);
    character.skin.normalize(rig.joint_count(), 0, diagnostics, path);
  }

  // --- clips ---------------------------------------------------------------------------------
  if (!has_rig && scene->mNumAnimations > 0)
    diagnostics.repair("clip_missing_node", "clips that animate no node of the scene were dropped",
                       scene->mNumAnimations);
  for (unsigned a = 0; a < scene->mNumAnimations && has_rig; ++a) {
    const aiAnimation* animation = scene->mAnimations[a];
    Clip clip;
    clip.name = animation->mName.length ? animation->mName.C_Str() : fmt::format("clip_{}", a);
    double ticks_per_second = animation->mTicksPerSecond;
    if (!(ticks_per_second > 0.0) || !std::isfinite(ticks_per_second)) {
      ticks_per_second = 25.0;
      diagnostics.repair("clip_ticks_per_second",
                         fmt::format("clip {} gives no ticks per second: 25 assumed (assimp's default)", clip.name));
    }
    for (unsigned c = 0; c < animation->mNumChannels; ++c) {
      const aiNodeAnim* channel = animation->mChannels[c];
      const aiNode* node = nodes.find(channel->mNodeName);
      auto joint = node ? joint_of.find(node) : joint_of.end();
      if (joint == joint_of.end()) {
        diagnostics.repair("clip_missing_node", fmt::format("clip {} aims at missing node {}: channel dropped", clip.name,
                                                            channel->mNodeName.C_Str()));
        continue;
      }
      const std::string where = fmt::format("clip {} node {}", clip.name, channel->mNodeName.C_Str());
      auto store_vector = [](const aiVectorKey& key, float* out) {
        out[0] = key.mValue.x, out[1] = key.mValue.y, out[2] = key.mValue.z;
        return std::isfinite(out[0]) && std::isfinite(out[1]) && std::isfinite(out[2]);
      };
      std::size_t renormalised = 0;
      auto store_rotation = [&renormalised](const aiQuatKey& key, float* out) {
        // aiQuaternion is (w, x, y, z); channels store (x, y, z, w).
        Vec4f q(key.mValue.x, key.mValue.y, key.mValue.z, key.mValue.w);
        const float length = q.norm();
        if (!std::isfinite(length) || length < 1e-6f) return false;
        if (std::abs(length - 1.0f) > 1e-3f) ++renormalised;
        q /= length;
        std::copy(q.data(), q.data() + 4, out);
        return true;
      };
      add_channel(clip, joint->second, ChannelPath::Translation, channel->mPositionKeys, channel->mNumPositionKeys,
                  ticks_per_second, where, diagnostics, store_vector);
      add_channel(clip, joint->second, ChannelPath::Rotation, channel->mRotationKeys, channel->mNumRotationKeys,
                  ticks_per_second, where, diagnostics, store_rotation);
      add_channel(clip, joint->second, ChannelPath::Scale, channel->mScalingKeys, channel->mNumScalingKeys,
                  ticks_per_second, where, diagnostics, store_vector);
      if (renormalised)
        diagnostics.repair("clip_rotation_normalized", fmt::format("{}: rotation keys were not unit length: normalised", where),
                           renormalised);
    }
    character.clips.push_back(std::move(clip));
  }
  return character;
}

}  // namespace wobble
