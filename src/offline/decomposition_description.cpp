// The settings of a skinning decomposition, described once.
#include <wobble/offline/skinning_decomposition.hpp>

#include "deform/describe.hpp"

namespace wobble {

std::string DecompositionParameters::validate() const { return decomposition_description().problems(this); }

const DeformerDescription& decomposition_description() {
  static const DeformerDescription description = [] {
    // One chain per parameter (key, accessor, unit, range, help), laid out by hand:
    // clang-format off
    describe::Fields<DecompositionParameters> f;
    f.integer("bones", [](auto& p) -> auto& { return p.bones; })
        .bind().range(1, 4096).soft(1, 64).help("bones to find (helper bones: added to the character's own)");
    f.integer("influences", [](auto& p) -> auto& { return p.influences; })
        .bind().range(1, 8).help("most bones a vertex follows (4 plays everywhere; 8 needs JOINTS_1/WEIGHTS_1)");
    f.integer("iterations", [](auto& p) -> auto& { return p.iterations; })
        .bind().range(1, 100000).soft(1, 200).help("most alternations of bone transforms and weights");
    f.number("tolerance", [](auto& p) -> auto& { return p.tolerance; })
        .bind().range(0, 1).soft(0, 0.01).help("stop when the RMSE falls by less than this fraction, 'patience' times in a row");
    f.integer("patience", [](auto& p) -> auto& { return p.patience; })
        .bind().range(1, 1000).soft(1, 10).help("iterations in a row below the tolerance before stopping");
    f.number("target_error", [](auto& p) -> auto& { return p.target_error; })
        .bind().range(0, 1).soft(0, 0.01)
        .help("stop as soon as the RMSE is at most this fraction of the motion's size (as for 'smoothness'): 0.001 is "
              "about a pixel when the rest's diagonal spans 1,000 pixels; 0: only the tolerance and the iterations stop");
    f.integer("transform_sweeps", [](auto& p) -> auto& { return p.transform_sweeps; })
        .bind().range(1, 100).soft(1, 10).help("sweeps over the bones in each transform update (each bone's best fit, the others held)");
    f.integer("clustering_iterations", [](auto& p) -> auto& { return p.clustering_iterations; })
        .bind().range(0, 1000).soft(0, 50).help("k-means reassignments after each round of splits of the initial clustering");
    f.number("smoothness", [](auto& p) -> auto& { return p.smoothness; })
        .bind().range(0, 1e6).soft(0, 0.01)
        .help("pull of each vertex's weights towards its neighbours' (in squared sizes of the motion fitted, per frame: "
              "the rest's bounding-box diagonal; for helper bones, the RMS of what the character's own joints miss)");
    // clang-format on
    return f.deformer("decompose", DeformerStage::Effect,
                      "skinning decomposition: a mesh animation as rigid bones and sparse convex weights", {});
  }();
  return description;
}

}  // namespace wobble
