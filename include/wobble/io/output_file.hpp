#pragma once
// Writing an output's bytes with the system's calls, so that a failure says what the system said
// (errno: "out.pc2: cannot write: No space left on device") instead of a stream's bare failbit,
// and names the output the user asked for rather than its temporary sibling.
#include <cstddef>
#include <filesystem>
#include <string_view>

namespace wobble {

class OutputFile {
 public:
  // Creates or truncates `file`; errors name `shown` (the output, when `file` is its temporary).
  OutputFile(std::filesystem::path file, std::filesystem::path shown);
  ~OutputFile();  // closes without checking: only reached on an error path or after close()
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // All of the bytes, or Error("SHOWN: cannot write: REASON").
  void write(std::string_view bytes);
  void write(const void* data, std::size_t size);
  // For callbacks that must not throw (a library's writer function): false on failure, the
  // reason kept for fail_with_reason().
  bool try_write(const void* data, std::size_t size) noexcept;
  // Error("SHOWN: cannot write: REASON") with the first failure's reason.
  [[noreturn]] void fail_with_reason() const;
  bool failed() const { return error_ != 0; }
  // Closes the file; a failure the system reports only now (a deferred write) throws as write().
  void close();

 private:
  std::filesystem::path file_, shown_;
  int descriptor_ = -1;
  int error_ = 0;  // errno of the first failure
};

// `bytes` as the whole of `path`: written to a temporary sibling and renamed into place
// (AtomicOutput), so that a failure leaves the previous file intact and nothing else.
void write_output(const std::filesystem::path& path, std::string_view bytes);

}  // namespace wobble
