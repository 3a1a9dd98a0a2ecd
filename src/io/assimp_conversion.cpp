// An assimp scene into a Character (assimp_scene.hpp), in stages: the meshes to keep, the nodes
// that become joints, the space the skins are bound in, the merged geometry, the influences, the
// clips. Each checks every index and count it reads.
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
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <assimp/material.h>
#include <assimp/scene.h>

#include <fmt/format.h>

#include <wobble/error.hpp>
#include <wobble/io/files.hpp>

#include "assimp_materials.hpp"
#include "assimp_nodes.hpp"
#include "assimp_scene.hpp"
#include "core/ascii.hpp"
#include "core/fail.hpp"

namespace wobble {
namespace {

namespace fs = std::filesystem;
using NodeSet = std::unordered_set<const aiNode*>;
using JointOf = std::unordered_map<const aiNode*, std::uint32_t>;

bool nearly_equal(const Mat4f& a, const Mat4f& b) {
  const float scale = 1.0f + std::max(a.cwiseAbs().maxCoeff(), b.cwiseAbs().maxCoeff());
  return (a - b).cwiseAbs().maxCoeff() <= 1e-4f * scale;
}

// assimp's made-up mesh of bone shapes for skeleton-only files: no part of the character.
bool is_skeleton_mesh(const aiScene* scene, const aiMesh* mesh) {
  if (mesh->mMaterialIndex >= scene->mNumMaterials) return false;
  aiString name;
  return scene->mMaterials[mesh->mMaterialIndex]->Get(AI_MATKEY_NAME, name) == AI_SUCCESS &&
         std::string(name.C_Str()) == "SkeletonMaterial";
}

// The meshes to keep, in file order. A BVH file is a skeleton and its motion only; for it and
// other skeleton-only files assimp makes up a mesh of bone shapes (material "SkeletonMaterial").
// (assimp's option not to make it cannot be used: its validation then rejects the scene for
// having no mesh.)
std::vector<unsigned> kept_meshes(const aiScene* scene, const fs::path& path, Diagnostics& diagnostics) {
  const bool skeleton_file = lowercase_extension(path) == ".bvh";
  std::vector<unsigned> meshes;
  std::size_t skipped = 0;
  for (unsigned m = 0; m < scene->mNumMeshes; ++m) {
    if (skeleton_file || is_skeleton_mesh(scene, scene->mMeshes[m])) continue;
    if (is_triangle_mesh(scene->mMeshes[m]))
      meshes.push_back(m);
    else
      ++skipped;
  }
  if (skipped)
    diagnostics.repair("non_triangle_mesh_skipped", "meshes of points or lines have no surface: skipped", skipped);
  if (meshes.empty() && scene->mNumAnimations == 0) fail(path, "no triangle mesh and no animation in the file");
  return meshes;
}

// Which nodes become joints, which vertices bones weigh, and which meshes have vertices that no
// bone weighs (those follow the mesh's node).
struct JointPlan {
  NodeSet needed;
  std::vector<std::vector<bool>> weighted;  // per mesh, per vertex
  std::vector<bool> needs_holder;           // per mesh
  bool has_rig = false;
};

// The nodes that bones of the kept meshes and animation channels name.
NodeSet named_nodes(const aiScene* scene, const SceneNodes& nodes, const std::vector<unsigned>& meshes) {
  NodeSet named;
  for (unsigned m : meshes) {
    const aiMesh* source = scene->mMeshes[m];
    for (unsigned b = 0; b < source->mNumBones; ++b)
      if (const aiNode* node = nodes.find(source->mBones[b]->mName)) named.insert(node);
  }
  for (unsigned a = 0; a < scene->mNumAnimations; ++a) {
    const aiAnimation* animation = scene->mAnimations[a];
    for (unsigned c = 0; c < animation->mNumChannels; ++c)
      if (const aiNode* node = nodes.find(animation->mChannels[c]->mNodeName)) named.insert(node);
  }
  return named;
}

// Per vertex of one mesh: does a bone (with a node) weigh it?
std::vector<bool> weighted_vertices(const aiMesh* source, const SceneNodes& nodes) {
  std::vector<bool> weighted(source->mNumVertices, false);
  for (unsigned b = 0; b < source->mNumBones; ++b) {
    const aiBone* bone = source->mBones[b];
    if (!nodes.find(bone->mName)) continue;
    for (unsigned w = 0; w < bone->mNumWeights; ++w)
      if (bone->mWeights[w].mVertexId < source->mNumVertices && bone->mWeights[w].mWeight > 0.0f)
        weighted[bone->mWeights[w].mVertexId] = true;
  }
  return weighted;
}

JointPlan plan_joints(const aiScene* scene, const SceneNodes& nodes, const std::vector<unsigned>& meshes) {
  JointPlan plan;
  plan.needed = named_nodes(scene, nodes, meshes);
  plan.has_rig = !plan.needed.empty() || meshes.empty();
  plan.weighted.resize(scene->mNumMeshes);
  plan.needs_holder.assign(scene->mNumMeshes, false);
  if (!plan.has_rig) return plan;
  for (unsigned m : meshes) {
    plan.weighted[m] = weighted_vertices(scene->mMeshes[m], nodes);
    if (std::find(plan.weighted[m].begin(), plan.weighted[m].end(), false) != plan.weighted[m].end()) {
      plan.needs_holder[m] = true;
      plan.needed.insert(nodes.mesh_holder[m] ? nodes.mesh_holder[m] : scene->mRootNode);
    }
  }
  if (meshes.empty())  // a skeleton file: every node is a joint (BVH end sites included)
    plan.needed.insert(nodes.order.begin(), nodes.order.end());
  // Ancestors carry the transforms of the joints below them.
  for (const aiNode* node : nodes.order)
    if (plan.needed.count(node))
      for (const aiNode* up = nodes.parent.at(node); up && !plan.needed.count(up); up = nodes.parent.at(up))
        plan.needed.insert(up);
  return plan;
}

// The needed nodes as joints of `rig`, parents first; unnamed ones get "node_N".
JointOf add_joints(Rig& rig, const SceneNodes& nodes, const NodeSet& needed) {
  JointOf joint_of;
  for (const aiNode* node : nodes.order) {
    if (!needed.count(node)) continue;
    const aiNode* up = nodes.parent.at(node);
    const int parent = up ? static_cast<int>(joint_of.at(up)) : -1;
    std::string name = node->mName.C_Str();
    if (name.empty()) name = fmt::format("node_{}", rig.joint_count());
    joint_of[node] = static_cast<std::uint32_t>(
        rig.add_joint(name, parent, Transform::from_matrix(to_eigen(node->mTransformation)), Mat4f::Identity(), false));
  }
  return joint_of;
}

// How far one skinned mesh's rest pose lands from its raw vertices and from its scene-space
// vertices (sums over the weighted vertices).
struct BindSpaceErrors {
  double raw = 0, scene = 0;
};

void add_bind_space_errors(const aiMesh* source, const SceneNodes& nodes, const aiNode* holder,
                           BindSpaceErrors& errors) {
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
  const Mat4f mesh_world = nodes.world_of(holder);
  for (unsigned v = 0; v < source->mNumVertices; ++v) {
    if (!(weight_sum[v] > 0.0f)) continue;
    const Vec3f at_rest = skinned[v] / weight_sum[v];
    const Vec3f raw(source->mVertices[v].x, source->mVertices[v].y, source->mVertices[v].z);
    const double to_raw = (at_rest - raw).norm(),
                 to_scene = (at_rest - (mesh_world * raw.homogeneous()).head<3>()).norm();
    if (std::isfinite(to_raw) && std::isfinite(to_scene)) errors.raw += to_raw, errors.scene += to_scene;
  }
}

// Which space the skinned meshes' bind pose lives in. With boneWorld * offset * v as the skinned
// position, files differ in what the bind pose gives back: FBX and Collada exporters put the mesh
// node's transform into the offsets (the bind pose reproduces meshWorld * v), DirectX .x files do
// not (it reproduces the raw v). Skinning is the same either way; the choice decides where the
// bind-space mesh sits. The rest pose is the bind pose in most files, so the space it reproduces
// better is taken (the scene space on a tie).
bool skin_in_raw_space(const aiScene* scene, const SceneNodes& nodes, const std::vector<unsigned>& meshes) {
  BindSpaceErrors errors;
  for (unsigned m : meshes)
    if (scene->mMeshes[m]->mNumBones > 0) add_bind_space_errors(scene->mMeshes[m], nodes, nodes.mesh_holder[m], errors);
  return errors.raw < errors.scene;
}

// Counts of what the conversion repaired, reported once for all meshes.
struct Repairs {
  std::size_t missing_uvs = 0, bad_faces = 0, bad_weights = 0, unweighted = 0;

  void report(Diagnostics& diagnostics) const {
    if (missing_uvs)
      diagnostics.repair("uvs_incomplete", "some meshes have no texture coordinates: (0, 0) used", missing_uvs);
    if (bad_faces) diagnostics.repair("bad_face_skipped", "faces with bad vertex indices were skipped", bad_faces);
    if (bad_weights)
      diagnostics.repair("bad_weight_skipped", "bone weights naming vertices out of range were skipped", bad_weights);
    if (unweighted)
      diagnostics.repair("unweighted_vertices", "vertices that no bone weighs were bound to their mesh's node",
                         unweighted);
  }
};

// Bind space from a mesh's space: its node's rest world transform, or none for a skin whose
// offsets expect the raw vertices (skin_in_raw_space).
struct MeshSpace {
  Mat4f world, world_inverse;
  Mat3f normals;

  explicit MeshSpace(const Mat4f& mesh_world)
      : world(mesh_world),
        world_inverse(mesh_world.inverse()),
        normals(mesh_world.topLeftCorner<3, 3>().inverse().transpose()) {}
};

void append_vertices(const aiMesh* source, const MeshSpace& space, bool any_uvs, Mesh& mesh) {
  for (unsigned v = 0; v < source->mNumVertices; ++v) {
    const aiVector3D& p = source->mVertices[v];
    mesh.positions.push_back((space.world * Vec4f(p.x, p.y, p.z, 1.0f)).head<3>());
    Vec3f n = Vec3f::UnitY();
    if (source->HasNormals()) {
      const aiVector3D& s = source->mNormals[v];
      const Vec3f transformed = space.normals * Vec3f(s.x, s.y, s.z);
      const float length = transformed.norm();
      if (std::isfinite(length) && length > 1e-12f) n = transformed / length;
    }
    mesh.normals.push_back(n);
    if (!any_uvs) continue;
    if (source->HasTextureCoords(0)) {
      const aiVector3D& t = source->mTextureCoords[0][v];
      mesh.uvs.emplace_back(t.x, 1.0f - t.y);  // assimp: v up; glTF: v down
    } else {
      mesh.uvs.emplace_back(0.0f, 0.0f);
    }
  }
}

void append_triangles(const aiMesh* source, std::uint32_t first, Mesh& mesh, Repairs& repairs) {
  for (unsigned f = 0; f < source->mNumFaces; ++f) {
    const aiFace& face = source->mFaces[f];
    if (face.mNumIndices != 3 || face.mIndices[0] >= source->mNumVertices || face.mIndices[1] >= source->mNumVertices ||
        face.mIndices[2] >= source->mNumVertices) {
      ++repairs.bad_faces;
      continue;
    }
    mesh.triangles.push_back({first + face.mIndices[0], first + face.mIndices[1], first + face.mIndices[2]});
  }
}

// Mesh `m`'s vertices and triangles appended to `mesh` as one primitive; returns its first vertex.
std::uint32_t append_geometry(const aiMesh* source, unsigned m, const MeshSpace& space, bool any_uvs, Mesh& mesh,
                              Repairs& repairs) {
  Primitive primitive;
  primitive.name = source->mName.C_Str();
  primitive.source_mesh = static_cast<int>(m);
  primitive.material = source->mMaterialIndex < mesh.materials.size() ? static_cast<int>(source->mMaterialIndex) : -1;
  primitive.first_vertex = static_cast<std::uint32_t>(mesh.positions.size());
  primitive.first_triangle = static_cast<std::uint32_t>(mesh.triangles.size());
  append_vertices(source, space, any_uvs, mesh);
  if (any_uvs && !source->HasTextureCoords(0)) repairs.missing_uvs += source->mNumVertices;
  append_triangles(source, primitive.first_vertex, mesh, repairs);
  primitive.vertex_count = source->mNumVertices;
  primitive.triangle_count = static_cast<std::uint32_t>(mesh.triangles.size()) - primitive.first_triangle;
  mesh.primitives.push_back(primitive);
  return primitive.first_vertex;
}

// Inverse bind matrices as meshes name them: the first one a joint gets is kept, a different
// later one is reported.
class BindMatrices {
 public:
  BindMatrices(Rig& rig, Diagnostics& diagnostics)
      : rig_(rig), diagnostics_(diagnostics), set_(rig.joint_count(), false) {}
  void set(std::uint32_t joint, const Mat4f& inverse_bind, const std::string& what) {
    if (set_[joint]) {
      if (!nearly_equal(rig_.inverse_bind[joint], inverse_bind))
        diagnostics_.repair("bind_conflict", fmt::format("joint {} has different bind matrices ({}): the first is used",
                                                         rig_.names[joint], what));
      return;
    }
    set_[joint] = true;
    rig_.inverse_bind[joint] = inverse_bind;
    rig_.skinned[joint] = true;
  }

 private:
  Rig& rig_;
  Diagnostics& diagnostics_;
  std::vector<bool> set_;
};

// Where one mesh's influences go: the merged vertices from `first`, joints by node.
struct InfluenceTarget {
  std::vector<std::vector<Influence>>& influences;
  std::uint32_t first;
  const JointOf& joint_of;
  BindMatrices& binds;
};

void append_bone_influences(const aiMesh* source, const std::string& mesh_name, const MeshSpace& space,
                            const SceneNodes& nodes, InfluenceTarget target, Diagnostics& diagnostics,
                            Repairs& repairs) {
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
    const std::uint32_t joint = target.joint_of.at(node);
    target.binds.set(joint, Mat4f(to_eigen(bone->mOffsetMatrix) * space.world_inverse), "bone of mesh " + mesh_name);
    for (unsigned w = 0; w < bone->mNumWeights; ++w) {
      const aiVertexWeight& weight = bone->mWeights[w];
      if (weight.mVertexId >= source->mNumVertices) {
        ++repairs.bad_weights;
        continue;
      }
      target.influences[target.first + weight.mVertexId].push_back({joint, weight.mWeight});
    }
  }
}

// Unskinned vertices (a mesh without bones, or vertices no bone weighs) follow the mesh's node.
void attach_to_holder(const aiMesh* source, const std::string& mesh_name, const aiNode* node, const SceneNodes& nodes,
                      const std::vector<bool>& weighted, InfluenceTarget target, Repairs& repairs) {
  const std::uint32_t joint = target.joint_of.at(node);
  target.binds.set(joint, Mat4f(nodes.world_of(node).inverse()), "rigid attachment of mesh " + mesh_name);
  std::size_t count = 0;
  for (unsigned v = 0; v < source->mNumVertices; ++v)
    if (!weighted[v]) target.influences[target.first + v] = {{joint, 1.0f}}, ++count;
  if (source->mNumBones > 0) repairs.unweighted += count;
}

std::size_t total_vertex_count(const aiScene* scene, const std::vector<unsigned>& meshes, const fs::path& path) {
  std::size_t total = 0;
  for (unsigned m : meshes) total += scene->mMeshes[m]->mNumVertices;
  if (total > std::numeric_limits<std::uint32_t>::max()) fail(path, "too many vertices ({})", total);
  return total;
}

// The kept meshes merged into the character's mesh, and their influences into its skin.
void convert_meshes(const aiScene* scene, const SceneNodes& nodes, const std::vector<unsigned>& meshes,
                    const JointPlan& plan, const JointOf& joint_of, Character& character) {
  Mesh& mesh = character.mesh;
  Diagnostics& diagnostics = character.diagnostics;
  if (!meshes.empty()) read_materials(character.source, scene, mesh, diagnostics);
  BindMatrices binds(character.rig, diagnostics);
  const bool raw_space = plan.has_rig && skin_in_raw_space(scene, nodes, meshes);
  const std::size_t total_vertices = total_vertex_count(scene, meshes, character.source);
  const bool any_uvs =
      std::any_of(meshes.begin(), meshes.end(), [&](unsigned m) { return scene->mMeshes[m]->HasTextureCoords(0); });
  std::vector<std::vector<Influence>> influences(plan.has_rig ? total_vertices : 0);
  Repairs repairs;
  for (unsigned m : meshes) {
    const aiMesh* source = scene->mMeshes[m];
    const aiNode* holder = nodes.mesh_holder[m];
    const MeshSpace space(raw_space && source->mNumBones > 0 ? Mat4f(Mat4f::Identity()) : nodes.world_of(holder));
    const std::string mesh_name = source->mName.length ? source->mName.C_Str() : fmt::format("mesh_{}", m);
    const std::uint32_t first = append_geometry(source, m, space, any_uvs, mesh, repairs);
    if (!plan.has_rig) continue;
    const InfluenceTarget target{influences, first, joint_of, binds};
    append_bone_influences(source, mesh_name, space, nodes, target, diagnostics, repairs);
    if (plan.needs_holder[m])
      attach_to_holder(source, mesh_name, holder ? holder : scene->mRootNode, nodes, plan.weighted[m], target, repairs);
  }
  repairs.report(diagnostics);
  if (plan.has_rig && !mesh.positions.empty()) {
    for (const auto& row : influences) character.skin.add_vertex(row);
    character.skin.normalize(character.rig.joint_count(), 0, diagnostics, character.source);
  }
}

// One channel from assimp keys: times in seconds, strictly increasing, finite values.
template <typename Key, typename Store>
void add_channel(Clip& clip, std::uint32_t joint, ChannelPath path, const Key* keys, unsigned count,
                 double ticks_per_second, const std::string& where, Diagnostics& diagnostics, Store store) {
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

bool store_vector(const aiVectorKey& key, float* out) {
  out[0] = key.mValue.x, out[1] = key.mValue.y, out[2] = key.mValue.z;
  return std::isfinite(out[0]) && std::isfinite(out[1]) && std::isfinite(out[2]);
}

// One node's channels (translation, rotation, scale) of a clip; rotations renormalised.
void add_node_channels(Clip& clip, std::uint32_t joint, const aiNodeAnim* channel, double ticks_per_second,
                       Diagnostics& diagnostics) {
  const std::string where = fmt::format("clip {} node {}", clip.name, channel->mNodeName.C_Str());
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
  add_channel(clip, joint, ChannelPath::Translation, channel->mPositionKeys, channel->mNumPositionKeys,
              ticks_per_second, where, diagnostics, store_vector);
  add_channel(clip, joint, ChannelPath::Rotation, channel->mRotationKeys, channel->mNumRotationKeys, ticks_per_second,
              where, diagnostics, store_rotation);
  add_channel(clip, joint, ChannelPath::Scale, channel->mScalingKeys, channel->mNumScalingKeys, ticks_per_second, where,
              diagnostics, store_vector);
  if (renormalised)
    diagnostics.repair("clip_rotation_normalized",
                       fmt::format("{}: rotation keys were not unit length: normalised", where), renormalised);
}

Clip clip_from_animation(const aiAnimation* animation, unsigned a, const SceneNodes& nodes, const JointOf& joint_of,
                         Diagnostics& diagnostics) {
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
    add_node_channels(clip, joint->second, channel, ticks_per_second, diagnostics);
  }
  return clip;
}

void convert_clips(const aiScene* scene, const SceneNodes& nodes, bool has_rig, const JointOf& joint_of,
                   Character& character) {
  if (!has_rig && scene->mNumAnimations > 0)
    character.diagnostics.repair("clip_missing_node", "clips that animate no node of the scene were dropped",
                                 scene->mNumAnimations);
  for (unsigned a = 0; a < scene->mNumAnimations && has_rig; ++a)
    character.clips.push_back(clip_from_animation(scene->mAnimations[a], a, nodes, joint_of, character.diagnostics));
}

}  // namespace

bool is_triangle_mesh(const aiMesh* mesh) {
  return mesh && (mesh->mPrimitiveTypes & aiPrimitiveType_TRIANGLE) && mesh->mNumVertices > 0 && mesh->mNumFaces > 0;
}

Character character_from_assimp(const aiScene& scene_ref, const fs::path& path) {
  const aiScene* scene = &scene_ref;  // the stages read it through a pointer, as assimp hands it out
  Character character;
  character.source = path;
  const SceneNodes nodes(scene);
  const std::vector<unsigned> meshes = kept_meshes(scene, path, character.diagnostics);
  const JointPlan plan = plan_joints(scene, nodes, meshes);
  const JointOf joint_of = plan.has_rig ? add_joints(character.rig, nodes, plan.needed) : JointOf{};
  convert_meshes(scene, nodes, meshes, plan, joint_of, character);
  convert_clips(scene, nodes, plan.has_rig, joint_of, character);
  return character;
}

}  // namespace wobble
