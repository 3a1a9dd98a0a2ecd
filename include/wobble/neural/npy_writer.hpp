#pragma once
// A minimal writer of NumPy .npy files (format version 1.0): a 2-D float32 array, little-endian,
// C order, with the header padded so that the data starts on a 64-byte boundary.
#include <filesystem>

#include <Eigen/Core>

namespace wobble::neural {

// Writes `values` (rows x columns) atomically; throws Error naming the file on failure.
void write_npy(const std::filesystem::path& file, const Eigen::MatrixXd& values);

}  // namespace wobble::neural
