#pragma once
// Runs work that may crash, hang or allocate without bound (a third-party file parser) in a child
// process, so that whatever happens there, wobble itself carries on and names the file.
//
// The child is a fork of this process: `work` runs there and returns bytes, which come back over
// a pipe. A signal in the child, a time-out or a memory ceiling it hits become an Error
// "FILE: WHAT failed (signal 11, segmentation fault)" in the caller; an Error thrown by `work`
// comes back with its own message.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

namespace wobble {

struct IsolationLimits {
  double seconds = 300;            // wall-clock time before the child is killed
  std::uint64_t memory_bytes = 0;  // address space the child may add (0: no limit)
};

// The limits for importing a file of `file_bytes`: WOBBLE_IMPORT_SECONDS (default 300) and
// 256 MiB + 2 x the read allocation ceiling (read_limits.hpp) of added address space.
IsolationLimits import_limits(std::uint64_t file_bytes);

// Runs `work` in a child process and returns what it returned. `what` names the work in messages
// ("the assimp X importer"), `file` the file they are about.
std::string run_isolated(const std::function<std::string()>& work, const IsolationLimits& limits,
                         const std::string& what, const std::filesystem::path& file);

}  // namespace wobble
