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

namespace {

constexpr int kSwapPasses = 16;    // most swaps of one index for another (each one lowers the objective)
constexpr int kEnteringTried = 4;  // indices tried in each pass, those whose multipliers promise most

double objective(const Eigen::MatrixXd& G, const Eigen::VectorXd& h, const Eigen::VectorXd& w) {
  return w.dot(G * w) - 2 * h.dot(w);
}

std::vector<int> support_of(const Eigen::VectorXd& w) {
  std::vector<int> support;
  for (int j = 0; j < w.size(); ++j)
    if (w(j) > 0) support.push_back(j);
  return support;
}

std::vector<int> largest(const Eigen::VectorXd& w, int most) {
  std::vector<int> order(static_cast<std::size_t>(w.size()));
  std::iota(order.begin(), order.end(), 0);
  std::partial_sort(order.begin(), order.begin() + most, order.end(), [&](int a, int b) { return w(a) > w(b); });
  order.resize(static_cast<std::size_t>(most));
  return order;
}

// The simplex least squares over `support` alone (the other weights zero).
Eigen::VectorXd restricted_solution(const Eigen::MatrixXd& G, const Eigen::VectorXd& h,
                                    const std::vector<int>& support) {
  const auto m = static_cast<Eigen::Index>(support.size());
  Eigen::MatrixXd sub_g(m, m);
  Eigen::VectorXd sub_h(m);
  for (Eigen::Index a = 0; a < m; ++a) {
    sub_h(a) = h(support[a]);
    for (Eigen::Index b = 0; b < m; ++b) sub_g(a, b) = G(support[a], support[b]);
  }
  std::vector<int> all(support.size());
  std::iota(all.begin(), all.end(), 0);
  const Eigen::VectorXd sub_w = simplex_least_squares(sub_g, sub_h, all);
  Eigen::VectorXd w = Eigen::VectorXd::Zero(h.size());
  for (Eigen::Index a = 0; a < m; ++a) w(support[a]) = sub_w(a);
  return w;
}

// The indices outside w's support whose multipliers are most negative (those that would lower
// the objective most at first order), at most kEnteringTried.
std::vector<int> promising_indices(const Eigen::MatrixXd& G, const Eigen::VectorXd& h, const Eigen::VectorXd& w,
                                   const std::vector<int>& support) {
  const Eigen::VectorXd gradient = G * w - h;
  const double mu = -gradient(support.front());  // equal on the support at its optimum
  const double tolerance = 1e-12 * std::max(G.diagonal().cwiseAbs().maxCoeff(), h.cwiseAbs().maxCoeff());
  std::vector<std::pair<double, int>> ranked;
  for (int j = 0; j < w.size(); ++j)
    if (w(j) == 0 && gradient(j) + mu < -tolerance) ranked.emplace_back(gradient(j) + mu, j);
  const std::size_t keep = std::min<std::size_t>(kEnteringTried, ranked.size());
  std::partial_sort(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(keep), ranked.end());
  std::vector<int> out;
  for (std::size_t k = 0; k < keep; ++k) out.push_back(ranked[k].second);
  return out;
}

// Local search over supports of at most `most` indices: a promising index comes in for the member
// whose leaving costs least (or for none while there is room), as long as the objective falls.
// Truncating the dense optimum to its largest weights is a guess; this mends it where it is wrong.
Eigen::VectorXd swapped_until_no_gain(const Eigen::MatrixXd& G, const Eigen::VectorXd& h, Eigen::VectorXd w, int most) {
  double value = objective(G, h, w);
  for (int pass = 0; pass < kSwapPasses; ++pass) {
    const std::vector<int> support = support_of(w);
    Eigen::VectorXd best = w;
    double best_value = value;
    for (int entering : promising_indices(G, h, w, support)) {
      for (std::size_t leaving = 0; leaving <= support.size(); ++leaving) {
        if (leaving == support.size() && static_cast<int>(support.size()) >= most) break;  // no room to add
        std::vector<int> trial = support;
        if (leaving < support.size())
          trial[leaving] = entering;
        else
          trial.push_back(entering);
        const Eigen::VectorXd candidate = restricted_solution(G, h, trial);
        const double candidate_value = objective(G, h, candidate);
        if (candidate_value < best_value) best = candidate, best_value = candidate_value;
      }
    }
    if (!(best_value < value - 1e-14 * std::abs(value))) break;
    w = best;
    value = best_value;
  }
  return w;
}

}  // namespace

Eigen::VectorXd sparse_simplex_least_squares(const Eigen::MatrixXd& G, const Eigen::VectorXd& h,
                                             std::span<const int> start, int most) {
  const Eigen::VectorXd dense = simplex_least_squares(G, h, start);
  if ((dense.array() > 0).count() <= most) return dense;  // the convex optimum is sparse enough: it is the best
  Eigen::VectorXd best = restricted_solution(G, h, largest(dense, most));
  if (!start.empty() && static_cast<int>(start.size()) <= most) {
    const Eigen::VectorXd previous = restricted_solution(G, h, {start.begin(), start.end()});
    if (objective(G, h, previous) < objective(G, h, best)) best = previous;
  }
  return swapped_until_no_gain(G, h, best, most);
}

}  // namespace wobble::decomposition
