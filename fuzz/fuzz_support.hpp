#pragma once
// What every fuzz target shares: a scratch folder for inputs that readers take as files, and the
// contract checked on every input: a reader either returns or throws wobble::Error with one
// non-empty line that names the file; any other exception, a crash, a sanitizer report, a hang or
// an allocation past libFuzzer's -malloc_limit_mb is a finding.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include <spdlog/spdlog.h>

#include <wobble/error.hpp>

namespace wobble::fuzz {

// A per-process scratch folder (removed at exit).
inline const std::filesystem::path& scratch_folder() {
  static const std::filesystem::path folder = [] {
    std::string pattern = (std::filesystem::temp_directory_path() / "wobble-fuzz-XXXXXX").string();
    if (!mkdtemp(pattern.data())) std::abort();
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(scratch_folder(), ec);
    });
    return std::filesystem::path(pattern);
  }();
  return folder;
}

// Writes the input to scratch_folder()/name and returns the path.
inline std::filesystem::path input_file(const std::string& name, const std::uint8_t* data, std::size_t size) {
  const std::filesystem::path path = scratch_folder() / name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return path;
}

[[noreturn]] inline void finding(const std::string& what) {
  std::fprintf(stderr, "wobble fuzz finding: %s\n", what.c_str());
  std::abort();
}

// Runs `read`; a wobble::Error must be one line naming `named` (when not empty); anything else
// thrown is a finding.
template <typename Read>
void expect_clean(Read read, std::string_view named = {}) {
  try {
    read();
  } catch (const Error& error) {
    const std::string message = error.what();
    if (message.empty()) finding("an Error with an empty message");
    if (message.find('\n') != std::string::npos) finding("an Error of several lines: " + message);
    if (!named.empty() && message.find(named) == std::string::npos)
      finding("an Error that does not name '" + std::string(named) + "': " + message);
  } catch (const std::exception& error) {
    finding(std::string("a raw exception escaped: ") + error.what());
  } catch (...) {
    finding("a non-standard exception escaped");
  }
}

// Quiet logs (repair warnings would flood the fuzzer's output).
inline void quiet() { spdlog::set_level(spdlog::level::off); }

}  // namespace wobble::fuzz

#include <wobble/io/files.hpp>

namespace wobble::fuzz {

// The input as a file of this name through load_character, as `wobble info` reads it.
inline int load_as(const char* name, const std::uint8_t* data, std::size_t size) {
  const auto path = input_file(name, data, size);
  expect_clean([&] { load_character(path); }, path.string());
  return 0;
}

// The targets that read files through load_character share this initialiser.
#define WOBBLE_FUZZ_QUIET_LOGS                         \
  extern "C" int LLVMFuzzerInitialize(int*, char***) { \
    wobble::fuzz::quiet();                             \
    return 0;                                          \
  }

}  // namespace wobble::fuzz
