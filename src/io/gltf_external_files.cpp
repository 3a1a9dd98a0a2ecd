#include "gltf_external_files.hpp"

#include <fstream>
#include <system_error>

namespace wobble {

namespace fs = std::filesystem;

namespace {

// Shows a path in a message: printable characters only, NUL bytes as \0.
std::string shown(const std::string& text) {
  std::string out;
  for (char c : text.substr(0, 200)) {
    if (c == '\0')
      out += "\\0";
    else if (static_cast<unsigned char>(c) < 32 || static_cast<unsigned char>(c) > 126)
      out += '?';
    else
      out += c;
  }
  return text.size() > 200 ? out + "..." : out;
}

// True if `inner` is `outer` or lies below it (both canonical).
bool is_within(const fs::path& inner, const fs::path& outer) {
  auto i = inner.begin();
  for (auto o = outer.begin(); o != outer.end(); ++o, ++i) {
    if (i == inner.end() || *i != *o) return false;
  }
  return true;
}

}  // namespace

GltfExternalFiles::GltfExternalFiles(const fs::path& folder, ReadBudget& budget) : budget_(budget) {
  std::error_code ec;
  folder_ = fs::weakly_canonical(fs::absolute(folder, ec), ec);
}

tinygltf::FsCallbacks GltfExternalFiles::callbacks() {
  tinygltf::FsCallbacks callbacks{};
  callbacks.FileExists = &GltfExternalFiles::exists;
  callbacks.ExpandFilePath = &GltfExternalFiles::expand;
  callbacks.ReadWholeFile = &GltfExternalFiles::read;
  callbacks.WriteWholeFile = &GltfExternalFiles::write;
  callbacks.user_data = this;
  return callbacks;
}

std::string GltfExternalFiles::check(const std::string& path) const {
  if (path.find('\0') != std::string::npos) return "holds a NUL byte";
  std::error_code ec;
  const fs::path resolved = fs::weakly_canonical(fs::absolute(path, ec), ec);
  if (ec) return "cannot be resolved (" + ec.message() + ")";
  if (!is_within(resolved, folder_)) return "leads outside the glTF file's folder";
  const fs::file_status status = fs::status(resolved, ec);
  if (ec || !fs::exists(status)) return {};  // missing: tinygltf says "file not found"
  if (fs::is_directory(status)) return "is a folder";
  if (!fs::is_regular_file(status)) return "is a device or other special file";
  return {};
}

void GltfExternalFiles::refuse(const std::string& path, const std::string& reason) {
  if (!refusal_.empty()) return;
  std::string uri = path;
  const std::string prefix = folder_.string() + "/";
  if (uri.rfind(prefix, 0) == 0) uri = uri.substr(prefix.size());
  refusal_ = "URI '" + shown(uri) + "' " + reason + ": a glTF may only refer to regular files in its own folder";
}

bool GltfExternalFiles::exists(const std::string& path, void* self) {
  auto* files = static_cast<GltfExternalFiles*>(self);
  // tinygltf also tries the URI relative to the working directory: only the glTF's folder counts.
  if (!fs::path(path).is_absolute()) return false;
  if (const std::string reason = files->check(path); !reason.empty()) {
    files->refuse(path, reason);
    return false;
  }
  std::error_code ec;
  return fs::is_regular_file(path, ec);
}

std::string GltfExternalFiles::expand(const std::string& path, void*) { return path; }

bool GltfExternalFiles::read(std::vector<unsigned char>* out, std::string* error, const std::string& path, void* self) {
  auto* files = static_cast<GltfExternalFiles*>(self);
  if (const std::string reason = files->check(path); !reason.empty()) {
    files->refuse(path, reason);
    if (error) *error = reason;
    return false;
  }
  std::error_code ec;
  const std::uintmax_t size = fs::file_size(path, ec);
  if (ec) {
    if (error) *error = ec.message();
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  out->resize(static_cast<std::size_t>(size));
  in.read(reinterpret_cast<char*>(out->data()), static_cast<std::streamsize>(out->size()));
  if (!in || static_cast<std::uintmax_t>(in.gcount()) != size) {
    if (error) *error = "read error";
    return false;
  }
  files->budget_.add_source_bytes(size);
  return true;
}

bool GltfExternalFiles::write(std::string* error, const std::string&, const std::vector<unsigned char>&, void*) {
  if (error) *error = "reading a glTF never writes files";
  return false;
}

}  // namespace wobble
