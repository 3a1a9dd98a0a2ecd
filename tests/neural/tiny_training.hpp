#pragma once
// The smallest network and data the neural tests train (seconds on one core), written once so
// that the tests' configurations differ only where their subject needs it.
#include <nlohmann/json.hpp>

namespace wobble::test {

inline nlohmann::json tiny_network() {
  return {{"width", 16},  {"latents", 8}, {"encoder_layers", 1}, {"heads", 2},
          {"handles", 4}, {"octaves", 3}, {"mlp_blocks", 1}};
}

// Procedural shapes of `surface_points` surface samples on a grid of `grid_resolution`.
inline nlohmann::json tiny_data(int procedural_shapes, int validation_shapes, int surface_points = 128,
                                int cubature_points = 200, int grid_resolution = 10) {
  return {{"procedural_shapes", procedural_shapes},
          {"validation_procedural", validation_shapes},
          {"surface_points", surface_points},
          {"cubature_points", cubature_points},
          {"grid_resolution", grid_resolution}};
}

}  // namespace wobble::test
