#pragma once
// Direct Delta Mush's smoothing operator B = A^-1 with A = I + lambda (I - D^-1 W), the
// random-walk Laplacian of a mesh (W symmetric, non-negative edge weights, D = diag(row sums)).
// A is not symmetric, but D A = (1 + lambda) D - lambda W is symmetric positive definite (strictly
// diagonally dominant), so A x = y is solved as (D A) x = D y with Jacobi-preconditioned conjugate
// gradients, in double precision, all columns of a block in one pass over the matrix. The
// preconditioned spectrum lies in [1, 1 + 2 lambda]: a few tens of iterations whatever the mesh
// size, with memory linear in the mesh (no factorisation fill).
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <wobble/mesh_topology.hpp>

namespace wobble {

class ImplicitSmoothing {
 public:
  // edge_weight[e] >= 0 for edges[e]. A vertex whose edges all weigh 0 smooths uniformly (its
  // edges get a tiny common weight, so W stays symmetric); an isolated vertex is left alone.
  ImplicitSmoothing(std::size_t vertex_count, std::span<const Edge> edges, std::span<const double> edge_weight,
                    double lambda);

  // Replaces the row-major vertex_count x columns block y by A^-1 y (each column to a relative
  // residual of 1e-12). Throws Error if the iteration does not converge.
  void solve(std::vector<double>& y, std::size_t columns) const;

  std::size_t vertex_count() const { return diagonal_.size(); }
  // Conjugate-gradient iterations of the last solve (for the report and tests).
  int last_iterations() const { return last_iterations_; }

 private:
  // q = (D A) p for a row-major block.
  void multiply(const std::vector<double>& p, std::vector<double>& q, std::size_t columns) const;

  double lambda_ = 1.0;
  std::vector<std::uint32_t> offsets_, columns_;  // W without its (zero) diagonal, CSR
  std::vector<double> weights_;
  std::vector<double> row_sum_;   // D (1 for isolated vertices)
  std::vector<double> diagonal_;  // diagonal of D A
  mutable int last_iterations_ = 0;
};

}  // namespace wobble
