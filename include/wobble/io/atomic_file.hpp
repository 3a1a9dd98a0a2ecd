#pragma once
// Writes an output through a temporary sibling that is renamed into place on commit(), so that a
// failure never leaves a half-written file (or folder) behind.
#include <filesystem>

namespace wobble {

class AtomicOutput {
 public:
  // Checks that the parent folder exists and is writable; throws Error naming `target` if not.
  explicit AtomicOutput(std::filesystem::path target, bool is_directory = false);
  // The same checks alone, creating nothing: for a command to refuse an output before its work.
  static void check(const std::filesystem::path& target, bool is_directory = false);
  ~AtomicOutput();  // removes the temporary if commit() was not reached
  AtomicOutput(const AtomicOutput&) = delete;
  AtomicOutput& operator=(const AtomicOutput&) = delete;

  // Where to write (a file path, or a fresh folder when is_directory).
  const std::filesystem::path& temporary() const { return temporary_; }
  const std::filesystem::path& target() const { return target_; }
  // Moves the temporary into place, replacing any previous output.
  void commit();

 private:
  std::filesystem::path target_, temporary_;
  bool is_directory_ = false, committed_ = false;
};

}  // namespace wobble
