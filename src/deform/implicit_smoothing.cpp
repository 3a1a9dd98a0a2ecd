#include "deform/implicit_smoothing.hpp"

#include <algorithm>
#include <cmath>

#include <wobble/error.hpp>

#include "core/fail.hpp"

namespace wobble {

ImplicitSmoothing::ImplicitSmoothing(std::size_t vertex_count, std::span<const Edge> edges,
                                     std::span<const double> edge_weight, double lambda)
    : lambda_(lambda) {
  const std::size_t n = vertex_count;
  std::vector<double> weight(edge_weight.begin(), edge_weight.end());
  // Vertices whose edges all weigh 0 (clamped cotangents): a tiny common weight, far below the
  // others, makes their rows uniform and keeps W symmetric.
  {
    double positive_sum = 0;
    std::size_t positive = 0;
    for (double w : weight) {
      if (w > 0) positive_sum += w, ++positive;
    }
    const double tiny = 1e-9 * (positive ? positive_sum / double(positive) : 1.0);
    std::vector<double> sum(n, 0.0);
    for (std::size_t e = 0; e < edges.size(); ++e) sum[edges[e].a] += weight[e], sum[edges[e].b] += weight[e];
    for (std::size_t e = 0; e < edges.size(); ++e) {
      if (!(sum[edges[e].a] > 0) || !(sum[edges[e].b] > 0)) weight[e] = std::max(weight[e], tiny);
    }
  }
  offsets_.assign(n + 1, 0);
  for (const Edge& e : edges) ++offsets_[e.a + 1], ++offsets_[e.b + 1];
  for (std::size_t i = 0; i < n; ++i) offsets_[i + 1] += offsets_[i];
  columns_.resize(offsets_.back());
  weights_.resize(offsets_.back());
  std::vector<std::uint32_t> fill(offsets_.begin(), offsets_.end() - 1);
  for (std::size_t e = 0; e < edges.size(); ++e) {
    columns_[fill[edges[e].a]] = edges[e].b, weights_[fill[edges[e].a]++] = weight[e];
    columns_[fill[edges[e].b]] = edges[e].a, weights_[fill[edges[e].b]++] = weight[e];
  }
  row_sum_.assign(n, 0.0);
  diagonal_.assign(n, 1.0);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::uint32_t k = offsets_[i]; k < offsets_[i + 1]; ++k) row_sum_[i] += weights_[k];
    if (row_sum_[i] > 0) {
      diagonal_[i] = (1.0 + lambda) * row_sum_[i];
    } else {
      row_sum_[i] = 1.0;  // isolated: the row of A is the identity's
    }
  }
}

void ImplicitSmoothing::multiply(const std::vector<double>& p, std::vector<double>& q, std::size_t columns) const {
  const std::size_t n = diagonal_.size();
  for (std::size_t i = 0; i < n; ++i) {
    double* out = q.data() + i * columns;
    const double* own = p.data() + i * columns;
    for (std::size_t c = 0; c < columns; ++c) out[c] = diagonal_[i] * own[c];
    for (std::uint32_t k = offsets_[i]; k < offsets_[i + 1]; ++k) {
      const double w = -lambda_ * weights_[k];
      const double* other = p.data() + std::size_t(columns_[k]) * columns;
      for (std::size_t c = 0; c < columns; ++c) out[c] += w * other[c];
    }
  }
}

void ImplicitSmoothing::solve(std::vector<double>& y, std::size_t columns) const {
  const std::size_t n = diagonal_.size();
  if (n == 0 || columns == 0) return;
  constexpr double kTolerance = 1e-12;
  constexpr int kMaxIterations = 1000;
  // x0 = y (A is close to the identity); r = D y - D A x0. Convergence is judged on A's own
  // residual D^-1 r (rows of D can be tiny: see the constructor), relative to |y|.
  std::vector<double> r(n * columns), z(n * columns), p(n * columns), q(n * columns);
  multiply(y, q, columns);
  std::vector<double> goal(columns, 0.0), rz(columns, 0.0), pq(columns), rr(columns);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t c = 0; c < columns; ++c) {
      const double b = row_sum_[i] * y[i * columns + c];
      goal[c] += y[i * columns + c] * y[i * columns + c];
      r[i * columns + c] = b - q[i * columns + c];
      z[i * columns + c] = r[i * columns + c] / diagonal_[i];
      rz[c] += r[i * columns + c] * z[i * columns + c];
    }
  }
  for (double& g : goal) g = std::max(g * kTolerance * kTolerance, 1e-300);
  p = z;
  std::vector<std::uint8_t> done(columns, 0);
  int iteration = 0;
  for (;; ++iteration) {
    std::fill(rr.begin(), rr.end(), 0.0);
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t c = 0; c < columns; ++c) {
        const double residual = r[i * columns + c] / row_sum_[i];
        rr[c] += residual * residual;
      }
    }
    bool all = true;
    for (std::size_t c = 0; c < columns; ++c) {
      done[c] = done[c] || rr[c] <= goal[c];
      all = all && done[c];
    }
    if (all) break;
    if (iteration == kMaxIterations)
      fail_plain("ddm: the smoothing solve did not converge in {} iterations", iteration);
    multiply(p, q, columns);
    std::fill(pq.begin(), pq.end(), 0.0);
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t c = 0; c < columns; ++c) pq[c] += p[i * columns + c] * q[i * columns + c];
    }
    std::vector<double> alpha(columns, 0.0), rz_next(columns, 0.0);
    for (std::size_t c = 0; c < columns; ++c) alpha[c] = done[c] || !(pq[c] > 0) ? 0.0 : rz[c] / pq[c];
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t c = 0; c < columns; ++c) {
        const std::size_t k = i * columns + c;
        y[k] += alpha[c] * p[k];
        r[k] -= alpha[c] * q[k];
        z[k] = r[k] / diagonal_[i];
        rz_next[c] += r[k] * z[k];
      }
    }
    std::vector<double> beta(columns, 0.0);
    for (std::size_t c = 0; c < columns; ++c) beta[c] = rz[c] > 0 ? rz_next[c] / rz[c] : 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t c = 0; c < columns; ++c) p[i * columns + c] = z[i * columns + c] + beta[c] * p[i * columns + c];
    }
    rz = rz_next;
  }
  last_iterations_ = iteration;
}

}  // namespace wobble
