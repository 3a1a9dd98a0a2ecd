#pragma once
// Delta Mush (Mancewicz et al. 2014): a post-deformer that smooths the deformed mesh with a
// Laplacian and adds back the detail the same smoothing removes from the rest mesh, expressed in
// local tangent frames so that it turns with the surface.
//
//   bind:     S_rest = smooth(rest); per corner c of vertex i: d_c = F_c(S_rest)^T (rest_i - S_rest_i)
//   evaluate: S = smooth(deformed);  out_i = S_i + scale * sum_c w_c F_c(S) d_c
//
// Frames are built per triangle corner (robust on degenerate corners, boundaries and
// non-manifold meshes); w_c are corner-angle weights normalised per vertex.
//
// Two modes:
//  - Wobble (default): vertices split only along UV or normal seams (same position) are welded
//    for the connectivity, so seams neither crack nor get a boundary. Smoothing weights and
//    corner weights come from the rest mesh (the smoothing is one fixed linear operator), frames
//    are (unit edge, unit normal). Smoothing: uniform, length (w_ij proportional to the rest
//    edge length), cotangent (clamped at 0; a vertex whose weights all vanish falls back to
//    uniform). A vertex with no usable corner keeps its input position.
//  - Blender: reproduces Blender's Corrective Smooth modifier (Simple or Length Weight,
//    pin boundaries, scale, vertex mask, rest source = the rest mesh) to float precision:
//    connectivity exactly the triangles as given, no welding; weights recomputed from the current
//    positions at every iteration; frames (bisector, normal) with angle weights from the deformed
//    mesh (METHOD_NOTES §2).
// Positions are in any unit; all parameters except `scale` and `step` are unitless counts/flags.
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <wobble/math.hpp>
#include <wobble/mesh.hpp>
#include <wobble/mesh_topology.hpp>
#include <wobble/parameters.hpp>
#include <wobble/skin.hpp>

namespace wobble {

class ThreadPool;
namespace mush {
struct CornerBlocks;
struct SweepRows;
struct SmoothedSkin;
}  // namespace mush

enum class MushSmoothing { Uniform, Length, Cotangent };
enum class MushMode { Wobble, Blender };
// Blender mode: the Blender whose Corrective Smooth to match (their edge orders differ, and with
// them the sums on ill-conditioned vertices: src/deform/blender_mesh_edges.hpp).
enum class BlenderVersion { V3_4, V4_3 };

// The settings' names of the choices (one table each; parse and to_string read it).
const std::vector<std::pair<std::string, MushSmoothing>>& mush_smoothing_names();    // uniform, length, cotangent
const std::vector<std::pair<std::string, MushMode>>& mush_mode_names();              // wobble, blender
const std::vector<std::pair<std::string, BlenderVersion>>& blender_version_names();  // 3.4, 4.3
MushSmoothing parse_mush_smoothing(std::string_view text);                           // throws Error naming the choices
MushMode parse_mush_mode(std::string_view text);
const char* to_string(MushSmoothing smoothing);
const char* to_string(MushMode mode);

struct DeltaMushSettings {
  int iterations = 10;  // smoothing sweeps (>= 0)
  float step = 0.5f;    // lambda, fraction of the way to the neighbours' mean per sweep (0..1]
  MushSmoothing smoothing = MushSmoothing::Uniform;
  bool pin_boundary = false;  // vertices on open boundaries are not smoothed
  // Blender mode: multiplies the restored detail, as Corrective Smooth's scale. Wobble mode:
  // multiplies the correction, out = in + scale (mush - in), exact at rest for any scale.
  float scale = 1.0f;
  bool smooth_only = false;  // output the smoothed mesh, no detail restored
  MushMode mode = MushMode::Wobble;
  BlenderVersion blender_version = BlenderVersion::V4_3;  // blender mode: the newest tested
  std::vector<float> mask;                                // per-vertex smoothing weight in [0, 1]; empty: 1 everywhere
  bool invert_mask = false;                               // use 1 - mask

  // Empty string when usable with a mesh of `vertex_count` vertices; otherwise the problem.
  std::string validate(std::size_t vertex_count) const;
};

// The `deltamush` deformer's parameters (its description's struct): the settings, and where the
// mask comes from: explicit values, or a per-vertex attribute of the mesh ("none": no mask;
// the default _MUSH_WEIGHT is used when the mesh has it).
struct DeltaMushParameters {
  DeltaMushSettings mush;
  VertexValues mask{{}, "_MUSH_WEIGHT"};
};

struct Character;
// The settings the `deltamush` deformer binds with on `character`: the mask resolved to values
// (explicit values; else the named attribute, clamped to [0, 1] as a documented repair; a
// missing _MUSH_WEIGHT means no mask). Throws Error naming the character's file for another
// missing attribute.
DeltaMushSettings delta_mush_settings_for(const Character& character, const DeltaMushParameters& parameters);

// Wobble mode's bound operator as plain compressed rows, for implementations outside the CPU
// kernels (the renderer's GPU path). Welded vertices w, original vertices v; positions relative
// to any common centre (the operator is affine: rows sum to one).
//   gather:  in_w = mean of the members' positions (the first member's where they agree)
//   sweeps:  `iterations` times, s_w <- self_w s_w + sum_k row_weights[k] s_{row_columns[k]}
//   restore: out_w = s_w + sum_c F_c(s) corner_deltas[c], F_c as restore_details
//            (src/deform/delta_mush_kernels.hpp); keep_input[w]: the input is kept
//   scatter: positions[v] = in_v + scale (out_{welded_of[v]} - in_v) (settings().scale)
struct DeltaMushOperator {
  std::vector<std::uint32_t> welded_of;                 // per original vertex
  std::vector<std::uint32_t> member_offsets, members;   // per welded vertex: its original vertices
  std::vector<std::uint32_t> row_offsets, row_columns;  // per welded vertex: its neighbours
  std::vector<float> row_weights, self_weights;
  std::vector<std::uint32_t> corner_offsets, corner_next, corner_prev;  // per welded vertex: its corners
  std::vector<Vec3f> corner_deltas;                                     // in the corner's frame, times its weight
  std::vector<std::uint8_t> keep_input;                                 // per welded vertex
  int iterations = 0;
  std::size_t welded_count() const { return member_offsets.empty() ? 0 : member_offsets.size() - 1; }
};

class DeltaMush {
 public:
  // Smooths the rest mesh and caches the deltas. Throws Error for bad settings or triangles
  // whose indices are out of range.
  void bind(std::span<const Vec3f> rest, std::span<const Triangle> triangles, const DeltaMushSettings& settings);
  bool bound() const { return bound_; }
  const MeshFingerprint& fingerprint() const { return fingerprint_; }
  const DeltaMushSettings& settings() const { return settings_; }
  // Changes what the output keeps (live: no rebind).
  void set_output(float scale, bool smooth_only);

  // Throws Error naming both meshes unless (rest, triangles) is the mesh bind() saw.
  void check_same_mesh(std::span<const Vec3f> rest, std::span<const Triangle> triangles) const;
  // Throws when `count` positions cannot belong to the bound mesh.
  void check_position_count(std::size_t count) const;

  // Deforms positions in place (deformed positions of the bound mesh's vertices). Throws Error
  // if not bound or the vertex count differs from the bound mesh. Identical bytes for any
  // thread count. Not thread-safe (uses internal scratch buffers).
  void evaluate(std::span<Vec3f> positions, ThreadPool* pool = nullptr);

  // Linear blend skinning as the input, folded into the bind (wobble mode only; Blender mode's
  // weights depend on the current positions, so it is not linear and keeps iterating). The
  // sweeps are one fixed linear operator S, so k sweeps of LBS positions give, per welded
  // vertex i, s_i = sum_j T_j q_ij with q_ij = sum_l (S^k)_il w_lj [u_l; 1]: fold_skin()
  // precomputes the q_ij (double precision, the sweeps' own float coefficients), and
  // evaluate_skinned() costs an LBS-like blend over these wider influences plus the frame pass.
  // Entries whose share of the vertex's weight is below `prune` are merged into the vertex's
  // strongest joint (exact at rest and for rigid motions; the error this adds is at most
  // the merged share times how far the two joints' transforms move a point of the rest box).
  // Throws Error in Blender mode, if not bound, or if the skin does not fit the mesh.
  void fold_skin(std::span<const Vec3f> rest, const PackedSkin& skin, std::size_t joint_count, double prune = 0.0);
  bool skin_folded() const { return folded_ != nullptr; }
  // Smoothed influences per welded vertex: the largest count and the mean (diagnostics).
  std::size_t folded_width() const;
  double folded_mean_width() const;
  // positions: in, the LBS positions of the folded skin under `skinning` (read only where the
  // output needs the input: scale != 1, vertices without a usable corner); out, what evaluate()
  // gives for them, up to float rounding. Throws Error unless fold_skin() was called.
  void evaluate_skinned(std::span<const Mat4f> skinning, std::span<Vec3f> positions, ThreadPool* pool = nullptr);

  // The bound operator as plain arrays (see DeltaMushOperator). Throws Error unless bound in
  // wobble mode (Blender mode's weights follow the current positions: no fixed operator).
  DeltaMushOperator plain_operator() const;

  // Recomputes area-weighted normals of the bound mesh's triangles (the unwelded triangles, so
  // hard edges stay hard) from positions. Vertices in no triangle keep their normal.
  void recompute_normals(std::span<const Vec3f> positions, std::span<Vec3f> normals);

 private:
  void bind_wobble(std::span<const Vec3f> rest);
  void check_fold_inputs(std::span<const Vec3f> rest, const PackedSkin& skin, std::size_t joint_count,
                         double prune) const;
  void bind_blender(std::span<const Vec3f> rest);
  void smooth_wobble(ThreadPool* pool);
  void smooth_blender(std::vector<Vec3f>& p, ThreadPool* pool) const;
  void evaluate_wobble(std::span<Vec3f> positions, ThreadPool* pool);
  // Wobble mode's corner deltas: the welded rest mesh relative to `centre` against its smoothed
  // version (float4 rows per welded vertex, relative to the same centre).
  void bind_corners(std::span<const Vec3f> rest, const Vec3f& centre, const float* smoothed,
                    std::shared_ptr<const mush::CornerBlocks>& corners, std::vector<std::uint8_t>& keep_input) const;
  // Wobble mode's last steps: buffer_a_ holds the smoothed welded mesh relative to `centre`.
  void restore_and_scatter(std::span<Vec3f> positions, const Vec3f& centre, const mush::CornerBlocks& corners,
                           const std::vector<std::uint8_t>& keep_input, ThreadPool* pool);
  // The folded skin's palette for this frame (folded_palette_); returns the frame's centre.
  Vec3f prepare_folded_palette(std::span<const Mat4f> skinning);
  void evaluate_blender(std::span<Vec3f> positions, ThreadPool* pool);

  bool bound_ = false;
  DeltaMushSettings settings_;
  MeshFingerprint fingerprint_;
  std::vector<Triangle> triangles_;    // as given (for normals)
  std::vector<Vec3f> normal_scratch_;  // recompute_normals' sums, kept so that frames do not allocate
  std::vector<float> vertex_weight_;   // per smoothing vertex: mask, 0 when pinned

  // Wobble mode: welded connectivity.
  Welding welding_;
  std::vector<std::uint32_t> weld_offsets_, weld_members_;  // welded vertex -> original vertices
  // Smoothing operator (weights lambda * mask * w_ij / sum_j w_ij, none for uniform smoothing,
  // and per vertex its self weight 1 - sum_j of the row and uniform smoothing's common row
  // weight), in the kernels' layout. Immutable once bound.
  std::shared_ptr<const mush::SweepRows> rows_;
  // Corners per welded vertex, in groups of 8 vertices for the kernels: the two other corners
  // of the triangle, and the delta in the corner's frame, premultiplied by the corner's
  // normalised weight (src/deform/delta_mush_kernels.hpp). Immutable once bound.
  std::shared_ptr<const mush::CornerBlocks> corners_;
  std::vector<std::uint8_t> keep_input_;              // welded vertex without usable corners
  std::vector<float> buffer_a_, buffer_b_;            // float4 per welded vertex (padded; see bind_wobble)
  std::shared_ptr<const mush::SmoothedSkin> folded_;  // fold_skin()'s influences; null: none
  std::vector<float> folded_palette_;                 // per joint, per frame (evaluate_skinned)
  // The folded path's own corner deltas, from its rest smoothing (double sums, then the same
  // float blend as at run time), so that its rest pose is exact too.
  std::shared_ptr<const mush::CornerBlocks> folded_corners_;
  std::vector<std::uint8_t> folded_keep_input_;

  // Blender mode (src/deform/delta_mush_blender.cpp): connectivity exactly as given.
  Adjacency adjacency_;
  bool blender_weighted_ = false;  // a mask or pinning: Blender's smooth_weights
  std::vector<std::uint32_t> vcorner_offsets_, vcorner_next_, vcorner_prev_;
  std::vector<Vec3f> vcorner_delta_;  // inverse(corner frame) * delta
  std::vector<Vec3f> work_;
};

}  // namespace wobble
