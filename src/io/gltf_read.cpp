// glTF 2.0 reader (.gltf and .glb) on top of tinygltf: mesh, rig, skin, clips and materials of one
// skinned character (or a static mesh), with the repairs described in io.hpp and
// docs/architecture.md recorded in Character::diagnostics.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <new>
#include <optional>
#include <queue>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <tiny_gltf.h>

#include <wobble/error.hpp>
#include <wobble/io/files.hpp>
#include <wobble/io/read_limits.hpp>

#include "core/fail.hpp"
#include "core/json_values.hpp"
#include "glb_preflight.hpp"
#include "gltf_external_files.hpp"
#include "gltf_morph_animation.hpp"
#include "image_mime_type.hpp"

namespace wobble {
namespace {

namespace fs = std::filesystem;

// tinygltf's messages end lines with '\n' and may hold several lines: make them one line.
std::string one_line(const std::string& text) {
  std::string out;
  bool pending_separator = false;
  for (char c : text) {
    if (c == '\n' || c == '\r') {
      pending_separator = !out.empty();
      continue;
    }
    if (pending_separator) {
      out += "; ";
      pending_separator = false;
    }
    out += c;
  }
  return out;
}

// Keeps images encoded: wobble stores the file's bytes and never decodes pixels. Images held in a
// bufferView are copied later with bounds checks (tinygltf does not check the view's length).
bool keep_encoded_image(tinygltf::Image* image, const int, std::string*, std::string*, int, int,
                        const unsigned char* bytes, int size, void*) {
  image->as_is = true;
  if (image->bufferView >= 0) return true;
  if (bytes && size > 0) image->image.assign(bytes, bytes + size);
  return true;
}

class GltfReader {
 public:
  // `morphs`: also read the morph-target animation of the file's morphed mesh node into it.
  GltfReader(const fs::path& path, const tinygltf::Model& model, Character& character, ReadBudget& budget,
             MorphTargetAnimation* morphs)
      : path_(path),
        model_(model),
        character_(character),
        diagnostics_(character.diagnostics),
        budget_(budget),
        morphs_(morphs) {}

  void read() {
    check_required_extensions();
    build_node_parents();
    check_scene_indices();
    const int skinned_node = find_skinned_mesh_node();
    if (skinned_node >= 0) {
      read_skinned(skinned_node);
    } else {
      read_static();
    }
    read_materials();
    if (morphs_) read_morph_animation();
  }

 private:
  // ---------------------------------------------------------------- accessors

  // Reads an accessor as doubles (count * components), honouring byteStride, normalized integer
  // types (glTF 2.0 section 3.11 conversion) and sparse substitution. Every byte range is checked
  // against its buffer view and buffer, and the decoded size against the read budget, before
  // anything is allocated.
  std::vector<double> read_accessor(int index, const std::string& what, int* components_out = nullptr,
                                    std::size_t* count_out = nullptr) const {
    if (index < 0 || static_cast<std::size_t>(index) >= model_.accessors.size())
      fail(path_, "{}: accessor {} does not exist ({} accessors)", what, index, model_.accessors.size());
    const tinygltf::Accessor& accessor = model_.accessors[static_cast<std::size_t>(index)];
    const int components = tinygltf::GetNumComponentsInType(static_cast<std::uint32_t>(accessor.type));
    const int component_size = tinygltf::GetComponentSizeInBytes(static_cast<std::uint32_t>(accessor.componentType));
    if (components <= 0 || component_size <= 0)
      fail(path_, "{}: accessor {} has an invalid type or component type", what, index);
    const std::size_t count = accessor.count;
    const std::size_t element_size = static_cast<std::size_t>(components) * component_size;
    const std::string label = fmt::format("{}: accessor {}", what, index);
    const StridedBytes data = accessor_bytes(accessor, label, element_size);
    const SparseRanges sparse = sparse_ranges(accessor, label, count, element_size);
    budget_.charge(count, static_cast<std::uint64_t>(components) * sizeof(double), label);
    std::vector<double> values(count * static_cast<std::size_t>(components), 0.0);
    const auto decode_element = [&](const unsigned char* element, std::size_t i) {
      for (int c = 0; c < components; ++c)
        values[i * components + c] = decode(accessor, element + static_cast<std::size_t>(c) * component_size, label);
    };
    if (data.base)
      for (std::size_t i = 0; i < count; ++i) decode_element(data.base + i * data.stride, i);
    for (std::size_t s = 0; s < sparse.count; ++s) {
      const std::uint32_t target = sparse_index(sparse, s);
      if (target >= count) fail(path_, "{} sparse index {} is out of range ({} elements)", label, target, count);
      decode_element(sparse.values + s * element_size, target);
    }
    if (components_out) *components_out = components;
    if (count_out) *count_out = count;
    return values;
  }

  struct StridedBytes {
    const unsigned char* base = nullptr;  // null: no buffer view (zeros, or sparse values only)
    std::size_t stride = 0;
  };

  // The accessor's elements in its buffer view, every byte of them checked to lie in the view and
  // its buffer (byteOffset + stride * (count - 1) + element_size, without overflow).
  StridedBytes accessor_bytes(const tinygltf::Accessor& accessor, const std::string& label,
                              std::size_t element_size) const {
    const std::size_t count = accessor.count;
    StridedBytes data{nullptr, element_size};
    if (accessor.bufferView < 0 || count == 0) return data;
    if (static_cast<std::size_t>(accessor.bufferView) >= model_.bufferViews.size())
      fail(path_, "{} refers to missing bufferView {}", label, accessor.bufferView);
    const auto& view = model_.bufferViews[static_cast<std::size_t>(accessor.bufferView)];
    if (view.byteStride != 0 && view.byteStride < element_size)
      fail(path_, "{} has byteStride {} smaller than its element ({} bytes)", label, view.byteStride, element_size);
    if (view.byteStride != 0) data.stride = view.byteStride;
    const std::size_t most = std::numeric_limits<std::size_t>::max();
    if (accessor.byteOffset > most - element_size ||
        count - 1 > (most - element_size - accessor.byteOffset) / data.stride)
      fail(path_, "{}: {} elements of {} bytes cannot fit in any buffer", label, count, data.stride);
    const std::size_t span = accessor.byteOffset + data.stride * (count - 1) + element_size;
    data.base = view_bytes(label, accessor.bufferView, accessor.byteOffset, span - accessor.byteOffset, "data");
    return data;
  }

  // One component as a double: normalized integers by glTF 2.0's section 3.11 conversion.
  double decode(const tinygltf::Accessor& accessor, const unsigned char* p, const std::string& label) const {
    const bool normalized = accessor.normalized;
    switch (accessor.componentType) {
      case TINYGLTF_COMPONENT_TYPE_BYTE: return integer<std::int8_t>(p, normalized);
      case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE: return integer<std::uint8_t>(p, normalized);
      case TINYGLTF_COMPONENT_TYPE_SHORT: return integer<std::int16_t>(p, normalized);
      case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: return integer<std::uint16_t>(p, normalized);
      case TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT: return load<std::uint32_t>(p);
      case TINYGLTF_COMPONENT_TYPE_FLOAT: return load<float>(p);
      default: fail(path_, "{} has unsupported component type {}", label, accessor.componentType);
    }
  }

  // An integer component; normalized, c / (2^b - 1) for unsigned and max(c / (2^(b-1) - 1), -1)
  // for signed types of b bits.
  template <typename T>
  static double integer(const unsigned char* p, bool normalized) {
    const double v = load<T>(p);
    return normalized ? std::max(v / std::numeric_limits<T>::max(), -1.0) : v;
  }

  template <typename T>
  static T load(const unsigned char* p) {
    T v;
    std::memcpy(&v, p, sizeof(T));
    return v;
  }

  // The bytes [offset, offset + length) of a buffer view, checked against the view and its buffer.
  const unsigned char* view_bytes(const std::string& label, int view_index, std::size_t offset, std::size_t length,
                                  const char* role) const {
    if (view_index < 0 || static_cast<std::size_t>(view_index) >= model_.bufferViews.size())
      fail(path_, "{} {} refers to missing bufferView {}", label, role, view_index);
    const tinygltf::BufferView& view = model_.bufferViews[static_cast<std::size_t>(view_index)];
    if (view.buffer < 0 || static_cast<std::size_t>(view.buffer) >= model_.buffers.size())
      fail(path_, "{}: bufferView {} refers to missing buffer {}", label, view_index, view.buffer);
    const tinygltf::Buffer& buffer = model_.buffers[static_cast<std::size_t>(view.buffer)];
    if (view.byteOffset > buffer.data.size() || view.byteLength > buffer.data.size() - view.byteOffset)
      fail(path_, "{}: bufferView {} (bytes {} to {}) lies outside buffer {} ({} bytes)", label, view_index,
           view.byteOffset, static_cast<double>(view.byteOffset) + static_cast<double>(view.byteLength), view.buffer,
           buffer.data.size());
    if (offset > view.byteLength || length > view.byteLength - offset)
      fail(path_, "{} {} reads past the end of bufferView {} ({} + {} > {} bytes)", label, role, view_index, offset,
           length, view.byteLength);
    return buffer.data.data() + view.byteOffset + offset;
  }

  struct SparseRanges {
    std::size_t count = 0;
    int index_size = 0;
    const unsigned char* indices = nullptr;
    const unsigned char* values = nullptr;
  };

  // The checked index and value ranges of a sparse accessor (count 0 when not sparse).
  SparseRanges sparse_ranges(const tinygltf::Accessor& accessor, const std::string& label, std::size_t count,
                             std::size_t element_size) const {
    SparseRanges ranges;
    if (!accessor.sparse.isSparse) return ranges;
    const auto& sparse = accessor.sparse;
    if (sparse.count < 0 || static_cast<std::size_t>(sparse.count) > count)
      fail(path_, "{} has sparse count {} for {} elements", label, sparse.count, count);
    ranges.index_size = tinygltf::GetComponentSizeInBytes(static_cast<std::uint32_t>(sparse.indices.componentType));
    if (ranges.index_size != 1 && ranges.index_size != 2 && ranges.index_size != 4)
      fail(path_, "{} has sparse indices of an invalid component type", label);
    ranges.count = static_cast<std::size_t>(sparse.count);
    if (ranges.count == 0) return ranges;
    if (sparse.indices.byteOffset < 0 || sparse.values.byteOffset < 0)
      fail(path_, "{} has a negative sparse byteOffset", label);
    ranges.indices = view_bytes(label, sparse.indices.bufferView, static_cast<std::size_t>(sparse.indices.byteOffset),
                                ranges.count * static_cast<std::size_t>(ranges.index_size), "sparse indices");
    ranges.values = view_bytes(label, sparse.values.bufferView, static_cast<std::size_t>(sparse.values.byteOffset),
                               ranges.count * element_size, "sparse values");
    return ranges;
  }

  static std::uint32_t sparse_index(const SparseRanges& sparse, std::size_t s) {
    if (sparse.index_size == 1) return sparse.indices[s];
    if (sparse.index_size == 2) return load<std::uint16_t>(sparse.indices + 2 * s);
    return load<std::uint32_t>(sparse.indices + 4 * s);
  }

  // An accessor that must have `components` components per element; returns its element count.
  std::vector<double> read_elements(int index, int components, const std::string& what, std::size_t& count) const {
    int actual = 0;
    auto values = read_accessor(index, what, &actual, &count);
    if (actual != components)
      fail(path_, "{}: accessor {} has {} components per element, expected {}", what, index, actual, components);
    return values;
  }

  // ---------------------------------------------------------------- nodes

  void check_required_extensions() const {
    for (const auto& extension : model_.extensionsRequired) {
      if (extension == "KHR_draco_mesh_compression" || extension == "EXT_meshopt_compression")
        fail(path_, "requires extension {}, which wobble does not support (decompress the file first)", extension);
    }
  }

  std::string node_name(int node) const {
    const auto& name = model_.nodes[static_cast<std::size_t>(node)].name;
    return name.empty() ? "node_" + std::to_string(node) : name;
  }

  // Parent of every node; errors for out-of-range children, a node with two parents and cycles.
  void build_node_parents() {
    const std::size_t n = model_.nodes.size();
    parents_.assign(n, -1);
    for (std::size_t i = 0; i < n; ++i) {
      for (int child : model_.nodes[i].children) {
        if (child < 0 || static_cast<std::size_t>(child) >= n)
          fail(path_, "node {} ('{}') has child index {} out of range ({} nodes)", i, node_name(static_cast<int>(i)),
               child, n);
        if (static_cast<std::size_t>(child) == i)
          fail(path_, "parent cycle: node {} ('{}') is its own child", i, node_name(static_cast<int>(i)));
        if (parents_[static_cast<std::size_t>(child)] >= 0)
          fail(path_, "node {} ('{}') has two parents (nodes {} and {})", child, node_name(child),
               parents_[static_cast<std::size_t>(child)], i);
        parents_[static_cast<std::size_t>(child)] = static_cast<int>(i);
      }
    }
    // With one parent per node, a node that does not reach a root within n steps is on a cycle.
    for (std::size_t i = 0; i < n; ++i) {
      int node = static_cast<int>(i);
      std::size_t steps = 0;
      while (node >= 0 && steps <= n) {
        node = parents_[static_cast<std::size_t>(node)];
        ++steps;
      }
      if (node >= 0)
        fail(path_, "parent cycle in the node hierarchy through node {} ('{}')", i, node_name(static_cast<int>(i)));
    }
  }

  // wobble reads every node whatever the scenes list, but a scene's index into the nodes (or the
  // default scene's into the scenes) that points nowhere is an error all the same.
  void check_scene_indices() const {
    if (model_.defaultScene >= 0 && static_cast<std::size_t>(model_.defaultScene) >= model_.scenes.size())
      fail(path_, "scene: scene {} does not exist ({} scenes)", model_.defaultScene, model_.scenes.size());
    for (std::size_t s = 0; s < model_.scenes.size(); ++s)
      for (std::size_t k = 0; k < model_.scenes[s].nodes.size(); ++k) {
        const int node = model_.scenes[s].nodes[k];
        if (node < 0 || static_cast<std::size_t>(node) >= model_.nodes.size())
          fail(path_, "scenes[{}].nodes[{}]: node {} does not exist ({} nodes)", s, k, node, model_.nodes.size());
      }
  }

  Transform node_local(int node_index) const {
    const tinygltf::Node& node = model_.nodes[static_cast<std::size_t>(node_index)];
    if (node.matrix.size() == 16) {
      Mat4f m;
      for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 4; ++r) m(r, c) = static_cast<float>(node.matrix[static_cast<std::size_t>(c * 4 + r)]);
      if (!m.allFinite()) fail(path_, "node {} ('{}') has a non-finite matrix", node_index, node_name(node_index));
      return Transform::from_matrix(m);
    }
    Transform t;
    if (node.translation.size() == 3)
      t.translation = Vec3f(static_cast<float>(node.translation[0]), static_cast<float>(node.translation[1]),
                            static_cast<float>(node.translation[2]));
    if (node.rotation.size() == 4) {
      Eigen::Quaterniond q(node.rotation[3], node.rotation[0], node.rotation[1], node.rotation[2]);
      const double norm = q.norm();
      if (!(norm > 1e-12) || !std::isfinite(norm)) {
        diagnostics_.repair("node_rotation_invalid",
                            fmt::format("node {} ('{}') has a zero or non-finite rotation; identity used", node_index,
                                        node_name(node_index)));
        q = Eigen::Quaterniond::Identity();
      } else {
        q.coeffs() /= norm;
      }
      t.rotation = q.cast<float>();
    }
    if (node.scale.size() == 3)
      t.scale = Vec3f(static_cast<float>(node.scale[0]), static_cast<float>(node.scale[1]),
                      static_cast<float>(node.scale[2]));
    if (!t.translation.allFinite() || !t.scale.allFinite())
      fail(path_, "node {} ('{}') has a non-finite transform", node_index, node_name(node_index));
    return t;
  }

  // The rest world transform of every node, each computed once from its parent's (a long chain
  // of nodes costs linear time, not quadratic).
  std::vector<Eigen::Matrix4d> node_worlds() const {
    const std::size_t n = model_.nodes.size();
    std::vector<Eigen::Matrix4d> world(n);
    std::vector<bool> known(n, false);
    std::vector<int> chain;
    for (std::size_t i = 0; i < n; ++i) {
      for (int node = static_cast<int>(i); node >= 0 && !known[static_cast<std::size_t>(node)];
           node = parents_[static_cast<std::size_t>(node)])
        chain.push_back(node);
      while (!chain.empty()) {
        const auto node = static_cast<std::size_t>(chain.back());
        chain.pop_back();
        const Eigen::Matrix4d local = node_local(static_cast<int>(node)).matrix().cast<double>();
        world[node] =
            parents_[node] >= 0 ? Eigen::Matrix4d(world[static_cast<std::size_t>(parents_[node])] * local) : local;
        known[node] = true;
      }
    }
    return world;
  }

  int find_skinned_mesh_node() const {
    for (std::size_t i = 0; i < model_.nodes.size(); ++i) {
      const auto& node = model_.nodes[i];
      if (node.mesh < 0 || node.skin < 0) continue;
      check_mesh_index(static_cast<int>(i));
      if (static_cast<std::size_t>(node.skin) >= model_.skins.size())
        fail(path_, "node {} ('{}') refers to skin {} out of range ({} skins)", i, node_name(static_cast<int>(i)),
             node.skin, model_.skins.size());
      return static_cast<int>(i);
    }
    return -1;
  }

  void check_mesh_index(int node) const {
    const int mesh = model_.nodes[static_cast<std::size_t>(node)].mesh;
    if (static_cast<std::size_t>(mesh) >= model_.meshes.size())
      fail(path_, "node {} ('{}') refers to mesh {} out of range ({} meshes)", node, node_name(node), mesh,
           model_.meshes.size());
  }

  // ---------------------------------------------------------------- skinned characters

  void read_skinned(int skinned_node) {
    const int skin_index = model_.nodes[static_cast<std::size_t>(skinned_node)].skin;
    const tinygltf::Skin& skin = model_.skins[static_cast<std::size_t>(skin_index)];
    build_rig(skin, skin_index);

    // Meshes of every node using this skin, in node order. The skinned node's own transform is
    // ignored, as glTF 2.0 specifies: skinned vertices are placed by the joints alone.
    std::size_t skipped_other = 0;
    for (std::size_t i = 0; i < model_.nodes.size(); ++i) {
      const auto& node = model_.nodes[i];
      if (node.mesh < 0) continue;
      check_mesh_index(static_cast<int>(i));
      if (node.skin != skin_index) {
        ++skipped_other;
        continue;
      }
      read_mesh(static_cast<int>(i), nullptr, true);
    }
    if (skipped_other > 0)
      diagnostics_.repair(
          "meshes_skipped",
          fmt::format("mesh nodes that do not use skin {} (the first skinned mesh's) were skipped", skin_index),
          skipped_other);
    finish_mesh();

    // Skin::normalize makes the weight repairs (sums off by more than 1e-3, all-zero rows bound
    // to the fallback joint) and rescales every row to sum to one.
    character_.skin.normalize(character_.rig.joint_count(), fallback_joint_, diagnostics_, path_);
    read_clips();
  }

  void build_rig(const tinygltf::Skin& skin, int skin_index) {
    if (skin.joints.empty()) fail(path_, "skin {} has no joints", skin_index);
    const std::vector<int> skin_slot = skin_slots(skin, skin_index);
    add_rig_joints(skin, skin_slot, inverse_binds(skin, skin_index));
    choose_fallback_joint(skin, skin_index, skin_slot);
  }

  // Node -> index in skin.joints (-1: not a joint of the skin); out-of-range and repeated joints fail.
  std::vector<int> skin_slots(const tinygltf::Skin& skin, int skin_index) const {
    const std::size_t n = model_.nodes.size();
    std::vector<int> skin_slot(n, -1);
    for (std::size_t k = 0; k < skin.joints.size(); ++k) {
      const int node = skin.joints[k];
      if (node < 0 || static_cast<std::size_t>(node) >= n)
        fail(path_, "skin {} joint {} refers to node {} out of range ({} nodes)", skin_index, k, node, n);
      if (skin_slot[static_cast<std::size_t>(node)] >= 0)
        fail(path_, "skin {} lists node {} ('{}') twice (joints {} and {})", skin_index, node, node_name(node),
             skin_slot[static_cast<std::size_t>(node)], k);
      skin_slot[static_cast<std::size_t>(node)] = static_cast<int>(k);
    }
    return skin_slot;
  }

  // The skin's inverse bind matrices (identity without them); a last row that is not exactly
  // (0,0,0,1) is repaired with a diagnostic.
  std::vector<Mat4f> inverse_binds(const tinygltf::Skin& skin, int skin_index) {
    std::vector<Mat4f> inverse_binds(skin.joints.size(), Mat4f::Identity());
    if (skin.inverseBindMatrices < 0) return inverse_binds;
    std::size_t count = 0;
    const auto values =
        read_elements(skin.inverseBindMatrices, 16, fmt::format("skin {} inverseBindMatrices", skin_index), count);
    if (count < skin.joints.size())
      fail(path_, "skin {} has {} inverse bind matrices for {} joints", skin_index, count, skin.joints.size());
    std::size_t repaired = 0;
    double worst = 0.0;
    for (std::size_t k = 0; k < skin.joints.size(); ++k) {
      Mat4f& m = inverse_binds[k];
      for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 4; ++r) m(r, c) = static_cast<float>(values[k * 16 + static_cast<std::size_t>(c * 4 + r)]);
      if (!m.allFinite())
        fail(path_, "skin {} inverse bind matrix {} (node '{}') is not finite", skin_index, k,
             node_name(skin.joints[k]));
      const Eigen::RowVector4f last = m.row(3);
      if (last != Eigen::RowVector4f(0.0f, 0.0f, 0.0f, 1.0f)) {
        worst = std::max(worst, static_cast<double>((last - Eigen::RowVector4f(0, 0, 0, 1)).cwiseAbs().maxCoeff()));
        m.row(3) = Eigen::RowVector4f(0.0f, 0.0f, 0.0f, 1.0f);
        ++repaired;
      }
    }
    if (repaired > 0)
      diagnostics_.repair("inverse_bind_last_row",
                          fmt::format("inverse bind matrices whose last row was not exactly (0,0,0,1) (off by up "
                                      "to {:.3g}) were set to (0,0,0,1)",
                                      worst),
                          repaired);
    return inverse_binds;
  }

  // The rig: the joints and every ancestor of a joint (helpers), parents first, otherwise in
  // file order (Kahn's algorithm, smallest node index first).
  void add_rig_joints(const tinygltf::Skin& skin, const std::vector<int>& skin_slot,
                      const std::vector<Mat4f>& inverse_binds) {
    const std::size_t n = model_.nodes.size();
    std::vector<bool> in_rig(n, false);
    for (int node : skin.joints)
      for (int a = node; a >= 0 && !in_rig[static_cast<std::size_t>(a)]; a = parents_[static_cast<std::size_t>(a)])
        in_rig[static_cast<std::size_t>(a)] = true;
    std::vector<std::vector<int>> children(n);
    std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
    for (std::size_t i = 0; i < n; ++i) {
      if (!in_rig[i]) continue;
      if (parents_[i] >= 0)
        children[static_cast<std::size_t>(parents_[i])].push_back(static_cast<int>(i));
      else
        ready.push(static_cast<int>(i));
    }
    Rig& rig = character_.rig;
    node_to_joint_.assign(n, -1);
    while (!ready.empty()) {
      const int node = ready.top();
      ready.pop();
      const int parent = parents_[static_cast<std::size_t>(node)];
      const int parent_joint = parent >= 0 ? node_to_joint_[static_cast<std::size_t>(parent)] : -1;
      const int slot = skin_slot[static_cast<std::size_t>(node)];
      const Mat4f inverse_bind = slot >= 0 ? inverse_binds[static_cast<std::size_t>(slot)] : Mat4f::Identity();
      node_to_joint_[static_cast<std::size_t>(node)] =
          rig.add_joint(node_name(node), parent_joint, node_local(node), inverse_bind, slot >= 0);
      for (int child : children[static_cast<std::size_t>(node)]) ready.push(child);
    }
    skin_to_joint_.resize(skin.joints.size());
    for (std::size_t k = 0; k < skin.joints.size(); ++k)
      skin_to_joint_[k] = static_cast<std::uint32_t>(node_to_joint_[static_cast<std::size_t>(skin.joints[k])]);
  }

  // Vertices left without weight go to the skeleton root if it is a joint of the skin,
  // otherwise to the skinned joint nearest the root (first such in rig order).
  void choose_fallback_joint(const tinygltf::Skin& skin, int skin_index, const std::vector<int>& skin_slot) {
    const Rig& rig = character_.rig;
    fallback_joint_ = 0;
    int best_depth = std::numeric_limits<int>::max();
    std::vector<int> depth(rig.joint_count(), 0);  // parents come first: one pass
    for (std::size_t j = 0; j < rig.joint_count(); ++j) {
      if (rig.parents[j] >= 0) depth[j] = depth[static_cast<std::size_t>(rig.parents[j])] + 1;
      if (rig.skinned[j] && depth[j] < best_depth) {
        best_depth = depth[j];
        fallback_joint_ = static_cast<std::uint32_t>(j);
      }
    }
    const std::size_t n = model_.nodes.size();
    if (skin.skeleton >= 0 && static_cast<std::size_t>(skin.skeleton) >= n)
      fail(path_, "skin {} skeleton: node {} does not exist ({} nodes)", skin_index, skin.skeleton, n);
    if (skin.skeleton >= 0 && skin_slot[static_cast<std::size_t>(skin.skeleton)] >= 0)
      fallback_joint_ = static_cast<std::uint32_t>(node_to_joint_[static_cast<std::size_t>(skin.skeleton)]);
  }

  // ---------------------------------------------------------------- static meshes

  void read_static() {
    bool any_mesh = false;
    const std::vector<Eigen::Matrix4d> worlds = node_worlds();
    for (std::size_t i = 0; i < model_.nodes.size(); ++i) {
      if (model_.nodes[i].mesh < 0) continue;
      check_mesh_index(static_cast<int>(i));
      read_mesh(static_cast<int>(i), &worlds[i], false);
      any_mesh = true;
    }
    if (!any_mesh) fail(path_, "contains no mesh node");
    finish_mesh();
    if (!model_.animations.empty())
      diagnostics_.repair("animations_ignored",
                          "the file has no skin, so its node animations were ignored (static mesh)",
                          model_.animations.size());
  }

  // ---------------------------------------------------------------- meshes

  struct PendingScalars {
    std::uint32_t first_vertex, vertex_count;
    std::map<std::string, std::vector<float>> values;
  };

  // Appends the triangle primitives of a node's mesh. `world` (static meshes) transforms positions
  // and normals; skinned meshes are read in bind space as stored.
  void read_mesh(int node, const Eigen::Matrix4d* world, bool skinned) {
    const int mesh_index = model_.nodes[static_cast<std::size_t>(node)].mesh;
    const tinygltf::Mesh& mesh = model_.meshes[static_cast<std::size_t>(mesh_index)];
    for (std::size_t p = 0; p < mesh.primitives.size(); ++p) read_primitive(node, mesh_index, p, world, skinned);
  }

  // One primitive of a mesh: its vertices, their attributes, its triangles and its record, or a
  // repair when it draws points or lines or has no vertices.
  void read_primitive(int node, int mesh_index, std::size_t p, const Eigen::Matrix4d* world, bool skinned) {
    const tinygltf::Mesh& mesh = model_.meshes[static_cast<std::size_t>(mesh_index)];
    const tinygltf::Primitive& primitive = mesh.primitives[p];
    const std::string where = fmt::format("mesh {} primitive {}", mesh_index, p);
    const int mode = primitive.mode < 0 ? TINYGLTF_MODE_TRIANGLES : primitive.mode;
    if (mode != TINYGLTF_MODE_TRIANGLES && mode != TINYGLTF_MODE_TRIANGLE_STRIP && mode != TINYGLTF_MODE_TRIANGLE_FAN) {
      diagnostics_.repair("primitive_skipped", fmt::format("{} draws points or lines (mode {}); skipped", where, mode));
      return;
    }
    const int position_accessor = attribute_of(primitive, "POSITION");
    if (position_accessor < 0) fail(path_, "{} has no POSITION attribute", where);
    const std::uint32_t first = static_cast<std::uint32_t>(character_.mesh.positions.size());
    const std::size_t n = read_positions(position_accessor, where, world);
    if (n == 0) {
      diagnostics_.repair("primitive_skipped", fmt::format("{} has no vertices; skipped", where));
      return;
    }
    if (morphs_ && !primitive.targets.empty()) read_morph_targets(primitive, where, node, first, n, world);
    read_normals(attribute_of(primitive, "NORMAL"), where, first, n, world);
    read_uvs(attribute_of(primitive, "TEXCOORD_0"), where, first, n);
    read_scalars(primitive, where, first, n);
    const std::uint32_t first_triangle = static_cast<std::uint32_t>(character_.mesh.triangles.size());
    add_triangles(mode, triangle_indices(primitive, where, n), where, first);
    if (skinned) read_influences(primitive, where, n);
    add_primitive_record(mesh, mesh_index, p, where, first, n, first_triangle);
  }

  static int attribute_of(const tinygltf::Primitive& primitive, const std::string& name) {
    const auto it = primitive.attributes.find(name);
    return it == primitive.attributes.end() ? -1 : it->second;
  }

  // Appends the POSITION elements (through `world` for static meshes); returns their count.
  std::size_t read_positions(int accessor, const std::string& where, const Eigen::Matrix4d* world) {
    std::size_t n = 0;
    const auto positions = read_elements(accessor, 3, where + " POSITION", n);
    Mesh& out = character_.mesh;
    if (out.positions.size() + n > std::numeric_limits<std::uint32_t>::max())
      fail(path_, "{}: too many vertices", where);
    for (std::size_t v = 0; v < n; ++v) {
      Eigen::Vector3d x(positions[3 * v], positions[3 * v + 1], positions[3 * v + 2]);
      if (!x.allFinite()) fail(path_, "{}: vertex {} has a non-finite position", where, v);
      if (world) x = (*world * x.homogeneous()).head<3>();
      out.positions.push_back(x.cast<float>());
    }
    return n;
  }

  // Normals: unit length; missing or invalid ones are computed from the triangles after merging
  // (finish_mesh).
  void read_normals(int accessor, const std::string& where, std::uint32_t first, std::size_t n,
                    const Eigen::Matrix4d* world) {
    if (accessor < 0) {
      for (std::size_t v = 0; v < n; ++v) {
        invalid_normals_.push_back(first + static_cast<std::uint32_t>(v));
        normals_.push_back(Vec3f::UnitY());
      }
      missing_normal_primitives_++;
      missing_normal_vertices_ += n;
      return;
    }
    Eigen::Matrix3d normal_matrix = Eigen::Matrix3d::Identity();
    if (world) normal_matrix = world->topLeftCorner<3, 3>().inverse().transpose();
    std::size_t count = 0;
    const auto normals = read_elements(accessor, 3, where + " NORMAL", count);
    if (count != n) fail(path_, "{}: NORMAL has {} elements for {} vertices", where, count, n);
    for (std::size_t v = 0; v < n; ++v) {
      Eigen::Vector3d normal = normal_matrix * Eigen::Vector3d(normals[3 * v], normals[3 * v + 1], normals[3 * v + 2]);
      const double length = normal.norm();
      if (!std::isfinite(length) || length < 1e-12) {
        invalid_normals_.push_back(first + static_cast<std::uint32_t>(v));
        normal = Eigen::Vector3d::UnitY();
      } else {
        normal /= length;
      }
      normals_.push_back(normal.cast<float>());
    }
  }

  // TEXCOORD_0; primitives without it get (0, 0) once any primitive has uvs.
  void read_uvs(int accessor, const std::string& where, std::uint32_t first, std::size_t n) {
    if (accessor < 0) {
      if (any_uvs_) uvs_.resize(first + n, Vec2f::Zero());
      return;
    }
    std::size_t count = 0;
    const auto uvs = read_elements(accessor, 2, where + " TEXCOORD_0", count);
    if (count != n) fail(path_, "{}: TEXCOORD_0 has {} elements for {} vertices", where, count, n);
    uvs_.resize(first, Vec2f::Zero());
    for (std::size_t v = 0; v < n; ++v) {
      Vec2f uv(static_cast<float>(uvs[2 * v]), static_cast<float>(uvs[2 * v + 1]));
      if (!uv.allFinite()) {
        diagnostics_.repair("uv_invalid", fmt::format("{}: vertex {} has a non-finite uv; set to 0", where, v));
        uv.setZero();
      }
      uvs_.push_back(uv);
    }
    any_uvs_ = true;
  }

  // Custom per-vertex scalars ("_NAME" SCALAR attributes), merged over primitives in finish_mesh.
  void read_scalars(const tinygltf::Primitive& primitive, const std::string& where, std::uint32_t first,
                    std::size_t n) {
    PendingScalars scalars{first, static_cast<std::uint32_t>(n), {}};
    for (const auto& [name, accessor_index] : primitive.attributes) {
      if (name.empty() || name[0] != '_') continue;
      if (accessor_index < 0 || static_cast<std::size_t>(accessor_index) >= model_.accessors.size()) continue;
      if (model_.accessors[static_cast<std::size_t>(accessor_index)].type != TINYGLTF_TYPE_SCALAR) continue;
      std::size_t count = 0;
      const auto values = read_elements(accessor_index, 1, where + " " + name, count);
      if (count != n) fail(path_, "{}: {} has {} elements for {} vertices", where, name, count, n);
      auto& column = scalars.values[name];
      column.reserve(n);
      for (double value : values) {
        if (!std::isfinite(value)) fail(path_, "{}: {} holds a non-finite value", where, name);
        column.push_back(static_cast<float>(value));
      }
      scalar_names_.insert(name);
    }
    pending_scalars_.push_back(std::move(scalars));
  }

  // The primitive's vertex indices (0..n-1 when it has none), each checked against its n vertices.
  std::vector<std::uint32_t> triangle_indices(const tinygltf::Primitive& primitive, const std::string& where,
                                              std::size_t n) const {
    std::vector<std::uint32_t> indices;
    if (primitive.indices < 0) {
      indices.resize(n);
      for (std::size_t k = 0; k < n; ++k) indices[k] = static_cast<std::uint32_t>(k);
      return indices;
    }
    std::size_t count = 0;
    const auto raw = read_elements(primitive.indices, 1, where + " indices", count);
    indices.reserve(count);
    for (std::size_t k = 0; k < count; ++k) {
      if (raw[k] < 0 || raw[k] >= static_cast<double>(n))
        fail(path_, "{}: index {} refers to vertex {} out of range ({} vertices)", where, k, raw[k], n);
      indices.push_back(static_cast<std::uint32_t>(raw[k]));
    }
    return indices;
  }

  // Triangles of a list, strip or fan, never welded or reordered.
  void add_triangles(int mode, const std::vector<std::uint32_t>& indices, const std::string& where,
                     std::uint32_t first) {
    auto add = [&](std::uint32_t a, std::uint32_t b, std::uint32_t c) {
      character_.mesh.triangles.push_back({first + a, first + b, first + c});
    };
    if (mode == TINYGLTF_MODE_TRIANGLES) {
      if (indices.size() % 3 != 0)
        diagnostics_.repair("indices_incomplete",
                            fmt::format("{}: {} indices is not a multiple of 3; the last {} ignored", where,
                                        indices.size(), indices.size() % 3));
      for (std::size_t k = 0; k + 2 < indices.size(); k += 3) add(indices[k], indices[k + 1], indices[k + 2]);
    } else if (mode == TINYGLTF_MODE_TRIANGLE_STRIP) {
      // glTF 2.0: triangle i is (v_i, v_{i+1+i%2}, v_{i+2-i%2}); stitching (degenerate)
      // triangles are dropped.
      for (std::size_t k = 0; k + 2 < indices.size(); ++k) {
        const std::uint32_t a = indices[k], b = indices[k + 1 + k % 2], c = indices[k + 2 - k % 2];
        if (a != b && b != c && a != c) add(a, b, c);
      }
    } else {
      // Fan: triangle i is (v_{i+1}, v_{i+2}, v_0).
      for (std::size_t k = 1; k + 1 < indices.size(); ++k) add(indices[k], indices[k + 1], indices[0]);
    }
  }

  void add_primitive_record(const tinygltf::Mesh& mesh, int mesh_index, std::size_t p, const std::string& where,
                            std::uint32_t first, std::size_t n, std::uint32_t first_triangle) {
    Primitive record;
    record.name = mesh.name;
    record.source_mesh = mesh_index;
    record.source_primitive = static_cast<int>(p);
    record.first_vertex = first;
    record.vertex_count = static_cast<std::uint32_t>(n);
    record.first_triangle = first_triangle;
    record.triangle_count = static_cast<std::uint32_t>(character_.mesh.triangles.size()) - first_triangle;
    record.material = mesh.primitives[p].material;
    if (record.material >= 0 && static_cast<std::size_t>(record.material) >= model_.materials.size()) {
      diagnostics_.repair("material_missing", fmt::format("{} refers to material {} out of range; no material used",
                                                          where, record.material));
      record.material = -1;
    }
    character_.mesh.primitives.push_back(record);
  }

  // Influences of all JOINTS_n / WEIGHTS_n sets of one primitive, appended to the skin.
  void read_influences(const tinygltf::Primitive& primitive, const std::string& where, std::size_t n) {
    std::vector<std::vector<Influence>> influences(n);
    for (int set = 0;; ++set) {
      const auto joints_it = primitive.attributes.find("JOINTS_" + std::to_string(set));
      const auto weights_it = primitive.attributes.find("WEIGHTS_" + std::to_string(set));
      if (joints_it == primitive.attributes.end() && weights_it == primitive.attributes.end()) break;
      if (joints_it == primitive.attributes.end() || weights_it == primitive.attributes.end()) {
        diagnostics_.repair(
            "influence_set_incomplete",
            fmt::format("{} has only one of JOINTS_{} and WEIGHTS_{}; that set ignored", where, set, set));
        continue;
      }
      std::size_t joint_count = 0, weight_count = 0;
      const auto joints = read_elements(joints_it->second, 4, where + " " + joints_it->first, joint_count);
      const auto weights = read_elements(weights_it->second, 4, where + " " + weights_it->first, weight_count);
      if (joint_count != n || weight_count != n)
        fail(path_, "{}: JOINTS_{}/WEIGHTS_{} have {}/{} elements for {} vertices", where, set, set, joint_count,
             weight_count, n);
      for (std::size_t v = 0; v < n; ++v) {
        for (int c = 0; c < 4; ++c) {
          const double joint = joints[4 * v + static_cast<std::size_t>(c)];
          const float weight = static_cast<float>(weights[4 * v + static_cast<std::size_t>(c)]);
          if (weight == 0.0f) continue;  // unused slot, whatever its joint index
          if (joint < 0 || joint >= static_cast<double>(skin_to_joint_.size()))
            fail(path_, "{}: vertex {} has joint index {} out of range (skin has {} joints)", where, v, joint,
                 skin_to_joint_.size());
          influences[v].push_back({skin_to_joint_[static_cast<std::size_t>(joint)], weight});
        }
      }
    }
    for (const auto& row : influences) character_.skin.add_vertex(row);
  }

  void finish_mesh() {
    Mesh& mesh = character_.mesh;
    const std::size_t n = mesh.positions.size();
    mesh.normals = std::move(normals_);
    if (!invalid_normals_.empty()) {
      Mesh computed;
      computed.positions = mesh.positions;
      computed.triangles = mesh.triangles;
      computed.compute_normals();
      for (std::uint32_t v : invalid_normals_) mesh.normals[v] = computed.normals[v];
      if (missing_normal_primitives_ > 0)
        diagnostics_.repair("normals_computed", "primitives without NORMAL got area-weighted normals",
                            missing_normal_primitives_);
      // Vertices whose given normal was zero or not finite (not those of primitives without NORMAL).
      const std::size_t bad_given = invalid_normals_.size() - missing_normal_vertices_;
      if (bad_given > 0)
        diagnostics_.repair("normals_invalid", "zero-length or non-finite normals were recomputed", bad_given);
    }
    if (any_uvs_) {
      uvs_.resize(n, Vec2f::Zero());
      mesh.uvs = std::move(uvs_);
    }
    for (const auto& name : scalar_names_) {
      // Primitives without the attribute get its documented default, 1.
      auto& column = mesh.vertex_scalars[name];
      column.assign(n, 1.0f);
      for (const auto& pending : pending_scalars_) {
        const auto it = pending.values.find(name);
        if (it == pending.values.end()) continue;
        std::copy(it->second.begin(), it->second.end(), column.begin() + pending.first_vertex);
      }
    }
  }

  // ---------------------------------------------------------------- clips

  // What read_clips dropped, merged or shifted, reported once as repairs.
  struct ClipRepairs {
    std::size_t outside_rig = 0, weights_channels = 0, untargeted = 0, duplicates = 0, merged = 0, negative_clips = 0;
    double most_negative = 0.0;
  };
  using ChannelTargets = std::set<std::pair<std::uint32_t, int>>;  // (joint, path) pairs of one animation

  void read_clips() {
    ClipRepairs repairs;
    // Unnamed animations that follow an unnamed one and animate disjoint targets are joined into
    // one clip: exporters such as COLLADA2GLTF write one animation per node of a single action
    // (RiggedFigure has 19 of them for one walk).
    bool previous_unnamed = false;
    ChannelTargets previous_targets;
    for (std::size_t a = 0; a < model_.animations.size(); ++a) {
      const tinygltf::Animation& animation = model_.animations[a];
      const std::string label = animation.name.empty() ? fmt::format("animation {}", a)
                                                       : fmt::format("animation {} ('{}')", a, animation.name);
      ChannelTargets targets;
      Clip clip = clip_of_animation(animation, a, label, targets, repairs);
      shift_to_start_at_zero(clip, label, repairs);
      const bool unnamed = animation.name.empty();
      bool merge = unnamed && previous_unnamed && !character_.clips.empty();
      for (const auto& target : targets) merge = merge && !previous_targets.count(target);
      if (merge) {
        auto& into = character_.clips.back();
        for (auto& channel : clip.channels) into.channels.push_back(std::move(channel));
        previous_targets.insert(targets.begin(), targets.end());
        ++repairs.merged;
      } else {
        character_.clips.push_back(std::move(clip));
        previous_targets = std::move(targets);
      }
      clip_of_animation_.push_back(character_.clips.size() - 1);
      previous_unnamed = unnamed;
    }
    report(repairs);
  }

  // The joint channels of one animation (the first of each joint and path); `targets` gets their
  // (joint, path) pairs.
  Clip clip_of_animation(const tinygltf::Animation& animation, std::size_t a, const std::string& label,
                         ChannelTargets& targets, ClipRepairs& repairs) const {
    Clip clip;
    clip.name = animation.name.empty() ? fmt::format("animation_{}", a) : animation.name;
    for (std::size_t c = 0; c < animation.channels.size(); ++c) {
      const tinygltf::AnimationChannel& channel = animation.channels[c];
      if (channel.sampler < 0 || static_cast<std::size_t>(channel.sampler) >= animation.samplers.size())
        fail(path_, "{} channel {}: sampler {} out of range ({} samplers)", label, c, channel.sampler,
             animation.samplers.size());
      if (channel.target_node < 0) {
        ++repairs.untargeted;
        continue;
      }
      if (static_cast<std::size_t>(channel.target_node) >= model_.nodes.size())
        fail(path_, "{} channel {}: target node {} out of range ({} nodes)", label, c, channel.target_node,
             model_.nodes.size());
      const std::optional<ChannelPath> path = channel_path(channel.target_path);
      if (!path) {
        if (!is_read_morph_channel(channel)) ++repairs.weights_channels;
        continue;
      }
      const int joint = node_to_joint_[static_cast<std::size_t>(channel.target_node)];
      if (joint < 0) {
        ++repairs.outside_rig;
        continue;
      }
      if (!targets.insert({static_cast<std::uint32_t>(joint), static_cast<int>(*path)}).second) {
        ++repairs.duplicates;
        continue;
      }
      clip.channels.push_back(read_channel(animation, channel, label, c, static_cast<std::uint32_t>(joint), *path));
    }
    return clip;
  }

  static std::optional<ChannelPath> channel_path(const std::string& target_path) {
    if (target_path == "translation") return ChannelPath::Translation;
    if (target_path == "rotation") return ChannelPath::Rotation;
    if (target_path == "scale") return ChannelPath::Scale;
    return std::nullopt;  // "weights" or an extension's path
  }

  // Negative key times. wipf.glb (an assimp export) keys animation "Dig" at k*0.04 s minus
  // 3.0109e-5 s on every channel, and two other clips start at -2.85e-3 s and -4.9e-3 s: a
  // constant offset of the whole action. Shifting the whole clip so its earliest key is at 0
  // keeps every key interval and the alignment between channels (clamping only the negative
  // keys would squeeze the first interval and could make two keys equal), and the motion is
  // unchanged apart from starting at t = 0 as glTF requires.
  void shift_to_start_at_zero(Clip& clip, const std::string& label, ClipRepairs& repairs) const {
    float start = std::numeric_limits<float>::infinity();
    for (const auto& channel : clip.channels)
      if (!channel.times.empty()) start = std::min(start, channel.times.front());
    if (!std::isfinite(start) || start >= 0.0f) return;
    for (auto& channel : clip.channels) {
      for (auto& t : channel.times) t -= start;
      for (std::size_t k = 1; k < channel.times.size(); ++k)
        if (!(channel.times[k] > channel.times[k - 1]))
          fail(path_, "{}: key times of joint '{}' are no longer increasing after shifting the clip to start at 0",
               label, character_.rig.names[channel.joint]);
    }
    ++repairs.negative_clips;
    repairs.most_negative = std::min(repairs.most_negative, static_cast<double>(start));
  }

  void report(const ClipRepairs& r) {
    if (r.outside_rig > 0)
      diagnostics_.repair("channels_outside_rig", "animation channels on nodes outside the skeleton were dropped",
                          r.outside_rig);
    if (r.weights_channels > 0)
      diagnostics_.repair("weights_channels_dropped", "morph target weight animation channels were dropped",
                          r.weights_channels);
    if (r.untargeted > 0)
      diagnostics_.repair("channels_untargeted", "animation channels without a target node were dropped", r.untargeted);
    if (r.duplicates > 0)
      diagnostics_.repair(
          "channels_duplicate",
          "animation channels repeating a joint and path of the same animation were dropped (first kept)",
          r.duplicates);
    if (r.merged > 0)
      diagnostics_.repair("animations_merged",
                          "unnamed animations with disjoint targets (one per node, as COLLADA2GLTF writes them) were "
                          "merged into one clip",
                          r.merged);
    if (r.negative_clips > 0)
      diagnostics_.repair("negative_key_times",
                          fmt::format("clips with negative key times (down to {:.6g} s) were shifted so that their "
                                      "earliest key is at 0",
                                      r.most_negative),
                          r.negative_clips);
  }

  // A sampler's input: at least one key, finite, increasing.
  std::vector<float> read_key_times(const tinygltf::AnimationSampler& sampler, const std::string& where) const {
    std::size_t keys = 0;
    const auto times = read_elements(sampler.input, 1, where + " input", keys);
    if (keys == 0) fail(path_, "{}: sampler has no keys", where);
    std::vector<float> out;
    out.reserve(keys);
    for (std::size_t k = 0; k < keys; ++k) {
      const float t = static_cast<float>(times[k]);
      if (!std::isfinite(t)) fail(path_, "{}: key time {} is not finite", where, k);
      if (k > 0 && !(t > out.back()))
        fail(path_, "{}: key times are not increasing at key {} ({} after {})", where, k, t, out.back());
      out.push_back(t);
    }
    return out;
  }

  Channel read_channel(const tinygltf::Animation& animation, const tinygltf::AnimationChannel& source,
                       const std::string& label, std::size_t c, std::uint32_t joint, ChannelPath path) const {
    const tinygltf::AnimationSampler& sampler = animation.samplers[static_cast<std::size_t>(source.sampler)];
    const std::string where = fmt::format("{} channel {}", label, c);
    Channel channel;
    channel.joint = joint;
    channel.path = path;
    if (sampler.interpolation == "STEP") {
      channel.interpolation = Interpolation::Step;
    } else if (sampler.interpolation == "CUBICSPLINE") {
      channel.interpolation = Interpolation::CubicSpline;
    } else {
      channel.interpolation = Interpolation::Linear;
    }
    channel.times = read_key_times(sampler, where);
    const std::size_t keys = channel.times.size();
    const int components = channel.components();
    const std::size_t per_key = channel.interpolation == Interpolation::CubicSpline ? 3 : 1;
    int actual = 0;
    std::size_t count = 0;
    const auto values = read_accessor(sampler.output, where + " output", &actual, &count);
    if (actual != components) fail(path_, "{}: output has {} components, expected {}", where, actual, components);
    if (count != keys * per_key)
      fail(path_, "{}: output has {} elements for {} keys ({} interpolation)", where, count, keys,
           sampler.interpolation.empty() ? "LINEAR" : sampler.interpolation);
    channel.values.reserve(values.size());
    for (double value : values) {
      if (!std::isfinite(value)) fail(path_, "{}: output holds a non-finite value", where);
      channel.values.push_back(static_cast<float>(value));
    }
    return channel;
  }

  // ---------------------------------------------------------------- morph-target animations

  // The POSITION offsets of one primitive's morph targets, at its vertices in morphs_->targets.
  void read_morph_targets(const tinygltf::Primitive& primitive, const std::string& where, int node, std::uint32_t first,
                          std::size_t n, const Eigen::Matrix4d* world) {
    auto& targets = morphs_->targets;
    if (morph_node_ >= 0 && morph_node_ != node)
      fail(path_, "nodes {} and {} both have morph targets: one morphed mesh node expected", morph_node_, node);
    if (morph_node_ >= 0 && targets.size() != primitive.targets.size())
      fail(path_, "{} has {} morph targets, an earlier primitive of its mesh {}", where, primitive.targets.size(),
           targets.size());
    morph_node_ = node;
    targets.resize(primitive.targets.size());
    for (std::size_t t = 0; t < targets.size(); ++t) {
      targets[t].resize(first + n, Vec3f::Zero());  // vertices of primitives without targets stay 0
      const auto it = primitive.targets[t].find("POSITION");
      if (it == primitive.targets[t].end()) continue;
      const std::string what = fmt::format("{} target {} POSITION", where, t);
      std::size_t count = 0;
      const auto offsets = read_elements(it->second, 3, what, count);
      if (count != n) fail(path_, "{}: {} elements for {} vertices", what, count, n);
      for (std::size_t v = 0; v < n; ++v) {
        Eigen::Vector3d offset(offsets[3 * v], offsets[3 * v + 1], offsets[3 * v + 2]);
        if (!offset.allFinite()) fail(path_, "{}: vertex {} is not finite", what, v);
        if (world) offset = world->topLeftCorner<3, 3>() * offset;
        targets[t][first + v] = offset.cast<float>();
      }
    }
  }

  bool is_read_morph_channel(const tinygltf::AnimationChannel& channel) const {
    return morphs_ && morph_node_ >= 0 && channel.target_node == morph_node_ && channel.target_path == "weights";
  }

  // The one animation channel of the morphed node's weights: its keys, and its weights per key.
  void read_morph_animation() {
    if (morph_node_ < 0)
      fail(path_,
           "has no morph targets (a morph-target bake, as `wobble bake IN --clip C -o bake.glb` writes, has "
           "one per frame)");
    std::vector<std::pair<std::size_t, std::size_t>> found;  // animation, channel
    for (std::size_t a = 0; a < model_.animations.size(); ++a)
      for (std::size_t c = 0; c < model_.animations[a].channels.size(); ++c)
        if (is_read_morph_channel(model_.animations[a].channels[c])) found.emplace_back(a, c);
    if (found.size() != 1)
      fail(path_, "{} animation channels drive the weights of the morphed node '{}': one expected", found.size(),
           node_name(morph_node_));
    const auto [a, c] = found.front();
    const tinygltf::Animation& animation = model_.animations[a];
    const std::string where = fmt::format("animation {} channel {} (weights)", a, c);
    const int sampler_index = animation.channels[c].sampler;
    if (sampler_index < 0 || static_cast<std::size_t>(sampler_index) >= animation.samplers.size())
      fail(path_, "{}: sampler {} out of range ({} samplers)", where, sampler_index, animation.samplers.size());
    const tinygltf::AnimationSampler& sampler = animation.samplers[static_cast<std::size_t>(sampler_index)];
    morphs_->times = read_key_times(sampler, where);
    read_morph_weights(sampler, where);
    if (!clip_of_animation_.empty()) morphs_->clip = clip_of_animation_[a];
    for (auto& target : morphs_->targets) target.resize(character_.mesh.vertex_count(), Vec3f::Zero());
  }

  // Weights per key (a cubic spline's values, between its tangents).
  void read_morph_weights(const tinygltf::AnimationSampler& sampler, const std::string& where) {
    const std::size_t keys = morphs_->times.size(), targets = morphs_->targets.size();
    const std::size_t per_key = sampler.interpolation == "CUBICSPLINE" ? 3 : 1, value_slot = per_key == 3 ? 1 : 0;
    int components = 0;
    std::size_t count = 0;
    const auto values = read_accessor(sampler.output, where + " output", &components, &count);
    if (components != 1 || count != keys * per_key * targets)
      fail(path_, "{}: output has {} elements of {} components for {} keys of {} targets", where, count, components,
           keys, targets);
    morphs_->weights.assign(keys, std::vector<float>(targets));
    for (std::size_t k = 0; k < keys; ++k) {
      for (std::size_t t = 0; t < targets; ++t) {
        const double weight = values[(k * per_key + value_slot) * targets + t];
        if (!std::isfinite(weight)) fail(path_, "{}: key {} target {} is not finite", where, k, t);
        morphs_->weights[k][t] = static_cast<float>(weight);
      }
    }
  }

  // ---------------------------------------------------------------- materials

  void read_materials() {
    Mesh& mesh = character_.mesh;
    std::vector<int> image_map(model_.images.size(), -2);  // -2: not yet imported
    for (std::size_t m = 0; m < model_.materials.size(); ++m) {
      const tinygltf::Material& source = model_.materials[m];
      Material material;
      material.name = source.name;
      const auto& pbr = source.pbrMetallicRoughness;
      if (pbr.baseColorFactor.size() == 4)
        material.base_color =
            Vec4f(static_cast<float>(pbr.baseColorFactor[0]), static_cast<float>(pbr.baseColorFactor[1]),
                  static_cast<float>(pbr.baseColorFactor[2]), static_cast<float>(pbr.baseColorFactor[3]));
      material.metallic = static_cast<float>(pbr.metallicFactor);
      material.roughness = static_cast<float>(pbr.roughnessFactor);
      material.double_sided = source.doubleSided;
      const int texture = pbr.baseColorTexture.index;
      if (texture >= 0) {
        if (static_cast<std::size_t>(texture) >= model_.textures.size()) {
          diagnostics_.repair("texture_missing",
                              fmt::format("material {} refers to texture {} out of range; ignored", m, texture));
        } else {
          const int source_image = model_.textures[static_cast<std::size_t>(texture)].source;
          if (source_image >= 0 && static_cast<std::size_t>(source_image) < model_.images.size()) {
            int& mapped = image_map[static_cast<std::size_t>(source_image)];
            if (mapped == -2) mapped = import_image(source_image);
            material.base_color_image = mapped;
          } else {
            diagnostics_.repair("texture_missing",
                                fmt::format("texture {} has no valid image source; ignored", texture));
          }
        }
      }
      mesh.materials.push_back(std::move(material));
    }
  }

  // Copies one image's encoded bytes into Mesh::images; returns its index or -1.
  int import_image(int index) {
    const tinygltf::Image& source = model_.images[static_cast<std::size_t>(index)];
    Image image;
    image.name = source.name;
    if (source.bufferView >= 0) {
      const std::string label = fmt::format("image {}", index);
      if (static_cast<std::size_t>(source.bufferView) >= model_.bufferViews.size())
        fail(path_, "{} refers to missing bufferView {}", label, source.bufferView);
      const std::size_t length = model_.bufferViews[static_cast<std::size_t>(source.bufferView)].byteLength;
      const unsigned char* bytes = view_bytes(label, source.bufferView, 0, length, "bytes");
      budget_.charge(length, label);
      image.encoded.assign(bytes, bytes + length);
    } else {
      image.encoded.assign(source.image.begin(), source.image.end());
    }
    if (image.encoded.empty()) {
      diagnostics_.repair("image_missing",
                          fmt::format("image {} ('{}') could not be read; its texture is ignored", index, source.uri));
      return -1;
    }
    image.mime_type = image_mime_type(image.encoded);
    if (image.mime_type.empty()) image.mime_type = source.mimeType;
    if (image.mime_type.empty())
      image.mime_type = image_mime_type_of_extension(fs::path(source.uri).extension().string());
    character_.mesh.images.push_back(std::move(image));
    return static_cast<int>(character_.mesh.images.size()) - 1;
  }

  const fs::path& path_;
  const tinygltf::Model& model_;
  Character& character_;
  Diagnostics& diagnostics_;
  ReadBudget& budget_;
  MorphTargetAnimation* morphs_;
  int morph_node_ = -1;                         // the node whose mesh has morph targets (morphs_ only)
  std::vector<std::size_t> clip_of_animation_;  // per glTF animation: its clip in character_.clips

  std::vector<int> parents_;                  // per node
  std::vector<int> node_to_joint_;            // per node: rig joint or -1
  std::vector<std::uint32_t> skin_to_joint_;  // per skin joint: rig joint
  std::uint32_t fallback_joint_ = 0;

  std::vector<Vec3f> normals_;
  std::vector<std::uint32_t> invalid_normals_;
  std::size_t missing_normal_primitives_ = 0, missing_normal_vertices_ = 0;
  std::vector<Vec2f> uvs_;
  bool any_uvs_ = false;
  std::set<std::string> scalar_names_;
  std::vector<PendingScalars> pending_scalars_;
};

bool has_glb_magic(const std::vector<std::uint8_t>& bytes) {
  return bytes.size() >= 4 && std::memcmp(bytes.data(), "glTF", 4) == 0;
}

Character read_gltf_file(const std::filesystem::path& path, MorphTargetAnimation* morphs) {
  const std::vector<std::uint8_t> bytes = read_regular_file(path, "a glTF file", 0xFFFFFFFFu);
  ReadBudget budget(path, bytes.size());
  GltfExternalFiles files(fs::absolute(path).parent_path(), budget);

  tinygltf::TinyGLTF loader;
  loader.SetImageLoader(&keep_encoded_image, nullptr);
  loader.SetFsCallbacks(files.callbacks());
  tinygltf::Model model;
  std::string error, warning;
  std::string extension = path.extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  const std::string folder = fs::absolute(path).parent_path().string();
  // Binary by magic; a .glb without the magic is truncated or mislabelled.
  bool ok = false;
  try {
    if (has_glb_magic(bytes)) {
      check_glb_before_tinygltf(path, bytes);
      ok = loader.LoadBinaryFromMemory(&model, &error, &warning, bytes.data(), static_cast<unsigned int>(bytes.size()),
                                       folder);
    } else {
      if (extension == ".glb") fail(path, "not a GLB file (no 'glTF' magic; truncated or not binary glTF)");
      ok = loader.LoadASCIIFromString(&model, &error, &warning, reinterpret_cast<const char*>(bytes.data()),
                                      static_cast<unsigned int>(bytes.size()), folder);
    }
  } catch (const Error&) {
    throw;
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& failure) {  // a check tinygltf lacks and check_glb_before_tinygltf does not know yet
    fail(path, "cannot read glTF: tinygltf stopped on an inconsistency it does not check ({})",
         one_line(failure.what()));
  }
  if (!files.refusal().empty()) fail(path, "{}", files.refusal());
  if (!ok) {
    const std::string reason = without_json_exception_prefix(one_line(error.empty() ? warning : error));
    fail(path, "cannot read glTF: {}", reason.empty() ? "unknown error" : reason);
  }

  Character character;
  character.source = path;
  GltfReader(path, model, character, budget, morphs).read();
  character.check();
  return character;
}

}  // namespace

Character read_gltf(const std::filesystem::path& path) { return read_gltf_file(path, nullptr); }

Character read_gltf_morph_animation(const std::filesystem::path& path, MorphTargetAnimation& animation) {
  animation = {};
  return read_gltf_file(path, &animation);
}

}  // namespace wobble
