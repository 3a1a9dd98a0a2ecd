// Dynamic Skinning's pair layout (dynamic_skinning_layout.hpp), in stages: the depth-first entry
// order of the joints, each vertex's main joint, and per chunk its kernel order, its pairs and
// their segments.
#include "deform/dynamic_skinning_layout.hpp"

#include <algorithm>

namespace wobble::dynamic_kernels {
namespace {

struct Pair {
  std::uint32_t joint;
  std::uint16_t vertex;  // position in the chunk's kernel order
  float beta, gamma;
};

// Each joint's entry time in a depth-first walk of the skeleton (roots in joint order, children
// in their order).
std::vector<int> depth_first_entry(const Rig& rig) {
  const std::size_t joint_count = rig.joint_count();
  std::vector<int> enter(joint_count, 0);
  const auto children = rig.children();
  int clock = 0;
  std::vector<int> stack;
  for (std::size_t r = joint_count; r-- > 0;)
    if (rig.parents[r] < 0) stack.push_back(static_cast<int>(r));
  while (!stack.empty()) {
    const int j = stack.back();
    stack.pop_back();
    enter[j] = clock++;
    for (auto c = children[j].rbegin(); c != children[j].rend(); ++c) stack.push_back(*c);
  }
  return enter;
}

// Each vertex's joint of largest weight (the first on a tie).
std::vector<int> main_joints(const Skin& skin, std::size_t vertex_count) {
  std::vector<int> main_joint(vertex_count, 0);
  for (std::size_t v = 0; v < vertex_count; ++v) {
    const auto joints = skin.joints_of(v);
    const auto weights = skin.weights_of(v);
    float best = -1;
    for (std::size_t k = 0; k < joints.size(); ++k)
      if (weights[k] > best) best = weights[k], main_joint[v] = static_cast<int>(joints[k]);
  }
  return main_joint;
}

// The kernel order of the chunk's vertices [first, last) (by their main joint's entry, stable)
// into layout.chunk_order; returns each vertex's slot in it.
std::vector<std::uint16_t> order_chunk(std::size_t first, std::size_t last, const std::vector<int>& enter,
                                       const std::vector<int>& main_joint, PairLayout& layout) {
  std::uint16_t* order = layout.chunk_order.data() + first;
  for (std::size_t i = 0; i < last - first; ++i) order[i] = static_cast<std::uint16_t>(i);
  std::stable_sort(order, order + (last - first), [&](std::uint16_t a, std::uint16_t b) {
    return enter[main_joint[first + a]] < enter[main_joint[first + b]];
  });
  std::vector<std::uint16_t> slot_of(last - first);
  bool identity = true;
  for (std::size_t i = 0; i < last - first; ++i) {
    slot_of[order[i]] = static_cast<std::uint16_t>(i);
    identity = identity && order[i] == i;
  }
  layout.chunk_identity.push_back(identity);
  return slot_of;
}

// What the layout's inputs say about vertices and joints.
struct PairSources {
  const Mesh& mesh;
  const HierarchicalWeights& weights;
  std::span<const float> gamma;
  std::span<const std::optional<RestrictedOrigin>> restricted;
};

// The chunk's pairs in kernel order, then grouped by joint (stable: vertices ascending).
std::vector<Pair> chunk_pairs(std::size_t first, const std::uint16_t* order, const std::vector<std::uint16_t>& slot_of,
                              const PairSources& in) {
  std::vector<Pair> pairs;
  for (std::size_t i = 0; i < slot_of.size(); ++i) {
    const std::size_t v = first + order[i];
    if (in.gamma[v] == 0) continue;
    for (std::uint32_t k = in.weights.offsets[v]; k < in.weights.offsets[v + 1]; ++k) {
      const std::uint32_t j = in.weights.joints[k];
      float beta = in.weights.betas[k];
      if (const auto& r = in.restricted[j]) {
        const float distance = (in.mesh.positions[v] - r->centre).norm() / r->radius;
        const float falloff = distance < 1 ? (1 - distance * distance) * (1 - distance * distance) : 0.0f;
        beta *= falloff;
      }
      if (beta == 0) continue;
      pairs.push_back({j, slot_of[v - first], beta, in.gamma[v]});
    }
  }
  std::stable_sort(pairs.begin(), pairs.end(), [](const Pair& a, const Pair& b) { return a.joint < b.joint; });
  return pairs;
}

// One joint's pairs [k, next) as a segment: dense when it is at least half full (beta 0 in the
// gaps), else sparse.
void append_segment(const std::vector<Pair>& pairs, std::size_t k, std::size_t next, PairLayout& layout) {
  // Vertices ascending within a joint: the run spans [pairs[k].vertex, pairs[next-1].vertex].
  const std::size_t span = static_cast<std::size_t>(pairs[next - 1].vertex - pairs[k].vertex) + 1;
  const auto index = static_cast<std::uint32_t>(layout.pair_beta.size());
  const auto count = static_cast<std::uint32_t>(next - k);
  if (span <= 2 * (next - k)) {
    layout.segments.push_back(
        {pairs[k].joint, index, static_cast<std::uint32_t>(index + span), count, pairs[k].vertex, 1});
    layout.pair_beta.resize(index + span, 0.0f);
    layout.pair_gamma.resize(index + span, 0.0f);
    layout.pair_vertex.resize(index + span, 0);
    for (std::size_t i = k; i < next; ++i) {
      const std::size_t slot = index + (pairs[i].vertex - pairs[k].vertex);
      layout.pair_beta[slot] = pairs[i].beta;
      layout.pair_gamma[slot] = pairs[i].gamma;
      layout.pair_vertex[slot] = pairs[i].vertex;
    }
    layout.dense_pairs += span;
  } else {
    layout.segments.push_back({pairs[k].joint, index, index + count, count, 0, 0});
    for (std::size_t i = k; i < next; ++i) {
      layout.pair_vertex.push_back(pairs[i].vertex);
      layout.pair_beta.push_back(pairs[i].beta);
      layout.pair_gamma.push_back(pairs[i].gamma);
    }
  }
  layout.stored_pairs += next - k;
}

void append_segments(const std::vector<Pair>& pairs, PairLayout& layout) {
  for (std::size_t k = 0; k < pairs.size();) {
    std::size_t next = k;
    while (next < pairs.size() && pairs[next].joint == pairs[k].joint) ++next;
    append_segment(pairs, k, next, layout);
    k = next;
  }
  layout.chunk_segments.push_back(static_cast<std::uint32_t>(layout.segments.size()));
}

}  // namespace

PairLayout pair_layout(const Rig& rig, const Mesh& mesh, const Skin& skin, const HierarchicalWeights& weights,
                       std::span<const float> gamma, std::span<const std::optional<RestrictedOrigin>> restricted) {
  const std::size_t n = mesh.vertex_count();
  const std::vector<int> enter = depth_first_entry(rig), main_joint = main_joints(skin, n);
  const PairSources sources{mesh, weights, gamma, restricted};
  PairLayout layout;
  layout.chunk_order.resize(n);
  for (std::size_t first = 0; first < n; first += kChunk) {
    const std::size_t last = std::min(n, first + kChunk);
    const std::vector<std::uint16_t> slot_of = order_chunk(first, last, enter, main_joint, layout);
    append_segments(chunk_pairs(first, layout.chunk_order.data() + first, slot_of, sources), layout);
  }
  return layout;
}

}  // namespace wobble::dynamic_kernels
