#include "offline/simplex_least_squares.hpp"

#include <algorithm>
#include <numeric>
#include <vector>

#include <Eigen/LU>

namespace wobble::decomposition {
namespace {

// The minimiser over the free indices with sum 1 (the inequalities left out): the KKT system
// [G_FF 1; 1^T 0] [z; mu] = [h_F; 1]. mu is the multiplier of the sum.
Eigen::VectorXd equality_solution(const Eigen::MatrixXd& G, const Eigen::VectorXd& h, const std::vector<int>& free,
                                  double& mu) {
  const int n = static_cast<int>(free.size());
  Eigen::MatrixXd kkt(n + 1, n + 1);
  Eigen::VectorXd rhs(n + 1);
  for (int a = 0; a < n; ++a) {
    for (int b = 0; b < n; ++b) kkt(a, b) = G(free[a], free[b]);
    kkt(a, n) = kkt(n, a) = 1;
    rhs(a) = h(free[a]);
  }
  kkt(n, n) = 0;
  rhs(n) = 1;
  const Eigen::VectorXd solution = kkt.fullPivLu().solve(rhs);
  mu = solution(n);
  return solution.head(n);
}

int best_single_index(const Eigen::MatrixXd& G, const Eigen::VectorXd& h) {
  int best = 0;
  for (int j = 1; j < G.rows(); ++j)
    if (G(j, j) - 2 * h(j) < G(best, best) - 2 * h(best)) best = j;
  return best;
}

// A step from w towards z, as far as feasibility allows; the indices that reach zero leave.
void step_to_boundary(Eigen::VectorXd& w, const Eigen::VectorXd& z, std::vector<int>& free) {
  double alpha = 1;
  for (std::size_t a = 0; a < free.size(); ++a) {
    const double current = w(free[a]);
    if (z(static_cast<int>(a)) <= 0) alpha = std::min(alpha, current / (current - z(static_cast<int>(a))));
  }
  for (std::size_t a = 0; a < free.size(); ++a) {
    const int j = free[a];
    w(j) += alpha * (z(static_cast<int>(a)) - w(j));
  }
  std::erase_if(free, [&](int j) {
    if (w(j) > 1e-14) return false;
    w(j) = 0;
    return true;
  });
  w /= w.sum();
}

}  // namespace

Eigen::VectorXd simplex_least_squares(const Eigen::MatrixXd& G, const Eigen::VectorXd& h, std::span<const int> start) {
  const int n = static_cast<int>(G.rows());
  Eigen::VectorXd w = Eigen::VectorXd::Zero(n);
  if (n == 0) return w;
  std::vector<int> free(start.begin(), start.end());
  if (free.empty()) free.push_back(best_single_index(G, h));
  for (int j : free) w(j) = 1.0 / static_cast<double>(free.size());
  // Optimality is judged against the problem's own scale.
  const double scale = std::max(G.diagonal().cwiseAbs().maxCoeff(), h.cwiseAbs().maxCoeff());
  const double tolerance = 1e-12 * std::max(scale, 1e-300);
  std::vector<bool> is_free(static_cast<std::size_t>(n), false);
  for (int iteration = 0; iteration < 4 * n + 16; ++iteration) {
    double mu = 0;
    const Eigen::VectorXd z = equality_solution(G, h, free, mu);
    if (z.minCoeff() <= 0) {
      step_to_boundary(w, z, free);
      continue;
    }
    w.setZero();
    for (std::size_t a = 0; a < free.size(); ++a) w(free[a]) = z(static_cast<int>(a));
    // Multipliers of the zero weights: (G w - h)_j + mu must not be negative.
    std::fill(is_free.begin(), is_free.end(), false);
    for (int j : free) is_free[static_cast<std::size_t>(j)] = true;
    const Eigen::VectorXd gradient = G * w - h;
    int entering = -1;
    double most_negative = -tolerance;
    for (int j = 0; j < n; ++j) {
      if (is_free[static_cast<std::size_t>(j)]) continue;
      const double multiplier = gradient(j) + mu;
      if (multiplier < most_negative) most_negative = multiplier, entering = j;
    }
    if (entering < 0) break;
    free.push_back(entering);
  }
  return w;
}

Eigen::VectorXd sparse_simplex_least_squares(const Eigen::MatrixXd& G, const Eigen::VectorXd& h,
                                             std::span<const int> start, int most) {
  Eigen::VectorXd w = simplex_least_squares(G, h, start);
  if ((w.array() > 0).count() <= most) return w;
  std::vector<int> order(static_cast<std::size_t>(w.size()));
  std::iota(order.begin(), order.end(), 0);
  std::partial_sort(order.begin(), order.begin() + most, order.end(), [&](int a, int b) { return w(a) > w(b); });
  order.resize(static_cast<std::size_t>(most));
  std::sort(order.begin(), order.end());
  Eigen::MatrixXd sub_g(most, most);
  Eigen::VectorXd sub_h(most);
  for (int a = 0; a < most; ++a) {
    sub_h(a) = h(order[a]);
    for (int b = 0; b < most; ++b) sub_g(a, b) = G(order[a], order[b]);
  }
  std::vector<int> all(static_cast<std::size_t>(most));
  std::iota(all.begin(), all.end(), 0);
  const Eigen::VectorXd kept = simplex_least_squares(sub_g, sub_h, all);
  w.setZero();
  for (int a = 0; a < most; ++a) w(order[a]) = kept(a);
  return w;
}

}  // namespace wobble::decomposition
