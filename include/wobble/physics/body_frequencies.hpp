#pragma once
// Vibration frequencies of a body exactly as the runtime simulates it (dynamics.hpp): its
// subspace, cubature points and volumes, the pins' modulation and its material, linearised at
// rest. K_r = sum_p V_p G_p^T C G_p with G_p = dF(X_p)/dz and C = d2psi/dF2 at F = I (the linear
// model and the stable Neo-Hookean agree there), against the body's reduced mass I3 (x) M;
// frequencies sqrt(lambda) / (2 pi) of K_r z = lambda M_r z. How stiff and how heavy a shape is
// in simulation, whatever its subspace came from (a mesh, a point cloud, a model).
#include <Eigen/Core>

#include <wobble/physics/dynamics.hpp>

namespace wobble::physics {

// The `count` lowest frequencies (Hz), lowest first; NaN past the body's degrees of freedom.
// A free body's first six are (near) zero: its rigid motions.
Eigen::VectorXd body_frequencies(const Body& body, int count);

}  // namespace wobble::physics
