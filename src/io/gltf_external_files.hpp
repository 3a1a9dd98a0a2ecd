#pragma once
// Which files a glTF may make wobble read: its external buffers and images must be regular files
// inside the glTF's own folder (or below it). A URI that names a folder, a device, holds a NUL
// byte or leads outside the folder (through "..", an absolute path or a symbolic link) is refused,
// and the reason is kept so that the reader can name it instead of tinygltf's "file not found".
#include <filesystem>
#include <string>

#include <tiny_gltf.h>

#include <wobble/io/read_limits.hpp>

namespace wobble {

class GltfExternalFiles {
 public:
  // `folder`: the glTF's folder; every byte read is counted towards `budget`'s file size.
  GltfExternalFiles(const std::filesystem::path& folder, ReadBudget& budget);
  // Callbacks for tinygltf::TinyGLTF::SetFsCallbacks (they point at this object).
  tinygltf::FsCallbacks callbacks();
  // The first refusal ("buffer URI 'x' ... is a folder"), empty if none.
  const std::string& refusal() const { return refusal_; }

 private:
  static bool exists(const std::string& path, void* self);
  static std::string expand(const std::string& path, void* self);
  static bool read(std::vector<unsigned char>* out, std::string* error, const std::string& path, void* self);
  static bool write(std::string* error, const std::string& path, const std::vector<unsigned char>& bytes, void* self);
  // Empty if `path` may be read, otherwise why not.
  std::string check(const std::string& path) const;
  void refuse(const std::string& path, const std::string& reason);

  std::filesystem::path folder_;  // canonical
  ReadBudget& budget_;
  std::string refusal_;
};

}  // namespace wobble
