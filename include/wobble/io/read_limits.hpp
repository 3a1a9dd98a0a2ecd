#pragma once
// What reading one file may cost: a file that claims more data than it holds is refused by name
// before anything is allocated, never by the machine running out of memory.
//
// The ceiling. Reading a file of S bytes (a .gltf counts its external buffers and images) may make
// a reader allocate at most
//     64 MiB + 32 x S
// for the data the file describes (decoded accessors, meshes, clips, point caches). Real files
// stay far below it: decoding a glTF accessor costs at most 8 bytes per stored byte, and the same
// data is rarely referenced more than a few times. The environment variable WOBBLE_READ_FACTOR
// replaces the factor 32 (a real number >= 1, read strictly), for files that legitimately
// reference one buffer from very many meshes or nodes.
#include <cstdint>
#include <filesystem>
#include <string_view>

#include <wobble/regular_file.hpp>  // what every reader that charges a budget reads its file with

namespace wobble {

// 64 MiB + factor x file_bytes, the factor from WOBBLE_READ_FACTOR (default 32). Throws Error
// naming the variable if it is set to anything but a number >= 1.
std::uint64_t read_allocation_ceiling(std::uint64_t file_bytes);

// The running total of what one reader allocated for one file, against the ceiling.
class ReadBudget {
 public:
  ReadBudget(std::filesystem::path file, std::uint64_t file_bytes);
  // Counts an external buffer or image towards the file's size S.
  void add_source_bytes(std::uint64_t bytes);
  // Charges `bytes` that the reader is about to allocate for `what`; throws Error
  // ("FILE: WHAT needs N MiB, more than reading this file may allocate (...)") when the total
  // would pass the ceiling.
  void charge(std::uint64_t bytes, std::string_view what);
  // `count` elements of `element_bytes` each, with the product checked for overflow.
  void charge(std::uint64_t count, std::uint64_t element_bytes, std::string_view what);
  std::uint64_t used() const { return used_; }
  std::uint64_t ceiling() const;

 private:
  std::filesystem::path file_;
  std::uint64_t source_bytes_ = 0;
  std::uint64_t used_ = 0;
};

}  // namespace wobble
