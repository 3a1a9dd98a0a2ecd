#pragma once
// Dirichlet regions (PhysSkin++ eq. 12): phi_D = X + g(X) + d(X) sum_i W_i Z_i [X; 1], where d is
// 0 on the fixed region and 1 away from it. Here d(X) = smoothstep(distance(X, region) / blend):
// exactly 0 on the region (pinned points never move, whatever z is), C1, with a gradient that
// carries the pin into the deformation gradient of nearby points. g(X) = (1 - d(X)) v t moves the
// region rigidly at a prescribed velocity v (zero: fixed).
//
// Predicates are written over normalised rest coordinates x, y, z, e.g. "y>0.8",
// "x<-0.9 || x>0.9", "y>0.5 && abs(x)<0.2", "box(-1,0.8,-1,1,1,1)" (min corner, max corner).
#include <functional>
#include <span>
#include <string>
#include <vector>

#include <Eigen/Core>

#include <wobble/math.hpp>

namespace wobble::physics {

using Predicate = std::function<bool(const Vec3d&)>;

// Throws Error naming the text and the position of the problem.
Predicate parse_predicate(const std::string& text);

class DirichletRegion {
 public:
  DirichletRegion() = default;  // empty: nothing pinned, d = 1 everywhere
  // `inside` decides membership; `anchors` are the points known to be in the region (the sample
  // points and vertices that satisfy it), used for the distance away from it.
  DirichletRegion(Predicate inside, std::vector<Vec3d> anchors, double blend);
  bool empty() const { return anchors_.empty(); }
  // d(X) and its gradient.
  double modulation(const Vec3d& X, Vec3d* gradient) const;
  bool contains(const Vec3d& X) const { return !empty() && inside_(X); }

 private:
  Predicate inside_;
  std::vector<Vec3d> anchors_;
  double blend_ = 0.2;
};

}  // namespace wobble::physics
