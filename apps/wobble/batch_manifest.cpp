#include "batch_manifest.hpp"

#include <wobble/parse.hpp>

#include <algorithm>
#include <optional>

#include <wobble/error.hpp>

#include "core/json_values.hpp"

#include "batch_bake_options.hpp"
#include "batch_csv.hpp"
#include "core/fail.hpp"

namespace wobble::cli {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// A job's keys as read from one place (the defaults, a job, a CSV row), before merging.
struct JobFields {
  std::optional<std::string> input, output, name;
  std::map<std::string, std::optional<std::string>> options;  // nullopt: a switch set to false
  std::vector<SettingsSource> settings;
};

enum class Place { Defaults, Job };

std::vector<std::string> valid_keys(Place place) {
  std::vector<std::string> keys = {"input", "settings"};
  if (place == Place::Job) keys.insert(keys.end(), {"output", "name"});
  for (const BakeOption& option : bake_options_for_manifests()) keys.push_back(option.key);
  return keys;
}

[[noreturn]] void unknown_key(const fs::path& manifest, const std::string& where, const std::string& key, Place place) {
  if (is_deformer_parameter_flag(key)) {
    fail(manifest, "{}: '{}' is a deformer parameter: give it in \"settings\", in its deformer's section", where, key);
  }
  if (place == Place::Defaults && (key == "output" || key == "name")) {
    fail(manifest, "{}: '{}' belongs to each job, not to the defaults", where, key);
  }
  fail(manifest, "{}: unknown key '{}' (the closest valid key is '{}')", where, key,
       closest_name(key, valid_keys(place)));
}

// Relative to the manifest's folder, made absolute: the report and the logs name files that any
// worker can find from any folder.
fs::path resolve(const fs::path& manifest, const std::string& text) {
  const fs::path path(text);
  return path.is_absolute() ? path : fs::absolute(manifest).parent_path() / path;
}

std::string text_value(const fs::path& manifest, const std::string& what, const json& value) {
  if (!value.is_string() || value.get<std::string>().empty()) {
    fail(manifest, "{}: expected a non-empty string, got {}", what, describe_json(value));
  }
  return value.get<std::string>();
}

void read_json_field(JobFields& fields, const std::string& key, const json& value, const std::string& what,
                     const fs::path& manifest) {
  if (key == "input") {
    fields.input = text_value(manifest, what, value);
  } else if (key == "output") {
    fields.output = text_value(manifest, what, value);
  } else if (key == "name") {
    fields.name = text_value(manifest, what, value);
  } else if (key == "settings") {
    if (value.is_object()) {
      fields.settings.push_back({value, {}});
    } else if (value.is_string() && !value.get<std::string>().empty()) {
      fields.settings.push_back({json::object(), resolve(manifest, value.get<std::string>())});
    } else {
      fail(manifest, "{}: expected an object (one section per deformer) or a settings file path, got {}", what,
           describe_json(value));
    }
  } else {
    try {
      fields.options[find_bake_option(key)->flag] = bake_option_text(*find_bake_option(key), value, what);
    } catch (const Error& error) {
      fail(manifest, "{}", error.what());
    }
  }
}

JobFields read_json_fields(const json& object, const std::string& where, Place place, const fs::path& manifest) {
  if (!object.is_object()) fail(manifest, "{}: expected an object, got {}", where, describe_json(object));
  const std::vector<std::string> keys = valid_keys(place);
  JobFields fields;
  for (const auto& [key, value] : object.items()) {
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) unknown_key(manifest, where, key, place);
    read_json_field(fields, key, value, where + "." + key, manifest);
  }
  return fields;
}

JobFields read_csv_field(JobFields fields, const std::string& key, const std::string& cell, const std::string& what,
                         const fs::path& manifest) {
  if (cell.empty()) return fields;
  if (key == "settings" && cell.front() == '{') {
    try {
      fields.settings.push_back({json::parse(cell), {}});
    } catch (const json::exception& error) {
      fail(manifest, "{}: not valid JSON: {}", what, error.what());
    }
    if (!fields.settings.back().object.is_object()) fail(manifest, "{}: expected a JSON object", what);
  } else if (key == "input" || key == "output" || key == "name" || key == "settings") {
    read_json_field(fields, key, json(cell), what, manifest);
  } else {
    try {
      fields.options[find_bake_option(key)->flag] = bake_option_text(*find_bake_option(key), cell, what);
    } catch (const Error& error) {
      fail(manifest, "{}", error.what());
    }
  }
  return fields;
}

// The job from the defaults and the job's own fields (which win; settings are layered).
BatchJob merge(const JobFields& defaults, const JobFields& own, std::size_t index, const std::string& where,
               const fs::path& manifest) {
  const std::optional<std::string> input = own.input ? own.input : defaults.input;
  if (!input) fail(manifest, "{}: no \"input\" (every job needs an input and an output)", where);
  if (!own.output) fail(manifest, "{}: no \"output\" (every job needs an input and an output)", where);
  BatchJob job;
  job.index = index;
  job.name = own.name.value_or(*own.output);
  job.input = resolve(manifest, *input);
  job.output = resolve(manifest, *own.output);
  std::map<std::string, std::optional<std::string>> options = defaults.options;
  for (const auto& [flag, text] : own.options) options[flag] = text;
  for (const auto& [flag, text] : options) {
    if (text) job.options[flag] = *text;
  }
  job.settings = defaults.settings;
  job.settings.insert(job.settings.end(), own.settings.begin(), own.settings.end());
  return job;
}

// "out/a.pc2" and "out/./a.pc2", "out/frames/" and "out/frames": the same output.
std::string output_identity(const fs::path& output) {
  std::string text = fs::absolute(output).lexically_normal().string();
  while (text.size() > 1 && text.back() == '/') text.pop_back();
  return text;
}

void check_distinct_outputs(const Manifest& manifest, const std::string& item) {
  std::map<std::string, std::size_t> first_job;
  for (const BatchJob& job : manifest.jobs) {
    const auto [it, fresh] = first_job.emplace(output_identity(job.output), job.index);
    if (!fresh) {
      fail(manifest.path, "{}[{}].output: the same output as {}[{}] ({})", item, job.index, item, it->second,
           job.output.string());
    }
  }
}

Manifest read_json_manifest(const fs::path& path) {
  json document = read_json_file(path, "manifest");
  if (!document.is_object()) fail(path, "expected an object {{\"defaults\": {{...}}, \"jobs\": [...]}}");
  for (const auto& [key, value] : document.items()) {
    if (key != "defaults" && key != "jobs") {
      fail(path, "unknown key '{}' (the closest valid key is '{}')", key,
           closest_name(key, std::vector<std::string>{"defaults", "jobs"}));
    }
  }
  if (!document.contains("jobs")) fail(path, "no \"jobs\" (a list of jobs, each what `wobble bake` takes)");
  const json& jobs = document["jobs"];
  if (!jobs.is_array() || jobs.empty())
    fail(path, "jobs: expected a non-empty list of jobs, got {}", describe_json(jobs));
  const JobFields defaults = document.contains("defaults")
                                 ? read_json_fields(document["defaults"], "defaults", Place::Defaults, path)
                                 : JobFields{};
  Manifest manifest{path, {}};
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const std::string where = "jobs[" + std::to_string(i) + "]";
    manifest.jobs.push_back(merge(defaults, read_json_fields(jobs[i], where, Place::Job, path), i, where, path));
  }
  check_distinct_outputs(manifest, "jobs");
  return manifest;
}

Manifest read_csv_manifest(const fs::path& path) {
  const std::vector<CsvRow> rows = read_csv(path);
  if (rows.size() < 2) fail(path, "expected a header row of keys and at least one job");
  const std::vector<std::string> keys = valid_keys(Place::Job);
  const std::vector<std::string>& header = rows[0].cells;
  for (const std::string& key : header) {
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) unknown_key(path, "header", key, Place::Job);
    if (std::count(header.begin(), header.end(), key) > 1) fail(path, "header: the column '{}' appears twice", key);
  }
  Manifest manifest{path, {}};
  for (std::size_t r = 1; r < rows.size(); ++r) {
    const CsvRow& row = rows[r];
    const std::string where = "line " + std::to_string(row.line);
    if (row.cells.size() != header.size()) {
      fail(path, "{}: {} cells, but the header has {} columns", where, row.cells.size(), header.size());
    }
    JobFields fields;
    for (std::size_t c = 0; c < header.size(); ++c) {
      fields = read_csv_field(std::move(fields), header[c], row.cells[c], where + ": " + header[c], path);
    }
    manifest.jobs.push_back(merge(JobFields{}, fields, r - 1, where, path));
  }
  check_distinct_outputs(manifest, "jobs");
  return manifest;
}

}  // namespace

Manifest read_manifest(const fs::path& path) {
  std::string extension = path.extension().string();
  for (char& c : extension) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (extension == ".json") return read_json_manifest(path);
  if (extension == ".csv") return read_csv_manifest(path);
  fail(path, "unknown manifest type '{}' (use .json, or .csv with the same keys as columns)", extension);
}

}  // namespace wobble::cli
