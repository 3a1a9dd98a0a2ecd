// .npy writer (NumPy format spec: magic, version 1.0, little-endian header length, a Python dict
// literal padded with spaces and ending in a newline, then the raw data).
#include <wobble/neural/npy_writer.hpp>

#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <wobble/io/atomic_file.hpp>
#include <wobble/io/output_file.hpp>
#include <wobble/error.hpp>

#include "core/fail.hpp"

namespace wobble::neural {

void write_npy(const std::filesystem::path& file, const Eigen::MatrixXd& values) {
  static_assert(std::endian::native == std::endian::little, "the .npy writer assumes a little-endian machine");
  std::string header =
      fmt::format("{{'descr': '<f4', 'fortran_order': False, 'shape': ({}, {}), }}", values.rows(), values.cols());
  const std::size_t unpadded = 10 + header.size() + 1;  // magic (6) + version (2) + length (2) + header + '\n'
  header.append((64 - unpadded % 64) % 64, ' ');
  header.push_back('\n');
  const auto length = static_cast<std::uint16_t>(header.size());
  std::vector<float> data(static_cast<std::size_t>(values.size()));
  for (Eigen::Index r = 0; r < values.rows(); ++r)
    for (Eigen::Index c = 0; c < values.cols(); ++c)
      data[static_cast<std::size_t>(r * values.cols() + c)] = static_cast<float>(values(r, c));
  AtomicOutput out(file);
  OutputFile f(out.temporary(), out.target());
  f.write("\x93NUMPY\x01\x00", 8);
  const char length_bytes[2] = {static_cast<char>(length & 0xff), static_cast<char>(length >> 8)};
  f.write(length_bytes, 2);
  f.write(header);
  f.write(data.data(), data.size() * sizeof(float));
  f.close();
  out.commit();
}

}  // namespace wobble::neural
