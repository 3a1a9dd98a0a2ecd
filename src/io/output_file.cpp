#include <wobble/io/output_file.hpp>

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <unistd.h>

#include <wobble/io/atomic_file.hpp>

#include "core/fail.hpp"

namespace wobble {

OutputFile::OutputFile(std::filesystem::path file, std::filesystem::path shown)
    : file_(std::move(file)), shown_(std::move(shown)) {
  descriptor_ = ::open(file_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (descriptor_ < 0) {
    const int error = errno;
    if (file_ == shown_) fail(shown_, "cannot write: {}", std::strerror(error));
    fail(shown_, "cannot create its temporary file {}: {}", file_.string(), std::strerror(error));
  }
}

OutputFile::~OutputFile() {
  if (descriptor_ >= 0) ::close(descriptor_);
}

bool OutputFile::try_write(const void* data, std::size_t size) noexcept {
  if (error_ != 0) return false;
  const auto* bytes = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t written = ::write(descriptor_, bytes, size);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) {
      error_ = written < 0 ? errno : ENOSPC;  // a write of 0 bytes to a regular file: no room left
      return false;
    }
    bytes += written;
    size -= static_cast<std::size_t>(written);
  }
  return true;
}

void OutputFile::write(const void* data, std::size_t size) {
  if (!try_write(data, size)) fail_with_reason();
}

void OutputFile::write(std::string_view bytes) { write(bytes.data(), bytes.size()); }

void OutputFile::fail_with_reason() const { fail(shown_, "cannot write: {}", std::strerror(error_ ? error_ : EIO)); }

void OutputFile::close() {
  if (error_ != 0) fail_with_reason();
  const int descriptor = descriptor_;
  descriptor_ = -1;
  if (::close(descriptor) != 0 && errno != EINTR) {  // after EINTR the descriptor is closed all the same
    error_ = errno;
    fail_with_reason();
  }
}

void write_output(const std::filesystem::path& path, std::string_view bytes) {
  AtomicOutput output(path);
  OutputFile file(output.temporary(), output.target());
  file.write(bytes);
  file.close();
  output.commit();
}

}  // namespace wobble
