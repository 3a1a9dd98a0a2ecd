#pragma once
// Reading a whole file that people named (a character, a settings or scene file): only regular
// files, never more than a stated size, so that a folder, a device such as /dev/zero or a FIFO
// named by mistake is an error naming it, not a hang or a runaway allocation.
#include <cstdint>
#include <filesystem>
#include <string_view>
#include <vector>

namespace wobble {

// The whole content of a regular file. Folders, devices, FIFOs and sockets are refused by name
// ("FILE: is a folder, not WHAT"), as are files larger than `max_bytes`.
std::vector<std::uint8_t> read_regular_file(const std::filesystem::path& path, std::string_view what,
                                            std::uint64_t max_bytes = std::uint64_t(1) << 36);

// Throws Error naming `path` unless it names an existing regular file ("no such file", "is a
// folder", "is a device or other special file").
void require_regular_file(const std::filesystem::path& path, std::string_view what);

}  // namespace wobble
