#include "deform/blender_mesh_edges.hpp"

#include <algorithm>
#include <bit>
#include <unordered_set>

namespace wobble {

namespace {

// A blender::Map<OrderedEdge, ...> reduced to what decides its slot order.
class EdgeMap {
 public:
  explicit EdgeMap(std::uint64_t reserved) { resize(slots_for(reserved)); }

  void add(const BlenderEdge& edge) {
    if (size_ >= usable_) grow();
    for (Probe probe(hash(edge));; probe.next()) {
      Slot& slot = slots_[probe.get() & mask_];
      if (!slot.occupied) {
        slot = {true, edge};
        ++size_;
        return;
      }
      if (slot.edge == edge) return;
    }
  }

  void append_in_order(std::vector<BlenderEdge>& out) const {  // slot order
    for (const Slot& slot : slots_)
      if (slot.occupied) out.push_back(slot.edge);
  }

 private:
  struct Slot {
    bool occupied = false;
    BlenderEdge edge{};
  };
  // PythonProbingStrategy<5, false>.
  class Probe {
   public:
    explicit Probe(std::uint64_t hash) : hash_(hash), perturb_(hash) {}
    void next() {
      perturb_ >>= 5;
      hash_ = 5 * hash_ + 1 + perturb_;
    }
    std::uint64_t get() const { return hash_; }

   private:
    std::uint64_t hash_, perturb_;
  };

  // OrderedEdge::hash(), computed in int as Blender does.
  static std::uint64_t hash(const BlenderEdge& edge) {
    const int low = static_cast<int>(edge[0]), high = static_cast<int>(edge[1]);
    return static_cast<std::uint64_t>(static_cast<std::int64_t>((low << 8) ^ high));
  }
  // LoadFactor(1, 2): the smallest power of two holding twice the usable slots (at least the
  // inline buffer's 4).
  static std::uint64_t slots_for(std::uint64_t usable) { return std::max<std::uint64_t>(4, std::bit_ceil(2 * usable)); }

  void resize(std::uint64_t total) {
    slots_.assign(total, Slot{});
    mask_ = total - 1;
    usable_ = total / 2;
  }

  // realloc_and_reinsert(size + 1): the old slots in order into the bigger table.
  void grow() {
    const std::vector<Slot> old = std::move(slots_);
    resize(slots_for(size_ + 1));
    for (const Slot& slot : old) {
      if (!slot.occupied) continue;
      for (Probe probe(hash(slot.edge));; probe.next()) {
        Slot& target = slots_[probe.get() & mask_];
        if (!target.occupied) {
          target = slot;
          break;
        }
      }
    }
  }

  std::vector<Slot> slots_;
  std::uint64_t mask_ = 0, usable_ = 0, size_ = 0;
};

// Blender 4.3's groups: each edge where a face first reaches it.
class FirstSeenEdges {
 public:
  void add(const BlenderEdge& edge) {
    const std::uint64_t key = (std::uint64_t{edge[0]} << 32) | edge[1];
    if (seen_.insert(key).second) edges_.push_back(edge);
  }
  void append_in_order(std::vector<BlenderEdge>& out) const { out.insert(out.end(), edges_.begin(), edges_.end()); }

 private:
  std::unordered_set<std::uint64_t> seen_;
  std::vector<BlenderEdge> edges_;
};

// Every face's edges, from its last corner to its first, then around, into the edge's group.
template <typename Group>
std::vector<BlenderEdge> grouped_edges(std::span<const Triangle> triangles, std::vector<Group> groups) {
  const auto count = static_cast<std::uint32_t>(groups.size());
  for (const Triangle& t : triangles) {
    std::uint32_t previous = t[2];
    for (std::uint32_t next : t) {
      if (previous != next) {
        const BlenderEdge edge{std::min(previous, next), std::max(previous, next)};
        groups[edge[0] & (count - 1)].add(edge);
      }
      previous = next;
    }
  }
  std::vector<BlenderEdge> edges;
  for (const Group& group : groups) group.append_in_order(edges);
  return edges;
}

}  // namespace

std::vector<BlenderEdge> blender_mesh_edges(std::span<const Triangle> triangles, BlenderVersion version,
                                            std::uint32_t maps) {
  maps = std::max<std::uint32_t>(1, maps);
  if (version == BlenderVersion::V4_3) return grouped_edges(triangles, std::vector<FirstSeenEdges>(maps));
  const std::uint64_t reserved = 2 * static_cast<std::uint64_t>(triangles.size()) / maps;
  return grouped_edges(triangles, std::vector<EdgeMap>(maps, EdgeMap(reserved)));
}

}  // namespace wobble
