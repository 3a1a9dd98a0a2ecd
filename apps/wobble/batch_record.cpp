#include "batch_record.hpp"

#include <cstdint>
#include <fstream>

#include <fmt/core.h>

#include <wobble/io/output_file.hpp>
#include <wobble/error.hpp>

#include "core/fail.hpp"

namespace wobble::cli {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr std::uint64_t kFnvOffset = 14695981039346656037ull;
constexpr std::uint64_t kFnvPrime = 1099511628211ull;

std::uint64_t fnv1a(std::uint64_t hash, const char* data, std::size_t bytes) {
  for (std::size_t i = 0; i < bytes; ++i) {
    hash ^= static_cast<unsigned char>(data[i]);
    hash *= kFnvPrime;
  }
  return hash;
}

std::string hex(std::uint64_t hash) { return fmt::format("{:016x}", hash); }

std::optional<std::string> file_hash(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::nullopt;
  std::uint64_t hash = kFnvOffset;
  std::vector<char> buffer(1 << 16);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    hash = fnv1a(hash, buffer.data(), static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) return std::nullopt;
  return hex(hash);
}

// "a%20b.bin" -> "a b.bin" (glTF URIs are percent-encoded).
std::string percent_decoded(const std::string& uri) {
  std::string out;
  for (std::size_t i = 0; i < uri.size(); ++i) {
    if (uri[i] == '%' && i + 2 < uri.size() && std::isxdigit(static_cast<unsigned char>(uri[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(uri[i + 2]))) {
      out += static_cast<char>(std::stoi(uri.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += uri[i];
    }
  }
  return out;
}

// A .gltf file's external buffers and images (not data: URIs), relative to its folder.
std::vector<std::string> gltf_companions(const fs::path& gltf) {
  std::vector<std::string> files;
  std::ifstream in(gltf);
  const json document = json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!document.is_object()) return files;
  for (const char* array : {"buffers", "images"}) {
    if (!document.contains(array) || !document[array].is_array()) continue;
    for (const json& item : document[array]) {
      if (!item.is_object() || !item.contains("uri") || !item["uri"].is_string()) continue;
      const std::string uri = item["uri"].get<std::string>();
      if (uri.rfind("data:", 0) != 0) files.push_back(percent_decoded(uri));
    }
  }
  return files;
}

bool is_gltf_text(const fs::path& file) {
  std::string extension = file.extension().string();
  for (char& c : extension) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return extension == ".gltf";
}

fs::path output_stem(const BatchJob& job) {
  std::string text = job.output.string();
  while (text.size() > 1 && text.back() == '/') text.pop_back();
  return text;
}

}  // namespace

fs::path job_sidecar_path(const BatchJob& job) { return output_stem(job).string() + ".wobble-job.json"; }
fs::path job_log_path(const BatchJob& job) { return output_stem(job).string() + ".wobble-job.log"; }

std::optional<json> job_dependencies(const BatchJob& job, const json& settings) {
  json files = json::object();
  const std::optional<std::string> input = file_hash(job.input);
  if (!input) return std::nullopt;
  files[job.input.filename().string()] = *input;
  if (is_gltf_text(job.input)) {
    for (const std::string& companion : gltf_companions(job.input)) {
      const std::optional<std::string> hash = file_hash(job.input.parent_path() / companion);
      if (!hash) return std::nullopt;
      files[companion] = *hash;
    }
  }
  json options(job.options);
  options.erase("threads");
  return json{{"wobble", WOBBLE_VERSION_TEXT}, {"files", files}, {"settings", settings}, {"options", options}};
}

std::string fingerprint_of(const json& dependencies) {
  const std::string text = dependencies.dump();  // keys sorted: the same dependencies, the same text
  return hex(fnv1a(kFnvOffset, text.data(), text.size()));
}

bool job_is_up_to_date(const BatchJob& job, const std::string& fingerprint) {
  std::error_code error;
  if (!fs::exists(job.output, error)) return false;
  std::ifstream in(job_sidecar_path(job));
  if (!in) return false;
  const json sidecar = json::parse(in, nullptr, /*allow_exceptions=*/false);
  return sidecar.is_object() && sidecar.value("fingerprint", std::string()) == fingerprint;
}

void record_finished_job(const BatchJob& job, const json& dependencies, const std::string& command) {
  write_output(
      job_sidecar_path(job),
      json{{"fingerprint", fingerprint_of(dependencies)}, {"command", command}, {"depends_on", dependencies}}.dump(2) +
          "\n");
}

}  // namespace wobble::cli
