#pragma once
// Convex least squares: min w^T G w - 2 h^T w over the simplex (w >= 0, sum w = 1), by the
// primal active-set method (exact for these small, dense problems: one per vertex).
#include <span>

#include <Eigen/Core>

namespace wobble::decomposition {

// G symmetric positive semi-definite (n x n), h (n). `start`: indices of a feasible support to
// begin from (the weights spread evenly over them); empty: the best single index. Returns w.
Eigen::VectorXd simplex_least_squares(const Eigen::MatrixXd& G, const Eigen::VectorXd& h, std::span<const int> start);

// The same, with at most `most` non-zero weights. Where the convex optimum has more, the best
// support found of: its largest `most`, `start` (when it is small enough), and local swaps of one
// index for another from the better of them (a heuristic: the exact choice is combinatorial). Never
// worse than either starting support.
Eigen::VectorXd sparse_simplex_least_squares(const Eigen::MatrixXd& G, const Eigen::VectorXd& h,
                                             std::span<const int> start, int most);

}  // namespace wobble::decomposition
