#include <wobble/io/atomic_file.hpp>

#include <random>
#include <unistd.h>

#include <wobble/error.hpp>

#include "core/fail.hpp"

namespace wobble {

namespace fs = std::filesystem;

AtomicOutput::AtomicOutput(fs::path target, bool is_directory) : target_(std::move(target)), is_directory_(is_directory) {
  if (target_.filename().empty()) target_ = target_.parent_path();  // "out/" names the folder "out"
  fs::path parent = target_.parent_path();
  if (parent.empty()) parent = ".";
  std::error_code error;
  if (!fs::is_directory(parent, error)) fail(target_, "cannot write: folder {} does not exist", parent.string());
  if (access(parent.c_str(), W_OK) != 0) fail(target_, "cannot write: folder {} is not writable", parent.string());
  if (fs::is_directory(target_, error) && !is_directory_) fail(target_, "cannot write: it is a folder");
  std::random_device device;
  temporary_ = parent / ("." + target_.filename().string() + ".tmp-" + std::to_string(device() % 1000000));
  if (is_directory_) {
    fs::create_directory(temporary_, error);
    if (error) fail(target_, "cannot create a temporary folder: {}", error.message());
  }
}

AtomicOutput::~AtomicOutput() {
  if (!committed_) {
    std::error_code ignored;
    fs::remove_all(temporary_, ignored);
  }
}

void AtomicOutput::commit() {
  std::error_code error;
  if (is_directory_ && fs::exists(target_, error)) fs::remove_all(target_, error);
  fs::rename(temporary_, target_, error);
  if (error) fail(target_, "cannot move the finished output into place: {}", error.message());
  committed_ = true;
}

}  // namespace wobble
