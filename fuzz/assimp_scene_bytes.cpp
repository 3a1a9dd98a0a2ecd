#include "assimp_scene_bytes.hpp"

#include <algorithm>
#include <cstring>

#include <assimp/material.h>
#include <assimp/scene.h>

namespace wobble::fuzz {

namespace {

constexpr unsigned kMaxNodes = 40, kMaxChildren = 8, kMaxMeshes = 6, kMaxMaterials = 4, kMaxAnimations = 3;
constexpr unsigned kMaxVertices = 600, kMaxFaces = 1200, kMaxBones = 40, kMaxWeights = 600, kMaxChannels = 40,
                   kMaxKeys = 64, kMaxName = 24;

class Bytes {
 public:
  Bytes(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  std::uint8_t u8() { return at_ < size_ ? data_[at_++] : 0; }
  std::uint16_t u16() { return static_cast<std::uint16_t>(u8() | (u8() << 8)); }
  std::uint32_t u32() { return static_cast<std::uint32_t>(u16() | (static_cast<std::uint32_t>(u16()) << 16)); }
  float f32() {
    const std::uint32_t bits = u32();
    float value;
    std::memcpy(&value, &bits, 4);
    return value;
  }
  unsigned count(unsigned most) { return std::min<unsigned>(u16(), most); }
  std::string name() {
    const unsigned n = std::min<unsigned>(u8(), kMaxName);
    std::string s;
    for (unsigned i = 0; i < n; ++i) s += static_cast<char>(u8());
    return s;
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_, at_ = 0;
};

class Out {
 public:
  void u8(unsigned v) { bytes.push_back(static_cast<std::uint8_t>(v)); }
  void u16(unsigned v) { u8(v & 0xFF), u8((v >> 8) & 0xFF); }
  void u32(std::uint32_t v) { u16(v & 0xFFFF), u16(v >> 16); }
  void f32(float v) {
    std::uint32_t bits;
    std::memcpy(&bits, &v, 4);
    u32(bits);
  }
  void count(unsigned n, unsigned most) { u16(std::min(n, most)); }
  void name(const aiString& s) {
    const unsigned n = std::min<unsigned>(s.length, kMaxName);
    u8(n);
    for (unsigned i = 0; i < n; ++i) u8(static_cast<unsigned char>(s.data[i]));
  }
  std::vector<std::uint8_t> bytes;
};

aiMatrix4x4 matrix(Bytes& in) {
  aiMatrix4x4 m;
  if (in.u8() & 1) return m;  // identity, the common case, in one byte
  for (unsigned r = 0; r < 4; ++r)
    for (unsigned c = 0; c < 4; ++c) m[r][c] = in.f32();
  return m;
}

void matrix(Out& out, const aiMatrix4x4& m) {
  const bool identity = m.IsIdentity();
  out.u8(identity ? 1 : 0);
  if (identity) return;
  for (unsigned r = 0; r < 4; ++r)
    for (unsigned c = 0; c < 4; ++c) out.f32(m[r][c]);
}

aiVector3D vector(Bytes& in) {
  const float x = in.f32(), y = in.f32(), z = in.f32();
  return aiVector3D(x, y, z);
}

void vector(Out& out, const aiVector3D& v) { out.f32(v.x), out.f32(v.y), out.f32(v.z); }

// Nodes in pre-order: each names its parent among the nodes before it.
aiNode* read_nodes(Bytes& in, unsigned mesh_references) {
  const unsigned count = std::max(1u, in.count(kMaxNodes));
  std::vector<aiNode*> nodes;
  std::vector<std::vector<aiNode*>> children(count);
  for (unsigned i = 0; i < count; ++i) {
    aiNode* node = new aiNode(in.name());
    node->mTransformation = matrix(in);
    node->mNumMeshes = std::min<unsigned>(in.u8(), 4);
    if (node->mNumMeshes) node->mMeshes = new unsigned[node->mNumMeshes];
    for (unsigned k = 0; k < node->mNumMeshes; ++k) node->mMeshes[k] = in.u8() % (mesh_references + 2);
    const unsigned parent = in.u8();
    if (i > 0) {
      unsigned p = parent % i;
      while (children[p].size() >= kMaxChildren) p = (p + 1) % i;
      children[p].push_back(node);
      node->mParent = nodes[p];
    }
    nodes.push_back(node);
  }
  for (unsigned i = 0; i < count; ++i) {
    if (children[i].empty()) continue;
    nodes[i]->mNumChildren = static_cast<unsigned>(children[i].size());
    nodes[i]->mChildren = new aiNode*[children[i].size()];
    std::copy(children[i].begin(), children[i].end(), nodes[i]->mChildren);
  }
  return nodes[0];
}

void write_nodes(Out& out, const aiNode* root) {
  std::vector<std::pair<const aiNode*, unsigned>> order;  // node, parent index
  std::vector<std::pair<const aiNode*, unsigned>> stack{{root, 0}};
  while (!stack.empty() && order.size() < kMaxNodes) {
    const auto [node, parent] = stack.back();
    stack.pop_back();
    const unsigned index = static_cast<unsigned>(order.size());
    order.push_back({node, parent});
    for (unsigned c = std::min(node->mNumChildren, kMaxChildren); c-- > 0;)
      stack.push_back({node->mChildren[c], index});
  }
  out.count(static_cast<unsigned>(order.size()), kMaxNodes);
  for (const auto& [node, parent] : order) {
    out.name(node->mName);
    matrix(out, node->mTransformation);
    const unsigned meshes = std::min(node->mNumMeshes, 4u);
    out.u8(meshes);
    for (unsigned k = 0; k < meshes; ++k) out.u8(node->mMeshes[k]);
    out.u8(parent);
  }
}

aiMesh* read_mesh(Bytes& in) {
  aiMesh* mesh = new aiMesh();
  mesh->mName = in.name();
  const std::uint8_t flags = in.u8();
  mesh->mPrimitiveTypes = (flags & 1)   ? aiPrimitiveType_TRIANGLE
                          : (flags & 2) ? aiPrimitiveType_LINE
                                        : aiPrimitiveType_POINT;
  mesh->mMaterialIndex = in.u8();
  mesh->mNumVertices = in.count(kMaxVertices);
  mesh->mVertices = new aiVector3D[mesh->mNumVertices];
  for (unsigned v = 0; v < mesh->mNumVertices; ++v) mesh->mVertices[v] = vector(in);
  if (flags & 4) {
    mesh->mNormals = new aiVector3D[mesh->mNumVertices];
    for (unsigned v = 0; v < mesh->mNumVertices; ++v) mesh->mNormals[v] = vector(in);
  }
  if (flags & 8) {
    mesh->mTextureCoords[0] = new aiVector3D[mesh->mNumVertices];
    mesh->mNumUVComponents[0] = 2;
    for (unsigned v = 0; v < mesh->mNumVertices; ++v) mesh->mTextureCoords[0][v] = vector(in);
  }
  mesh->mNumFaces = in.count(kMaxFaces);
  mesh->mFaces = new aiFace[mesh->mNumFaces];
  for (unsigned f = 0; f < mesh->mNumFaces; ++f) {
    aiFace& face = mesh->mFaces[f];
    face.mNumIndices = 1 + in.u8() % 4;
    face.mIndices = new unsigned[face.mNumIndices];
    for (unsigned k = 0; k < face.mNumIndices; ++k) face.mIndices[k] = in.u16();
  }
  mesh->mNumBones = in.count(kMaxBones);
  if (mesh->mNumBones) mesh->mBones = new aiBone*[mesh->mNumBones];
  for (unsigned b = 0; b < mesh->mNumBones; ++b) {
    aiBone* bone = new aiBone();
    bone->mName = in.name();
    bone->mOffsetMatrix = matrix(in);
    bone->mNumWeights = in.count(kMaxWeights);
    bone->mWeights = new aiVertexWeight[bone->mNumWeights];
    for (unsigned w = 0; w < bone->mNumWeights; ++w) {
      bone->mWeights[w].mVertexId = in.u16();
      bone->mWeights[w].mWeight = in.f32();
    }
    mesh->mBones[b] = bone;
  }
  return mesh;
}

void write_mesh(Out& out, const aiMesh& mesh) {
  out.name(mesh.mName);
  const unsigned flags = ((mesh.mPrimitiveTypes & aiPrimitiveType_TRIANGLE) ? 1
                          : (mesh.mPrimitiveTypes & aiPrimitiveType_LINE)   ? 2
                                                                            : 0) |
                         (mesh.mNormals ? 4 : 0) | (mesh.mTextureCoords[0] ? 8 : 0);
  out.u8(flags);
  out.u8(mesh.mMaterialIndex);
  const unsigned vertices = std::min(mesh.mNumVertices, kMaxVertices);
  out.count(vertices, kMaxVertices);
  for (unsigned v = 0; v < vertices; ++v) vector(out, mesh.mVertices[v]);
  if (mesh.mNormals)
    for (unsigned v = 0; v < vertices; ++v) vector(out, mesh.mNormals[v]);
  if (mesh.mTextureCoords[0])
    for (unsigned v = 0; v < vertices; ++v) vector(out, mesh.mTextureCoords[0][v]);
  const unsigned faces = std::min(mesh.mNumFaces, kMaxFaces);
  out.count(faces, kMaxFaces);
  for (unsigned f = 0; f < faces; ++f) {
    const aiFace& face = mesh.mFaces[f];
    const unsigned n = std::clamp(face.mNumIndices, 1u, 4u);
    out.u8(n - 1);
    for (unsigned k = 0; k < n; ++k) out.u16(k < face.mNumIndices ? face.mIndices[k] : 0);
  }
  const unsigned bones = std::min(mesh.mNumBones, kMaxBones);
  out.count(bones, kMaxBones);
  for (unsigned b = 0; b < bones; ++b) {
    const aiBone& bone = *mesh.mBones[b];
    out.name(bone.mName);
    matrix(out, bone.mOffsetMatrix);
    const unsigned weights = std::min(bone.mNumWeights, kMaxWeights);
    out.count(weights, kMaxWeights);
    for (unsigned w = 0; w < weights; ++w) {
      out.u16(bone.mWeights[w].mVertexId);
      out.f32(bone.mWeights[w].mWeight);
    }
  }
}

aiMaterial* read_material(Bytes& in) {
  aiMaterial* material = new aiMaterial();
  const aiString name(in.name());
  material->AddProperty(&name, AI_MATKEY_NAME);
  aiColor4D color(in.f32(), in.f32(), in.f32(), in.f32());
  material->AddProperty(&color, 1, AI_MATKEY_COLOR_DIFFUSE);
  return material;
}

void write_material(Out& out, const aiMaterial& material) {
  aiString name;
  material.Get(AI_MATKEY_NAME, name);
  out.name(name);
  aiColor4D color(1, 1, 1, 1);
  material.Get(AI_MATKEY_COLOR_DIFFUSE, color);
  out.f32(color.r), out.f32(color.g), out.f32(color.b), out.f32(color.a);
}

template <typename Key, typename Value>
Key* read_keys(Bytes& in, unsigned& count, Value read_value) {
  count = in.count(kMaxKeys);
  Key* keys = new Key[count];
  for (unsigned k = 0; k < count; ++k) {
    keys[k].mTime = in.f32();
    keys[k].mValue = read_value();
  }
  return keys;
}

template <typename Key, typename Value>
void write_keys(Out& out, const Key* keys, unsigned count, Value write_value) {
  const unsigned n = std::min(count, kMaxKeys);
  out.count(n, kMaxKeys);
  for (unsigned k = 0; k < n; ++k) {
    out.f32(static_cast<float>(keys[k].mTime));
    write_value(keys[k].mValue);
  }
}

aiAnimation* read_animation(Bytes& in) {
  aiAnimation* animation = new aiAnimation();
  animation->mName = in.name();
  animation->mTicksPerSecond = in.f32();
  animation->mDuration = in.f32();
  animation->mNumChannels = in.count(kMaxChannels);
  if (animation->mNumChannels) animation->mChannels = new aiNodeAnim*[animation->mNumChannels];
  for (unsigned c = 0; c < animation->mNumChannels; ++c) {
    aiNodeAnim* channel = new aiNodeAnim();
    channel->mNodeName = in.name();
    channel->mPositionKeys = read_keys<aiVectorKey>(in, channel->mNumPositionKeys, [&] { return vector(in); });
    channel->mRotationKeys = read_keys<aiQuatKey>(in, channel->mNumRotationKeys, [&] {
      const float w = in.f32(), x = in.f32(), y = in.f32(), z = in.f32();
      return aiQuaternion(w, x, y, z);
    });
    channel->mScalingKeys = read_keys<aiVectorKey>(in, channel->mNumScalingKeys, [&] { return vector(in); });
    animation->mChannels[c] = channel;
  }
  return animation;
}

void write_animation(Out& out, const aiAnimation& animation) {
  out.name(animation.mName);
  out.f32(static_cast<float>(animation.mTicksPerSecond));
  out.f32(static_cast<float>(animation.mDuration));
  const unsigned channels = std::min(animation.mNumChannels, kMaxChannels);
  out.count(channels, kMaxChannels);
  for (unsigned c = 0; c < channels; ++c) {
    const aiNodeAnim& channel = *animation.mChannels[c];
    out.name(channel.mNodeName);
    write_keys(out, channel.mPositionKeys, channel.mNumPositionKeys, [&](const aiVector3D& v) { vector(out, v); });
    write_keys(out, channel.mRotationKeys, channel.mNumRotationKeys,
               [&](const aiQuaternion& q) { out.f32(q.w), out.f32(q.x), out.f32(q.y), out.f32(q.z); });
    write_keys(out, channel.mScalingKeys, channel.mNumScalingKeys, [&](const aiVector3D& v) { vector(out, v); });
  }
}

}  // namespace

std::unique_ptr<aiScene> decode_scene(const std::uint8_t* data, std::size_t size) {
  Bytes in(data, size);
  auto scene = std::make_unique<aiScene>();
  scene->mNumMeshes = in.count(kMaxMeshes);
  scene->mNumMaterials = in.count(kMaxMaterials);
  scene->mNumAnimations = in.count(kMaxAnimations);
  scene->mRootNode = read_nodes(in, scene->mNumMeshes);
  if (scene->mNumMeshes) scene->mMeshes = new aiMesh*[scene->mNumMeshes];
  for (unsigned m = 0; m < scene->mNumMeshes; ++m) scene->mMeshes[m] = read_mesh(in);
  if (scene->mNumMaterials) scene->mMaterials = new aiMaterial*[scene->mNumMaterials];
  for (unsigned m = 0; m < scene->mNumMaterials; ++m) scene->mMaterials[m] = read_material(in);
  if (scene->mNumAnimations) scene->mAnimations = new aiAnimation*[scene->mNumAnimations];
  for (unsigned a = 0; a < scene->mNumAnimations; ++a) scene->mAnimations[a] = read_animation(in);
  return scene;
}

std::vector<std::uint8_t> encode_scene(const aiScene& scene) {
  Out out;
  const unsigned meshes = std::min(scene.mNumMeshes, kMaxMeshes),
                 materials = std::min(scene.mNumMaterials, kMaxMaterials),
                 animations = std::min(scene.mNumAnimations, kMaxAnimations);
  out.count(meshes, kMaxMeshes);
  out.count(materials, kMaxMaterials);
  out.count(animations, kMaxAnimations);
  write_nodes(out, scene.mRootNode);
  for (unsigned m = 0; m < meshes; ++m) write_mesh(out, *scene.mMeshes[m]);
  for (unsigned m = 0; m < materials; ++m) write_material(out, *scene.mMaterials[m]);
  for (unsigned a = 0; a < animations; ++a) write_animation(out, *scene.mAnimations[a]);
  return out.bytes;
}

}  // namespace wobble::fuzz
