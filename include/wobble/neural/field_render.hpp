#pragma once
// Skinning fields as colours on a mesh (as in the paper's figures), software-rasterised to PNG:
// a row of panels, first the blend of all fields (one hue per field, weighted by W_i^2), then one
// panel per field on a diverging blue-white-red scale of W_i / max|W_i|.
#include <filesystem>

#include <Eigen/Core>

#include <wobble/mesh.hpp>

namespace wobble::neural {

// `mesh` in the normalised frame; W: one row per vertex. `skip_columns` leading columns (the
// constant one) are left out of the picture. Throws Error naming the file on failure.
void render_fields_png(const std::filesystem::path& file, const Mesh& mesh, const Eigen::MatrixXd& W, int skip_columns,
                       int panel_size = 256);

}  // namespace wobble::neural
