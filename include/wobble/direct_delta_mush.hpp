#pragma once
// Direct Delta Mush (Le and Lewis 2019): Delta Mush's smoothing moved into a precomputation, so
// that run time is a skinning-like blend followed by one rotation fit per vertex.
//
// Precomputation (double precision): B = (I + lambda L)^-p, L = I - D^-1 W the random-walk
// Laplacian of the rest mesh (welded at seams; W uniform or cotangent clamped at 0, so B has
// non-negative entries and rows summing to 1). L is not symmetric, but D (I + lambda L) is: B is
// applied by conjugate gradients on that symmetric system (src/deform/implicit_smoothing.hpp),
// memory linear in the mesh. Per vertex i and joint j:
//   Omega_ij = sum_k B_ik w_kj [u_k; 1][u_k; 1]^T           (symmetric 4x4, 10 numbers)
// Joints with a tiny smoothed weight psi_ij = Omega_ij(3,3) are dropped (at most
// `max_influences` kept) and the kept ones renormalised, which keeps the rest pose exact.
//
// Run time, variant v0 (the paper's full model):
//   Q = sum_j M_j Omega_ij,  p = Omega(0:3, 3) summed,  M = Q(0:3,0:3) - q p^T
//   R = the rotation (det +1) nearest to M,  t = q - R p,  out_i = R u_i + t
// computed as Q' = sum_j M_j T_i Omega'_ij with Omega' = T_i^-1 Omega T_i^-T centred on p_i at
// bind (T_i = translation by p_i): then M = Q'(0:3,0:3) and q = Q'(0:3,3) with no cancellation.
// Cheaper variants (our derivation, in the spirit of the paper's variants):
//   v1: Omega_ij ~ psi_ij * Pi_i (joint-independent smoothed moments Pi_i = sum_k B_ik [u;1][u;1]^T):
//       with M~ = sum_j psi_ij M_j = [L~ t~]:  R = rot(L~ C_i), out = R (u - p_i) + M~ p_i
//       (C_i the smoothed covariance): LBS-like blend + one 3x3 product + one rotation fit.
//   v2: as v1 with C_i = identity: R = rot(L~).
//   v3: as v2 with R the normalised blend of the joints' rotation quaternions (each joint's
//       nearest rotation, once per frame), weighted by psi_ij and turned into the hemisphere of
//       the vertex's strongest joint: no rotation fit per vertex (a DQS-like cost).
// A vertex whose smoothed neighbourhood is degenerate (isolated vertex: rank < 2) uses linear
// blending with its smoothed weights.
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <wobble/delta_mush.hpp>
#include <wobble/math.hpp>
#include <wobble/mesh_topology.hpp>
#include <wobble/skin.hpp>

namespace wobble {

class ThreadPool;

enum class DdmVariant { V0, V1, V2, V3 };
DdmVariant parse_ddm_variant(std::string_view text);  // "v0", "v1", "v2", "v3"
const char* to_string(DdmVariant variant);

struct DirectDeltaMushSettings {
  int iterations = 5;                                // p, implicit smoothing steps (>= 1)
  double step = 1.0;                                 // lambda (> 0)
  MushSmoothing smoothing = MushSmoothing::Uniform;  // uniform or cotangent (length: rest edge lengths)
  DdmVariant variant = DdmVariant::V0;
  int max_influences = 8;    // smoothed joint influences kept per vertex
  double min_weight = 1e-4;  // smoothed weights below this are dropped

  std::string validate() const;
};

// The rotation (det +1) nearest to m in the Frobenius norm (argmax trace(R^T m)): scaled Newton
// polar iteration, with an SVD for singular or reflecting matrices.
Mat3f nearest_rotation(const Mat3f& m);

// The bind data as plain arrays, `width` slots per original vertex (empty slots: psi 0), for
// implementations outside the CPU kernels (the renderer's GPU path). The meaning of each array
// is that of the run-time formulas above.
struct DirectDeltaMushTables {
  DdmVariant variant = DdmVariant::V0;
  std::size_t width = 0, joint_count = 0;
  std::span<const Vec3f> rest;
  std::span<const std::uint16_t> joints;          // [vertex][slot]
  std::span<const float> psi;                     // [vertex][slot]
  std::span<const float> omega;                   // v0: [vertex][slot][10], centred on p
  std::span<const float> centre;                  // [vertex][3]: p
  std::span<const float> covariance;              // v1: [vertex][6] (xx xy xz yy yz zz)
  std::span<const std::uint8_t> linear_fallback;  // [vertex]: psi-weighted linear blend of the rest position
};

class DirectDeltaMush {
 public:
  // Precomputes. Throws Error for bad settings, a skin that does not fit the mesh, or a solver
  // failure.
  void bind(std::span<const Vec3f> rest, std::span<const Triangle> triangles, const Skin& skin, std::size_t joint_count,
            const DirectDeltaMushSettings& settings);
  bool bound() const { return !rest_.empty() || fingerprint_.vertex_count == 0; }
  const MeshFingerprint& fingerprint() const { return fingerprint_; }
  const DirectDeltaMushSettings& settings() const { return settings_; }
  void check_same_mesh(std::span<const Vec3f> rest, std::span<const Triangle> triangles) const;

  // Positions from the skinning matrices (bind space -> world). rotations, when not empty,
  // receives each vertex's fitted rotation (identity for the linear-blend fallback vertices).
  // Identical bytes for any thread count.
  void evaluate(std::span<const Mat4f> skinning, std::span<Vec3f> positions, ThreadPool* pool = nullptr,
                std::span<Mat3f> rotations = {}) const;

  // Views of the bind data (valid while this object is unchanged).
  DirectDeltaMushTables tables() const {
    return {settings_.variant, width_,      joint_count_,    rest_, joints_, psi_, omega_,
            centre_,           covariance_, linear_fallback_};
  }

  // Kept influences per vertex (for diagnostics and tests).
  std::size_t width() const { return width_; }

 private:
  DirectDeltaMushSettings settings_;
  MeshFingerprint fingerprint_;
  std::size_t joint_count_ = 0;
  std::size_t width_ = 0;  // slots per vertex
  std::vector<Vec3f> rest_;
  std::vector<std::uint16_t> joints_;          // [vertex][slot]
  std::vector<float> omega_;                   // v0: [vertex][slot][10] centred on p (A xx xy xz yy yz zz, b x y z, c)
  std::vector<float> psi_;                     // v1, v2: [vertex][slot]
  std::vector<float> centre_;                  // [vertex][3]: p_i
  std::vector<float> covariance_;              // v1: [vertex][6]
  std::vector<float> lever_;                   // v3: [group of 8 vertices][x, y, z][lane]: u - p
  std::vector<std::uint8_t> linear_fallback_;  // per vertex
};

}  // namespace wobble
