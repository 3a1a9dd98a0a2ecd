#include <wobble/regular_file.hpp>

#include <fstream>
#include <system_error>

#include <wobble/error.hpp>
#include "core/fail.hpp"

namespace wobble {

namespace fs = std::filesystem;

void require_regular_file(const fs::path& path, std::string_view what) {
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (ec || !fs::exists(status)) fail(path, "no such file");
  if (fs::is_directory(status)) fail(path, "is a folder, not {}", what);
  if (!fs::is_regular_file(status)) fail(path, "is a device or other special file, not {}", what);
}

std::vector<std::uint8_t> read_regular_file(const fs::path& path, std::string_view what, std::uint64_t max_bytes) {
  require_regular_file(path, what);
  std::error_code ec;
  const std::uintmax_t size = fs::file_size(path, ec);
  if (ec) fail(path, "cannot read its size ({})", ec.message());
  if (size > max_bytes) fail(path, "is {} bytes, more than {} allows ({} bytes)", size, what, max_bytes);
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "cannot open for reading");
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(size));
  in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (static_cast<std::uintmax_t>(in.gcount()) != size) fail(path, "read error (the file changed while being read?)");
  return bytes;
}

}  // namespace wobble
