// glTF 2.0 writer: a clean model built from a Character (one mesh, one primitive per source
// primitive, the rig as nodes, one skin, the clips as animations), or a baked clip whose
// deformation rides on per-frame morph targets. The JSON is built with nlohmann::json (sorted
// keys) and the GLB container is written here, so the same character gives the same bytes.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <wobble/io/output_file.hpp>
#include <wobble/error.hpp>
#include <wobble/io/files.hpp>

#include "core/fail.hpp"
#include "image_mime_type.hpp"

namespace wobble {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

constexpr int kUnsignedByte = 5121, kUnsignedShort = 5123, kUnsignedInt = 5125, kFloat = 5126;
constexpr int kArrayBuffer = 34962, kElementArrayBuffer = 34963;

std::string base64(const std::vector<std::uint8_t>& bytes) {
  static const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const std::uint32_t v = (std::uint32_t(bytes[i]) << 16) | (std::uint32_t(bytes[i + 1]) << 8) | bytes[i + 2];
    out += alphabet[(v >> 18) & 63];
    out += alphabet[(v >> 12) & 63];
    out += alphabet[(v >> 6) & 63];
    out += alphabet[v & 63];
  }
  if (i + 1 == bytes.size()) {
    const std::uint32_t v = std::uint32_t(bytes[i]) << 16;
    out += alphabet[(v >> 18) & 63];
    out += alphabet[(v >> 12) & 63];
    out += "==";
  } else if (i + 2 == bytes.size()) {
    const std::uint32_t v = (std::uint32_t(bytes[i]) << 16) | (std::uint32_t(bytes[i + 1]) << 8);
    out += alphabet[(v >> 18) & 63];
    out += alphabet[(v >> 12) & 63];
    out += alphabet[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

// One binary buffer with a bufferView and an accessor per array.
class BufferBuilder {
 public:
  json views = json::array();
  json accessors = json::array();
  std::vector<std::uint8_t> data;

  int add_view(const void* bytes, std::size_t size, int target) {
    while (data.size() % 4 != 0) data.push_back(0);
    json view = {{"buffer", 0}, {"byteOffset", data.size()}, {"byteLength", size}};
    if (target != 0) view["target"] = target;
    const auto* p = static_cast<const std::uint8_t*>(bytes);
    data.insert(data.end(), p, p + size);
    views.push_back(std::move(view));
    return static_cast<int>(views.size()) - 1;
  }

  // Floats, `components` per element; min/max per component when asked (POSITION, times).
  int add_floats(const std::vector<float>& values, int components, const char* type, int target, bool bounds) {
    const std::size_t count = values.size() / static_cast<std::size_t>(components);
    const int view = add_view(values.data(), values.size() * sizeof(float), target);
    json accessor = {{"bufferView", view}, {"componentType", kFloat}, {"count", count}, {"type", type}};
    if (bounds) {
      json minimum = json::array(), maximum = json::array();
      for (int c = 0; c < components; ++c) {
        float lo = values[static_cast<std::size_t>(c)], hi = lo;
        for (std::size_t i = 0; i < count; ++i) {
          lo = std::min(lo, values[i * components + c]);
          hi = std::max(hi, values[i * components + c]);
        }
        minimum.push_back(static_cast<double>(lo));
        maximum.push_back(static_cast<double>(hi));
      }
      accessor["min"] = std::move(minimum);
      accessor["max"] = std::move(maximum);
    }
    return push(std::move(accessor));
  }

  template <typename T>
  int add_integers(const std::vector<T>& values, int component_type, std::size_t count, const char* type, int target) {
    const int view = add_view(values.data(), values.size() * sizeof(T), target);
    return push({{"bufferView", view}, {"componentType", component_type}, {"count", count}, {"type", type}});
  }

 private:
  int push(json accessor) {
    accessors.push_back(std::move(accessor));
    return static_cast<int>(accessors.size()) - 1;
  }
};

std::vector<float> flatten(const std::vector<Vec3f>& vectors, std::size_t first, std::size_t count) {
  std::vector<float> out;
  out.reserve(count * 3);
  for (std::size_t i = first; i < first + count; ++i)
    out.insert(out.end(), {vectors[i].x(), vectors[i].y(), vectors[i].z()});
  return out;
}

json float_array(std::initializer_list<float> values) {
  json out = json::array();
  for (float v : values) out.push_back(static_cast<double>(v));
  return out;
}

// Weights of one vertex in float, made to sum to one the way the Khronos validator checks it
// (float32 accumulation in slot order, tolerance 2e-7 per non-zero weight): the largest weight
// absorbs the rounding.
void make_weights_sum_to_one(float* weights, std::size_t width) {
  std::size_t largest = 0;
  for (std::size_t k = 1; k < width; ++k)
    if (weights[k] > weights[largest]) largest = k;
  for (int iteration = 0; iteration < 4; ++iteration) {
    float sum = 0.0f;
    for (std::size_t k = 0; k < width; ++k)
      if (weights[k] != 0.0f) sum = sum + weights[k];
    if (sum == 1.0f) return;
    weights[largest] = weights[largest] + (1.0f - sum);
  }
}

class GltfWriter {
 public:
  GltfWriter(const fs::path& path, const Character& character, const BakedFrames* baked, std::size_t clip_index)
      : path_(path), character_(character), baked_(baked), clip_index_(clip_index) {}

  json build() {
    check_input();
    time_offset_ = compute_time_offset();
    write_nodes();
    write_skin();
    write_mesh();
    write_materials();
    write_animations();

    json gltf;
    gltf["asset"] = {{"version", "2.0"}, {"generator", "wobble"}};
    gltf["scene"] = 0;
    gltf["scenes"] = json::array({{{"nodes", scene_nodes_}}});
    gltf["nodes"] = nodes_;
    if (!meshes_.empty()) gltf["meshes"] = meshes_;
    if (!skins_.empty()) gltf["skins"] = skins_;
    if (!animations_.empty()) gltf["animations"] = animations_;
    if (!materials_.empty()) gltf["materials"] = materials_;
    if (!textures_.empty()) gltf["textures"] = textures_;
    if (!images_.empty()) gltf["images"] = images_;
    if (!buffer_.accessors.empty()) gltf["accessors"] = buffer_.accessors;
    if (!buffer_.views.empty()) gltf["bufferViews"] = buffer_.views;
    while (buffer_.data.size() % 4 != 0) buffer_.data.push_back(0);
    return gltf;
  }

  std::vector<std::uint8_t>& binary() { return buffer_.data; }
  const Diagnostics& diagnostics() const { return diagnostics_; }

 private:
  void check_input() {
    const Mesh& mesh = character_.mesh;
    const std::size_t n = mesh.vertex_count();
    const bool skinned = character_.is_skinned();
    if (skinned && character_.skin.vertex_count() != n)
      fail(path_, "cannot write: the skin has {} vertices, the mesh {}", character_.skin.vertex_count(), n);
    if (!baked_) return;
    if (!character_.clips.empty() && clip_index_ >= character_.clips.size())
      fail(path_, "cannot write: clip {} does not exist ({} clips)", clip_index_, character_.clips.size());
    if (baked_->times.empty()) fail(path_, "cannot write: the baked animation has no frames");
    if (baked_->positions.size() != baked_->times.size())
      fail(path_, "cannot write: {} baked frames for {} times", baked_->positions.size(), baked_->times.size());
    if (skinned && baked_->skinning.size() != baked_->times.size())
      fail(path_, "cannot write: {} baked poses for {} times", baked_->skinning.size(), baked_->times.size());
    for (std::size_t k = 0; k < baked_->times.size(); ++k) {
      if (!std::isfinite(baked_->times[k]) || (k > 0 && !(baked_->times[k] > baked_->times[k - 1])))
        fail(path_, "cannot write: baked frame times do not increase at frame {}", k);
      if (baked_->positions[k].size() != n)
        fail(path_, "cannot write: baked frame {} has {} positions for {} vertices", k, baked_->positions[k].size(), n);
      if (skinned && baked_->skinning[k].size() != character_.rig.joint_count())
        fail(path_, "cannot write: baked frame {} has {} skinning matrices for {} joints", k,
             baked_->skinning[k].size(), character_.rig.joint_count());
      for (std::size_t v = 0; v < n; ++v)
        if (!baked_->positions[k][v].allFinite())
          fail(path_, "cannot write: baked frame {} vertex {} is not finite", k, v);
    }
  }

  // glTF forbids negative key times: written clips (and the baked frames with them) are shifted
  // together by the same offset when any is negative.
  float compute_time_offset() const {
    float start = 0.0f;
    if (baked_) {
      start = std::min(start, baked_->times.front());
      if (clip_index_ < character_.clips.size())
        for (const auto& channel : character_.clips[clip_index_].channels)
          if (!channel.times.empty()) start = std::min(start, channel.times.front());
    } else {
      for (const auto& clip : character_.clips)
        for (const auto& channel : clip.channels)
          if (!channel.times.empty()) start = std::min(start, channel.times.front());
    }
    return -start;
  }

  // ---------------------------------------------------------------- nodes and skin

  void write_nodes() {
    const Rig& rig = character_.rig;
    const auto children = rig.children();
    for (std::size_t j = 0; j < rig.joint_count(); ++j) {
      json node;
      node["name"] = rig.names[j];
      const Transform& rest = rig.rest_local[j];
      if (rest.translation != Vec3f::Zero())
        node["translation"] = float_array({rest.translation.x(), rest.translation.y(), rest.translation.z()});
      Quatf rotation = rest.rotation.normalized();
      if (rotation.coeffs() != Quatf::Identity().coeffs())
        node["rotation"] = float_array({rotation.x(), rotation.y(), rotation.z(), rotation.w()});
      if (rest.scale != Vec3f::Ones()) node["scale"] = float_array({rest.scale.x(), rest.scale.y(), rest.scale.z()});
      if (!children[j].empty()) node["children"] = children[j];
      nodes_.push_back(std::move(node));
    }

    // Joints of the skin: the skinned ones and any joint carrying weight.
    skin_slot_.assign(rig.joint_count(), -1);
    if (character_.is_skinned()) {
      std::vector<bool> used(rig.joint_count(), false);
      for (std::size_t j = 0; j < rig.joint_count(); ++j) used[j] = rig.skinned[j];
      for (std::uint32_t j : character_.skin.joints) used[j] = true;
      for (std::size_t j = 0; j < rig.joint_count(); ++j)
        if (used[j]) {
          skin_slot_[j] = static_cast<int>(skin_joints_.size());
          skin_joints_.push_back(static_cast<int>(j));
        }
    }

    // The validator needs a common root for the skin's joints: if they hang under several rig
    // roots, one extra root node holds them all.
    std::vector<int> roots;
    for (std::size_t j = 0; j < rig.joint_count(); ++j)
      if (rig.parents[j] < 0) roots.push_back(static_cast<int>(j));
    std::vector<int> skin_roots;
    for (int j : skin_joints_) {
      int r = j;
      while (rig.parents[static_cast<std::size_t>(r)] >= 0) r = rig.parents[static_cast<std::size_t>(r)];
      if (std::find(skin_roots.begin(), skin_roots.end(), r) == skin_roots.end()) skin_roots.push_back(r);
    }
    if (skin_roots.size() > 1) {
      nodes_.push_back({{"name", "wobble_root"}, {"children", roots}});
      scene_nodes_.push_back(static_cast<int>(nodes_.size()) - 1);
    } else {
      for (int r : roots) scene_nodes_.push_back(r);
    }
  }

  void write_skin() {
    if (skin_joints_.empty()) return;
    std::vector<float> matrices;
    matrices.reserve(skin_joints_.size() * 16);
    for (int j : skin_joints_) {
      Mat4f m = character_.rig.inverse_bind[static_cast<std::size_t>(j)];
      m.row(3) = Eigen::RowVector4f(0.0f, 0.0f, 0.0f, 1.0f);     // exactly, as glTF requires
      matrices.insert(matrices.end(), m.data(), m.data() + 16);  // column-major, as glTF stores it
    }
    const int accessor = buffer_.add_floats(matrices, 16, "MAT4", 0, false);
    skins_.push_back({{"joints", skin_joints_}, {"inverseBindMatrices", accessor}});
  }

  // ---------------------------------------------------------------- mesh

  struct Range {
    std::uint32_t first_vertex, vertex_count, first_triangle, triangle_count;
    int material;
    std::string name;
  };

  // The primitives to write: the recorded ones when they partition the mesh consistently,
  // otherwise the whole mesh as one primitive.
  std::vector<Range> primitive_ranges() const {
    const Mesh& mesh = character_.mesh;
    std::vector<Range> ranges;
    bool consistent = !mesh.primitives.empty();
    std::uint32_t next_vertex = 0, next_triangle = 0;
    for (const auto& p : mesh.primitives) {
      if (p.first_vertex != next_vertex || p.first_triangle != next_triangle) consistent = false;
      next_vertex = p.first_vertex + p.vertex_count;
      next_triangle = p.first_triangle + p.triangle_count;
      if (!consistent) break;
      for (std::uint32_t t = p.first_triangle; t < p.first_triangle + p.triangle_count; ++t)
        for (std::uint32_t v : mesh.triangles[t])
          if (v < p.first_vertex || v >= p.first_vertex + p.vertex_count) consistent = false;
      const int material =
          p.material >= 0 && static_cast<std::size_t>(p.material) < mesh.materials.size() ? p.material : -1;
      ranges.push_back({p.first_vertex, p.vertex_count, p.first_triangle, p.triangle_count, material, p.name});
    }
    if (!consistent || next_vertex != mesh.vertex_count() || next_triangle != mesh.triangle_count()) {
      ranges.clear();
      const int material = mesh.primitives.size() == 1 ? mesh.primitives[0].material : -1;
      ranges.push_back({0, static_cast<std::uint32_t>(mesh.vertex_count()), 0,
                        static_cast<std::uint32_t>(mesh.triangle_count()),
                        material >= 0 && static_cast<std::size_t>(material) < mesh.materials.size() ? material : -1,
                        mesh.primitives.empty() ? std::string() : mesh.primitives[0].name});
    }
    // Empty primitives cannot be written (accessors need at least one element).
    ranges.erase(std::remove_if(ranges.begin(), ranges.end(),
                                [](const Range& r) { return r.vertex_count == 0 || r.triangle_count == 0; }),
                 ranges.end());
    return ranges;
  }

  // Skin columns: `width` slots per vertex (a multiple of 4), weights summing to one exactly.
  struct SkinSlots {
    std::size_t width = 0;
    std::vector<std::uint16_t> joints;  // skin slot of each joint
    std::vector<float> weights;
  };

  void write_mesh() {
    const Mesh& mesh = character_.mesh;
    if (mesh.vertex_count() == 0 || mesh.triangle_count() == 0) return;
    const bool skinned = !skin_joints_.empty();
    const SkinSlots slots = skinned ? skin_slots() : SkinSlots{};
    std::vector<std::vector<Vec3f>> targets;  // [frame][vertex] bind-space deltas
    if (baked_) targets = bind_space_deltas();
    json primitives = json::array();
    for (const Range& range : primitive_ranges()) primitives.push_back(write_primitive(range, slots, targets));

    json gltf_mesh;
    const std::string name =
        mesh.primitives.empty() || mesh.primitives[0].name.empty() ? "mesh" : mesh.primitives[0].name;
    gltf_mesh["name"] = name;
    gltf_mesh["primitives"] = std::move(primitives);
    if (!targets.empty()) gltf_mesh["weights"] = std::vector<double>(targets.size(), 0.0);
    meshes_.push_back(std::move(gltf_mesh));

    // The mesh node sits at the scene root without a transform, as glTF asks of skinned meshes.
    json node = {{"name", name}, {"mesh", 0}};
    if (skinned) node["skin"] = 0;
    nodes_.push_back(std::move(node));
    mesh_node_ = static_cast<int>(nodes_.size()) - 1;
    scene_nodes_.insert(scene_nodes_.begin(), mesh_node_);
  }

  // Each vertex's influences in its slots, the largest absorbing the rounding of the sum.
  SkinSlots skin_slots() const {
    const std::size_t n = character_.mesh.vertex_count();
    SkinSlots slots;
    slots.width = (std::max<std::size_t>(1, character_.skin.max_influences()) + 3) / 4 * 4;
    slots.joints.assign(n * slots.width, 0);
    slots.weights.assign(n * slots.width, 0.0f);
    for (std::size_t v = 0; v < n; ++v) {
      const auto joints = character_.skin.joints_of(v);
      const auto weights = character_.skin.weights_of(v);
      double sum = 0.0;
      for (float w : weights) sum += w;
      std::uint16_t* joint_row = &slots.joints[v * slots.width];
      float* weight_row = &slots.weights[v * slots.width];
      for (std::size_t k = 0; k < joints.size(); ++k) {
        joint_row[k] = static_cast<std::uint16_t>(skin_slot_[joints[k]]);
        weight_row[k] = sum > 0.0 ? static_cast<float>(weights[k] / sum) : 0.0f;
      }
      if (joints.empty() || !(sum > 0.0)) {  // cannot happen after Skin::normalize; stay valid anyway
        joint_row[0] = 0;
        weight_row[0] = 1.0f;
      }
      make_weights_sum_to_one(weight_row, slots.width);
    }
    return slots;
  }

  json write_primitive(const Range& range, const SkinSlots& slots, const std::vector<std::vector<Vec3f>>& targets) {
    const Mesh& mesh = character_.mesh;
    const std::size_t first = range.first_vertex, count = range.vertex_count;
    json attributes;
    attributes["POSITION"] = buffer_.add_floats(flatten(mesh.positions, first, count), 3, "VEC3", kArrayBuffer, true);
    if (mesh.normals.size() == mesh.vertex_count()) attributes["NORMAL"] = write_normals(first, count);
    if (mesh.uvs.size() == mesh.vertex_count()) attributes["TEXCOORD_0"] = write_uvs(first, count);
    for (std::size_t set = 0; set < slots.width / 4; ++set) write_influence_set(slots, set, first, count, attributes);
    write_scalars(first, count, attributes);

    json primitive;
    primitive["attributes"] = std::move(attributes);
    primitive["indices"] = write_indices(range);
    if (range.material >= 0) primitive["material"] = range.material;
    if (!targets.empty()) {
      json target_list = json::array();
      for (const auto& frame : targets)
        target_list.push_back(
            {{"POSITION", buffer_.add_floats(flatten(frame, first, count), 3, "VEC3", kArrayBuffer, true)}});
      primitive["targets"] = std::move(target_list);
    }
    return primitive;
  }

  // Unit normals (a zero or non-finite one written as +Y: the validator wants unit length).
  int write_normals(std::size_t first, std::size_t count) {
    const auto& normals = character_.mesh.normals;
    std::vector<Vec3f> unit(normals.begin() + static_cast<std::ptrdiff_t>(first),
                            normals.begin() + static_cast<std::ptrdiff_t>(first + count));
    for (auto& normal : unit) {
      const float length = normal.norm();
      normal = std::isfinite(length) && length > 1e-20f ? Vec3f(normal / length) : Vec3f::UnitY();
    }
    return buffer_.add_floats(flatten(unit, 0, count), 3, "VEC3", kArrayBuffer, false);
  }

  int write_uvs(std::size_t first, std::size_t count) {
    std::vector<float> uvs;
    uvs.reserve(count * 2);
    for (std::size_t v = first; v < first + count; ++v)
      uvs.insert(uvs.end(), {character_.mesh.uvs[v].x(), character_.mesh.uvs[v].y()});
    return buffer_.add_floats(uvs, 2, "VEC2", kArrayBuffer, false);
  }

  // JOINTS_set / WEIGHTS_set: unsigned byte joints unless the skin has more than 256 joints.
  void write_influence_set(const SkinSlots& slots, std::size_t set, std::size_t first, std::size_t count,
                           json& attributes) {
    std::vector<float> weights;
    std::vector<std::uint16_t> joints16;
    std::vector<std::uint8_t> joints8;
    for (std::size_t v = first; v < first + count; ++v)
      for (std::size_t c = 0; c < 4; ++c) {
        const std::size_t slot = v * slots.width + set * 4 + c;
        weights.push_back(slots.weights[slot]);
        joints16.push_back(slots.joints[slot]);
        joints8.push_back(static_cast<std::uint8_t>(slots.joints[slot]));
      }
    const std::string suffix = std::to_string(set);
    attributes["JOINTS_" + suffix] = skin_joints_.size() > 256
                                         ? buffer_.add_integers(joints16, kUnsignedShort, count, "VEC4", kArrayBuffer)
                                         : buffer_.add_integers(joints8, kUnsignedByte, count, "VEC4", kArrayBuffer);
    attributes["WEIGHTS_" + suffix] = buffer_.add_floats(weights, 4, "VEC4", kArrayBuffer, false);
  }

  void write_scalars(std::size_t first, std::size_t count, json& attributes) {
    for (const auto& [name, values] : character_.mesh.vertex_scalars) {
      if (values.size() != character_.mesh.vertex_count() || name.empty()) continue;
      const std::string semantic = name[0] == '_' ? name : "_" + name;  // glTF: custom attributes start with '_'
      std::vector<float> column(values.begin() + static_cast<std::ptrdiff_t>(first),
                                values.begin() + static_cast<std::ptrdiff_t>(first + count));
      attributes[semantic] = buffer_.add_floats(column, 1, "SCALAR", kArrayBuffer, false);
    }
  }

  int write_indices(const Range& range) {
    const auto& triangles = character_.mesh.triangles;
    const std::size_t count = static_cast<std::size_t>(range.triangle_count) * 3;
    // 65535 is the primitive restart value of unsigned short indices: never used as an index.
    if (range.vertex_count < 65535) {
      std::vector<std::uint16_t> indices;
      indices.reserve(count);
      for (std::uint32_t t = range.first_triangle; t < range.first_triangle + range.triangle_count; ++t)
        for (std::uint32_t v : triangles[t]) indices.push_back(static_cast<std::uint16_t>(v - range.first_vertex));
      return buffer_.add_integers(indices, kUnsignedShort, count, "SCALAR", kElementArrayBuffer);
    }
    std::vector<std::uint32_t> indices;
    indices.reserve(count);
    for (std::uint32_t t = range.first_triangle; t < range.first_triangle + range.triangle_count; ++t)
      for (std::uint32_t v : triangles[t]) indices.push_back(v - range.first_vertex);
    return buffer_.add_integers(indices, kUnsignedInt, count, "SCALAR", kElementArrayBuffer);
  }

  // Baked frames as bind-space offsets: b_i = (sum_j w_ij S_j(t_k))^-1 p_i(t_k), delta = b_i - rest_i.
  // A viewer morphs by delta_k, then skins with the same clip, and so reproduces p_i(t_k).
  std::vector<std::vector<Vec3f>> bind_space_deltas() {
    const Mesh& mesh = character_.mesh;
    const std::size_t n = mesh.vertex_count();
    const bool skinned = character_.is_skinned();
    std::vector<std::vector<Vec3f>> deltas(baked_->times.size(), std::vector<Vec3f>(n, Vec3f::Zero()));
    std::size_t singular = 0;
    for (std::size_t k = 0; k < baked_->times.size(); ++k) {
      std::vector<Eigen::Matrix4d> skinning;
      if (skinned)
        for (const Mat4f& m : baked_->skinning[k]) skinning.push_back(m.cast<double>());
      for (std::size_t v = 0; v < n; ++v) {
        const Eigen::Vector3d p = baked_->positions[k][v].cast<double>();
        Eigen::Vector3d bind = p;
        if (skinned) {
          Eigen::Matrix4d blended = Eigen::Matrix4d::Zero();
          const auto joints = character_.skin.joints_of(v);
          const auto weights = character_.skin.weights_of(v);
          for (std::size_t i = 0; i < joints.size(); ++i)
            blended += static_cast<double>(weights[i]) * skinning[joints[i]];
          const Eigen::Matrix3d linear = blended.topLeftCorner<3, 3>();
          const double scale = linear.norm();
          const double determinant = linear.determinant();
          if (!(std::abs(determinant) > 1e-12 * scale * scale * scale) || !std::isfinite(determinant)) {
            ++singular;
            continue;  // rest position: delta 0
          }
          bind = linear.inverse() * (p - blended.topRightCorner<3, 1>());
        }
        const Vec3f delta = (bind - mesh.positions[v].cast<double>()).cast<float>();
        deltas[k][v] = delta.allFinite() ? delta : Vec3f::Zero();
      }
    }
    if (singular > 0)
      diagnostics_.repair("baked_singular_skinning",
                          "vertices whose blended skinning matrix is singular kept their rest position in the "
                          "morph targets",
                          singular);
    return deltas;
  }

  // ---------------------------------------------------------------- materials

  void write_materials() {
    const Mesh& mesh = character_.mesh;
    if (meshes_.empty()) return;
    std::vector<int> texture_of_image(mesh.images.size(), -1);
    for (std::size_t i = 0; i < mesh.images.size(); ++i) {
      const Image& image = mesh.images[i];
      std::string mime = image_mime_type(image.encoded);
      if (mime.empty()) {
        diagnostics_.repair("image_skipped", "images that are neither PNG nor JPEG were not written");
        continue;
      }
      json entry = {{"bufferView", buffer_.add_view(image.encoded.data(), image.encoded.size(), 0)},
                    {"mimeType", mime}};
      if (!image.name.empty()) entry["name"] = image.name;
      images_.push_back(std::move(entry));
      textures_.push_back({{"source", static_cast<int>(images_.size()) - 1}});
      texture_of_image[i] = static_cast<int>(textures_.size()) - 1;
    }
    for (const Material& material : mesh.materials) {
      json pbr;
      pbr["baseColorFactor"] = float_array(
          {material.base_color.x(), material.base_color.y(), material.base_color.z(), material.base_color.w()});
      pbr["metallicFactor"] = static_cast<double>(material.metallic);
      pbr["roughnessFactor"] = static_cast<double>(material.roughness);
      if (material.base_color_image >= 0 && static_cast<std::size_t>(material.base_color_image) < mesh.images.size() &&
          texture_of_image[static_cast<std::size_t>(material.base_color_image)] >= 0)
        pbr["baseColorTexture"] = {{"index", texture_of_image[static_cast<std::size_t>(material.base_color_image)]}};
      json entry;
      if (!material.name.empty()) entry["name"] = material.name;
      entry["pbrMetallicRoughness"] = std::move(pbr);
      if (material.double_sided) entry["doubleSided"] = true;
      materials_.push_back(std::move(entry));
    }
  }

  // ---------------------------------------------------------------- animations

  // Adds the channels of one clip to `animation` (samplers and channels arrays).
  void add_clip_channels(const Clip& clip, json& animation) {
    std::map<std::vector<float>, int> time_accessors;  // channels keyed at the same times share one
    std::vector<std::pair<std::uint32_t, ChannelPath>> seen;
    for (const Channel& channel : clip.channels) {
      if (channel.times.empty() || channel.joint >= character_.rig.joint_count()) continue;
      const auto target = std::make_pair(channel.joint, channel.path);
      if (std::find(seen.begin(), seen.end(), target) != seen.end()) continue;  // glTF forbids duplicates
      seen.push_back(target);

      Interpolation interpolation = channel.interpolation;
      const int components = channel.components();
      std::vector<float> values = channel.values;
      if (interpolation == Interpolation::CubicSpline && channel.times.size() < 2) {
        // glTF needs two keys for CUBICSPLINE; one key is a constant: keep its value.
        interpolation = Interpolation::Linear;
        values.assign(channel.values.begin() + components, channel.values.begin() + 2 * components);
      }
      if (channel.path == ChannelPath::Rotation) {
        // Unit quaternions (the validator checks the values, not the cubic tangents).
        const std::size_t stride = interpolation == Interpolation::CubicSpline ? 3 : 1;
        const std::size_t offset = interpolation == Interpolation::CubicSpline ? 1 : 0;
        for (std::size_t key = 0; key < channel.times.size(); ++key) {
          float* q = &values[(key * stride + offset) * 4];
          const double norm =
              std::sqrt(double(q[0]) * q[0] + double(q[1]) * q[1] + double(q[2]) * q[2] + double(q[3]) * q[3]);
          if (norm > 0.0 && std::isfinite(norm)) {
            for (int c = 0; c < 4; ++c) q[c] = static_cast<float>(q[c] / norm);
          } else {
            q[0] = q[1] = q[2] = 0.0f;
            q[3] = 1.0f;
          }
        }
      }

      std::vector<float> times = channel.times;
      for (float& t : times) t += time_offset_;
      auto it = time_accessors.find(times);
      if (it == time_accessors.end())
        it = time_accessors.emplace(times, buffer_.add_floats(times, 1, "SCALAR", 0, true)).first;
      const int output = buffer_.add_floats(values, components, components == 4 ? "VEC4" : "VEC3", 0, false);
      const char* path = channel.path == ChannelPath::Translation ? "translation"
                         : channel.path == ChannelPath::Rotation  ? "rotation"
                                                                  : "scale";
      const char* mode = interpolation == Interpolation::Step          ? "STEP"
                         : interpolation == Interpolation::CubicSpline ? "CUBICSPLINE"
                                                                       : "LINEAR";
      animation["samplers"].push_back({{"input", it->second}, {"output", output}, {"interpolation", mode}});
      animation["channels"].push_back({{"sampler", static_cast<int>(animation["samplers"].size()) - 1},
                                       {"target", {{"node", static_cast<int>(channel.joint)}, {"path", path}}}});
    }
  }

  void write_animations() {
    if (!baked_) {
      for (const Clip& clip : character_.clips) {
        json animation = {{"name", clip.name}, {"samplers", json::array()}, {"channels", json::array()}};
        add_clip_channels(clip, animation);
        if (!animation["channels"].empty()) animations_.push_back(std::move(animation));
      }
      return;
    }
    const Clip* clip = clip_index_ < character_.clips.size() ? &character_.clips[clip_index_] : nullptr;
    json animation = {
        {"name", clip ? clip->name : std::string("baked")}, {"samplers", json::array()}, {"channels", json::array()}};
    if (clip) add_clip_channels(*clip, animation);
    if (mesh_node_ >= 0) {
      // Target k has weight 1 at frame k and 0 elsewhere; LINEAR blends neighbouring frames.
      const std::size_t frames = baked_->times.size();
      std::vector<float> times = baked_->times;
      for (float& t : times) t += time_offset_;
      std::vector<float> weights(frames * frames, 0.0f);
      for (std::size_t k = 0; k < frames; ++k) weights[k * frames + k] = 1.0f;
      const int input = buffer_.add_floats(times, 1, "SCALAR", 0, true);
      const int output = buffer_.add_floats(weights, 1, "SCALAR", 0, false);
      animation["samplers"].push_back({{"input", input}, {"output", output}, {"interpolation", "LINEAR"}});
      animation["channels"].push_back({{"sampler", static_cast<int>(animation["samplers"].size()) - 1},
                                       {"target", {{"node", mesh_node_}, {"path", "weights"}}}});
    }
    if (!animation["channels"].empty()) animations_.push_back(std::move(animation));
  }

  const fs::path& path_;
  const Character& character_;
  const BakedFrames* baked_;
  std::size_t clip_index_;
  Diagnostics diagnostics_;
  float time_offset_ = 0.0f;

  BufferBuilder buffer_;
  json nodes_ = json::array(), meshes_ = json::array(), skins_ = json::array(), animations_ = json::array(),
       materials_ = json::array(), textures_ = json::array(), images_ = json::array();
  std::vector<int> scene_nodes_;
  std::vector<int> skin_slot_;    // rig joint -> index in the skin, or -1
  std::vector<int> skin_joints_;  // skin index -> rig joint (= node index)
  int mesh_node_ = -1;
};

void append_u32(std::string& out, std::uint32_t value) {
  for (int i = 0; i < 4; ++i) out += static_cast<char>((value >> (8 * i)) & 0xFF);
}

}  // namespace

void write_gltf(const std::filesystem::path& path, const Character& character, const BakedFrames* baked,
                std::size_t clip_index) {
  std::string extension = path.extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  if (extension != ".glb" && extension != ".gltf")
    fail(path, "cannot write: unknown glTF extension '{}' (use .gltf or .glb)", extension);
  const bool binary = extension == ".glb";

  GltfWriter writer(path, character, baked, clip_index);
  json gltf = writer.build();
  std::vector<std::uint8_t>& data = writer.binary();

  std::string bytes;
  if (binary) {
    if (!data.empty()) gltf["buffers"] = json::array({{{"byteLength", data.size()}}});
    std::string text = gltf.dump();
    while (text.size() % 4 != 0) text += ' ';
    const std::size_t total = 12 + 8 + text.size() + (data.empty() ? 0 : 8 + data.size());
    if (total > 0xFFFFFFFFull) fail(path, "cannot write: the GLB would exceed 4 GiB");
    bytes.reserve(total);
    bytes += "glTF";
    append_u32(bytes, 2);
    append_u32(bytes, static_cast<std::uint32_t>(total));
    append_u32(bytes, static_cast<std::uint32_t>(text.size()));
    append_u32(bytes, 0x4E4F534A);  // "JSON"
    bytes += text;
    if (!data.empty()) {
      append_u32(bytes, static_cast<std::uint32_t>(data.size()));
      append_u32(bytes, 0x004E4942);  // "BIN\0"
      bytes.append(reinterpret_cast<const char*>(data.data()), data.size());
    }
  } else {
    if (!data.empty())
      gltf["buffers"] =
          json::array({{{"byteLength", data.size()}, {"uri", "data:application/octet-stream;base64," + base64(data)}}});
    bytes = gltf.dump(1);
    bytes += '\n';
  }

  write_output(path, bytes);
  if (!writer.diagnostics().empty()) writer.diagnostics().log_warnings(path.string());
}

}  // namespace wobble
