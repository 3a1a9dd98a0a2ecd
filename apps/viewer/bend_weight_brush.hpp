#pragma once
// The bend-weight brush: paints Dynamic Skinning's per-vertex bend weights gamma on the deformed
// mesh under the cursor (a sphere around the ray's first hit, smooth falloff), or smooths them.
// The weights go to the settings JSON ("bend_weights") or into the glTF (_BEND_WEIGHT).
#include <optional>
#include <span>
#include <vector>

#include <wobble/mesh.hpp>
#include <wobble/mesh_topology.hpp>

namespace wobble::viewer {

// The first triangle hit by the ray origin + s * direction (s > 0): the hit point, or nullopt.
std::optional<Vec3f> cast_ray(std::span<const Vec3f> positions, std::span<const Triangle> triangles,
                              const Vec3f& origin, const Vec3f& direction);

// The bend weights a character starts with: the settings' array when it fits the mesh, else the
// mesh attribute `attribute` when present, else 1 everywhere (the defaults of `dynamic`).
std::vector<float> initial_bend_weights(const Mesh& mesh, const std::vector<float>& from_settings,
                                        const std::string& attribute);

struct BrushSettings {
  float radius = 0.06f;   // share of the character size
  float strength = 0.5f;  // share of the way to the target per dab, at the centre
  float value = 0.0f;     // the weight painted
  bool smooth = false;    // smooth instead of paint
};

class BendWeightBrush {
 public:
  // The mesh's connectivity, for smoothing (once per character).
  void bind(const Mesh& mesh);
  // One dab centred on `centre`: vertices (at `positions`) within radius * size move toward the
  // target value (or their neighbours' average) by strength * (1 - (r/R)^2)^2. Returns the
  // number of vertices changed.
  std::size_t dab(std::span<const Vec3f> positions, const Vec3f& centre, float size, const BrushSettings& settings,
                  std::vector<float>& gamma) const;
  // Laplacian smoothing of all weights, `iterations` times with step 0.5.
  void smooth_all(std::vector<float>& gamma, int iterations) const;

 private:
  Adjacency adjacency_;
};

}  // namespace wobble::viewer
