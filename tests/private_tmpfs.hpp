#pragma once
// A small file system of a test's own: a tmpfs mounted in a private mount namespace, seen by the
// calling thread and the processes it starts, gone with them. As root the thread leaves the
// machine's mount namespace; otherwise it enters a user namespace that maps it to root, where a
// tmpfs may be mounted too. Where neither is allowed, mounted() is false and why_not() says why
// (the test then skips with that message).
#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace wobble::test {

class PrivateTmpfs {
 public:
  // `bytes` of room; read_only: mounted read-only (a folder nothing can be written to, even as root).
  PrivateTmpfs(const std::filesystem::path& folder, std::size_t bytes, bool read_only = false) : path_(folder) {
    std::error_code ignored;
    std::filesystem::create_directories(path_, ignored);
    if (!enter_private_namespace()) return;
    const std::string options = "size=" + std::to_string(bytes);
    if (::mount("tmpfs", path_.c_str(), "tmpfs", read_only ? MS_RDONLY : 0, options.c_str()) != 0) {
      why_not_ = "cannot mount a tmpfs on " + path_.string() + ": " + std::strerror(errno);
      return;
    }
    mounted_ = true;
  }
  ~PrivateTmpfs() {
    if (mounted_) ::umount2(path_.c_str(), MNT_DETACH);
  }
  PrivateTmpfs(const PrivateTmpfs&) = delete;
  PrivateTmpfs& operator=(const PrivateTmpfs&) = delete;

  bool mounted() const { return mounted_; }
  const std::string& why_not() const { return why_not_; }
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

  // Fills the file system with the file "filler" until `left` bytes (whole pages) stay free.
  void fill_leaving(std::size_t left) const {
    const std::filesystem::path filler = path_ / "filler";
    const int fd = ::open(filler.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const std::vector<char> zeros(1 << 16, 0);
    std::size_t written = 0;
    for (ssize_t n; (n = ::write(fd, zeros.data(), zeros.size())) > 0;) written += static_cast<std::size_t>(n);
    const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    const std::size_t keep = written > left ? (written - left) / page * page : 0;
    [[maybe_unused]] const int truncated = ::ftruncate(fd, static_cast<off_t>(keep));
    ::close(fd);
  }
  std::size_t free_bytes() const {
    struct statvfs stats {};
    ::statvfs(path_.c_str(), &stats);
    return static_cast<std::size_t>(stats.f_bavail) * stats.f_frsize;
  }

 private:
  bool enter_private_namespace() {
    static bool entered = false;  // once per thread would do; tests run on one thread
    if (entered) return true;
    if (::geteuid() == 0) {
      if (::unshare(CLONE_NEWNS) != 0) return refuse("unshare(CLONE_NEWNS)");
    } else {
      const uid_t uid = ::geteuid();
      const gid_t gid = ::getegid();
      if (::unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) return refuse("unshare(CLONE_NEWUSER | CLONE_NEWNS), not root");
      std::ofstream("/proc/self/setgroups") << "deny";
      std::ofstream("/proc/self/uid_map") << "0 " << uid << " 1";
      std::ofstream("/proc/self/gid_map") << "0 " << gid << " 1";
    }
    if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return refuse("making / private");
    entered = true;
    return true;
  }
  bool refuse(const std::string& what) {
    why_not_ = what + " failed: " + std::strerror(errno) + " (no private tmpfs for this test)";
    return false;
  }

  std::filesystem::path path_;
  bool mounted_ = false;
  std::string why_not_;
};

}  // namespace wobble::test
