// The training configuration's file (include/wobble/neural/training.hpp): JSON to
// TrainingConfig with every key checked, and the record of a run that a checkpoint carries so
// that --resume can tell a different run from the same one.
#include "training_config.hpp"

#include <algorithm>
#include <fstream>
#include <string_view>
#include <variant>

#include <fmt/format.h>

#include <wobble/error.hpp>
#include <wobble/io/files.hpp>

#include "core/fail.hpp"
#include "network.hpp"

namespace wobble::neural {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

template <typename T>
void read(const json& j, const char* key, T& value, const fs::path& source) {
  if (!j.contains(key)) return;
  try {
    value = j.at(key).get<T>();
  } catch (const json::exception&) {
    fail(source, "'{}' has the wrong type", key);
  }
}

void reject_unknown(const json& j, const std::vector<const char*>& keys, const fs::path& source, const char* section) {
  for (const auto& [key, value] : j.items()) {
    bool known = false;
    for (const char* k : keys) known = known || key == k;
    if (!known) fail(source, "unknown key '{}' in {}", key, section);
  }
}

// A key of a configuration section and the member it fills: a section lists its keys once, in
// the order they are read, for both the unknown-key check and the reads.
template <typename Owner>
struct Key {
  const char* name;
  std::variant<bool Owner::*, int Owner::*, double Owner::*, std::uint64_t Owner::*> member;
};

template <typename Owner>
std::vector<const char*> names_of(const std::vector<Key<Owner>>& keys, std::initializer_list<const char*> more = {}) {
  std::vector<const char*> names;
  for (const Key<Owner>& k : keys) names.push_back(k.name);
  names.insert(names.end(), more);
  return names;
}

template <typename Owner>
void read_keys(const json& j, const std::vector<Key<Owner>>& keys, Owner& owner, const fs::path& source) {
  for (const Key<Owner>& k : keys) std::visit([&](auto member) { read(j, k.name, owner.*member, source); }, k.member);
}

// The values of `keys` as a JSON object, but those named in `skip`.
template <typename Owner>
json written_keys(const std::vector<Key<Owner>>& keys, const Owner& owner,
                  std::initializer_list<const char*> skip = {}) {
  json out = json::object();
  for (const Key<Owner>& k : keys)
    if (std::none_of(skip.begin(), skip.end(), [&](const char* s) { return std::string_view(s) == k.name; }))
      std::visit([&](auto member) { out[k.name] = owner.*member; }, k.member);
  return out;
}

const std::vector<Key<LossOptions>>& loss_keys() {
  using O = LossOptions;
  static const std::vector<Key<O>> keys{{"smooth", &O::smooth},
                                        {"potential", &O::potential},
                                        {"orthogonality", &O::orthogonality},
                                        {"normalize", &O::normalize},
                                        {"config", &O::config},
                                        {"weight_smooth", &O::weight_smooth},
                                        {"weight_potential", &O::weight_potential},
                                        {"weight_orthogonality", &O::weight_orthogonality},
                                        {"weight_complementarity", &O::weight_complementarity},
                                        {"youngs_modulus", &O::youngs_modulus},
                                        {"poisson_ratio", &O::poisson_ratio},
                                        {"blend_fraction", &O::blend_fraction},
                                        {"autograd_gradients", &O::autograd_gradients},
                                        {"difference_step", &O::difference_step},
                                        {"orthogonality_penalty", &O::orthogonality_penalty},
                                        {"kept_subspace", &O::kept_subspace},
                                        {"eigen_span", &O::eigen_span},
                                        {"weight_eigen_span", &O::weight_eigen_span},
                                        {"eigen_span_grid", &O::eigen_span_grid},
                                        {"compliance", &O::compliance},
                                        {"weight_compliance", &O::weight_compliance},
                                        {"compliance_pokes", &O::compliance_pokes}};
  return keys;
}

const std::vector<Key<TrainingConfig>>& config_keys() {
  using C = TrainingConfig;
  static const std::vector<Key<C>> keys{{"seed", &C::seed},
                                        {"steps", &C::steps},
                                        {"learning_rate", &C::learning_rate},
                                        {"min_learning_rate", &C::min_learning_rate},
                                        {"warmup", &C::warmup},
                                        {"batch_points", &C::batch_points},
                                        {"z_samples", &C::z_samples},
                                        {"z_sigma", &C::z_sigma},
                                        {"shapes_per_step", &C::shapes_per_step},
                                        {"checkpoint_every", &C::checkpoint_every},
                                        {"log_every", &C::log_every},
                                        {"validate_every", &C::validate_every},
                                        {"distributed_timeout", &C::distributed_timeout}};
  return keys;
}

// The data section's keys: those of the configuration itself and those of its sample options
// (the real meshes' lists and the corpus file are read as paths, read_real_meshes).
const std::vector<Key<TrainingConfig>>& data_keys() {
  using C = TrainingConfig;
  static const std::vector<Key<C>> keys{
      {"procedural_shapes", &C::procedural_shapes}, {"validation_procedural", &C::validation_procedural},
      {"real_fraction", &C::real_fraction},         {"augment_rotation", &C::augment_rotation},
      {"augment_scaling", &C::augment_scaling},     {"resample_points", &C::resample_points}};
  return keys;
}
const std::vector<Key<fields::ShapeSampleOptions>>& sample_keys() {
  using S = fields::ShapeSampleOptions;
  static const std::vector<Key<S>> keys{{"surface_points", &S::surface_points},
                                        {"cubature_points", &S::cubature_points},
                                        {"grid_resolution", &S::grid_resolution}};
  return keys;
}

// A file as the same text however the configuration was named (relative, absolute, through links).
std::string path_name(const fs::path& path) {
  std::error_code error;
  const fs::path canonical = fs::weakly_canonical(path, error);
  return (error ? fs::absolute(path).lexically_normal() : canonical).string();
}

std::vector<std::string> path_names(const std::vector<fs::path>& paths) {
  std::vector<std::string> names;
  for (const fs::path& p : paths) names.push_back(path_name(p));
  return names;
}

json read_json_file(const fs::path& file, const char* what) {
  std::ifstream in(file);
  if (!in) fail(file, "cannot open the {}", what);
  json j;
  try {
    in >> j;
  } catch (const json::exception& e) {
    fail(file, "invalid JSON ({})", e.what());
  }
  return j;
}

// A path in the configuration, relative to `base` (the configuration's folder); unchanged when absent.
void read_relative_path(const json& j, const char* key, const fs::path& base, fs::path& path, const fs::path& source) {
  if (!j.contains(key)) return;
  std::string name;
  read(j, key, name, source);
  path = base / name;
}

// A list of paths relative to `base`, appended to `paths`.
void read_relative_paths(const json& j, const char* key, const fs::path& base, std::vector<fs::path>& paths,
                         const fs::path& source) {
  std::vector<std::string> names;
  read(j, key, names, source);
  for (const auto& f : names) paths.push_back(base / f);
}

// A corpus file: {"train": [...], "validation": [...]} (paths relative to it, or absolute).
void read_corpus(const fs::path& file, std::vector<fs::path>& train, std::vector<fs::path>& validation) {
  const json j = read_json_file(file, "corpus");
  if (!j.is_object()) fail(file, "a corpus must be a JSON object");
  reject_unknown(j, {"train", "validation", "comment"}, file, "the corpus");
  read_relative_paths(j, "train", file.parent_path(), train, file);
  read_relative_paths(j, "validation", file.parent_path(), validation, file);
}

// A section of the configuration ('losses', 'data'): an object with none but the given keys.
const json& checked_section(const json& section, const char* name, const std::vector<const char*>& keys,
                            const fs::path& source) {
  if (!section.is_object()) fail(source, "'{}' must be an object", name);
  reject_unknown(section, keys, source, fmt::format("'{}'", name).c_str());
  return section;
}

LossOptions read_losses(const json& section, const fs::path& source) {
  LossOptions o;
  read_keys(checked_section(section, "losses", names_of(loss_keys()), source), loss_keys(), o, source);
  if (!(o.difference_step > 0 && o.difference_step < 0.1)) fail(source, "losses.difference_step must be in (0, 0.1)");
  if (!(o.youngs_modulus > 0) || !(o.poisson_ratio >= 0 && o.poisson_ratio < 0.5))
    fail(source, "losses need youngs_modulus > 0 and 0 <= poisson_ratio < 0.5");
  return o;
}

// The real meshes of 'data' (its lists, then the corpus file's), none both training and validation.
void read_real_meshes(const json& d, const fs::path& base, const fs::path& source, TrainingConfig& c) {
  read_relative_paths(d, "real_train", base, c.real_train, source);
  read_relative_paths(d, "real_validation", base, c.real_validation, source);
  if (d.contains("corpus")) {
    std::string corpus;
    read(d, "corpus", corpus, source);
    read_corpus(base / corpus, c.real_train, c.real_validation);
  }
  for (const fs::path& f : c.real_validation)
    for (const fs::path& t : c.real_train)
      if (fs::weakly_canonical(f) == fs::weakly_canonical(t))
        fail(source, "'{}' is both a training and a validation mesh", f.string());
}

void read_data(const json& section, const fs::path& base, const fs::path& source, TrainingConfig& c) {
  std::vector<const char*> names = names_of(data_keys(), {"real_train", "real_validation", "corpus"});
  for (const char* name : names_of(sample_keys())) names.push_back(name);
  const json& d = checked_section(section, "data", names, source);
  read_keys(d, data_keys(), c, source);
  read_keys(d, sample_keys(), c.sample, source);
  read_real_meshes(d, base, source, c);
  if (!(c.augment_scaling >= 1 && c.augment_scaling <= 4)) fail(source, "data.augment_scaling must be in [1, 4]");
  if (!(c.real_fraction >= 0 && c.real_fraction <= 1)) fail(source, "data.real_fraction must be in [0, 1]");
}

// The checks across sections, once every key is read.
void check_training_config(const TrainingConfig& c, const fs::path& source) {
  if (c.steps < 0 || c.batch_points < 8 || c.z_samples < 1 || !(c.z_sigma > 0) || !(c.learning_rate > 0) ||
      c.log_every < 1 || c.checkpoint_every < 1 || c.procedural_shapes < 0 || c.sample.surface_points < 16 ||
      c.sample.cubature_points < 16 || c.shapes_per_step < 1 || c.shapes_per_step > 1024 ||
      !(c.distributed_timeout > 0))
    fail(source,
         "steps (>= 0), batch_points (>= 8), z_samples, z_sigma, learning_rate, shapes_per_step (<= 1024), log_every, "
         "checkpoint_every, distributed_timeout and point counts must be positive");
  if (c.procedural_shapes == 0 && c.real_train.empty() && c.rig.empty())
    fail(source, "no training shapes (procedural_shapes is 0 and real_train is empty)");
  if (c.losses.kept_subspace &&
      (NetworkConfig::from_json(c.network, source.string()).candidate_fields == 0 || !c.losses.normalize))
    fail(source, "losses.kept_subspace needs network.candidate_fields (and losses.normalize)");
  if (c.losses.eigen_span && (c.losses.eigen_span_grid < 2 || c.losses.eigen_span_grid > 64))
    fail(source, "losses.eigen_span_grid must be 2 to 64 cells, not {}", c.losses.eigen_span_grid);
  if (c.losses.compliance && (c.losses.compliance_pokes < 0 || c.losses.compliance_pokes > 64))
    fail(source, "losses.compliance_pokes must be 0 to 64, not {}", c.losses.compliance_pokes);
}

}  // namespace

// What a resumed run must share with the run that wrote its checkpoint: every setting but the
// step count, the output folder and the logging, checkpoint and validation cadence.
json run_identity(const TrainingConfig& c) {
  json run = written_keys(config_keys(), c,
                          {"steps", "checkpoint_every", "log_every", "validate_every", "distributed_timeout"});
  run["losses"] = written_keys(loss_keys(), c.losses);
  run["network"] = c.network;
  run["rig"] = c.rig.empty() ? std::string() : path_name(c.rig);
  json data = written_keys(data_keys(), c);
  data.update(written_keys(sample_keys(), c.sample));
  data["real_train"] = path_names(c.real_train);
  data["real_validation"] = path_names(c.real_validation);
  run["data"] = data;
  return run;
}

namespace {

// The differences between a checkpoint's record and the configuration's, but settings the
// record lacks (added to wobble after it was written) that the configuration leaves at their default.
json run_differences(const json& then, const json& now) {
  const json defaults = run_identity(TrainingConfig{});
  json kept = json::array();
  for (const json& op : json::diff(then, now)) {
    const json::json_pointer where(op["path"].get<std::string>());
    const bool new_setting_at_default =
        op["op"] == "add" && defaults.contains(where) && defaults.at(where) == now.at(where);
    if (!new_setting_at_default) kept.push_back(op);
  }
  return kept;
}

}  // namespace

// Resuming on another configuration would continue a run that never was: refused, naming the
// first setting that differs (a checkpoint written before runs recorded this is trusted).
void check_same_run(const json& checkpoint_metadata, const TrainingConfig& config, const fs::path& checkpoint) {
  if (!checkpoint_metadata.contains("run")) return;
  const json& then = checkpoint_metadata["run"];
  const json now = run_identity(config);
  const json patch = run_differences(then, now);
  if (patch.empty()) return;
  const json::json_pointer where(patch[0]["path"].get<std::string>());
  std::string key = where.to_string().substr(1);
  std::replace(key.begin(), key.end(), '/', '.');
  const auto shown = [&](const json& j) { return j.contains(where) ? j.at(where).dump() : std::string("absent"); };
  fail(checkpoint,
       "cannot resume: {} is {} in the configuration, {} in the run that wrote this checkpoint (a resumed run may "
       "change only steps, output and the logging, checkpoint and validation cadence; train again without --resume)",
       key, shown(now), shown(then));
}

TrainingConfig TrainingConfig::load(const fs::path& file) {
  return from_json(read_json_file(file, "training configuration"), file);
}

TrainingConfig TrainingConfig::from_json(const json& j, const fs::path& source) {
  if (!j.is_object()) fail(source, "a training configuration must be a JSON object");
  reject_unknown(j, names_of(config_keys(), {"losses", "network", "data", "output", "comment", "rig"}), source,
                 "the configuration");
  TrainingConfig c;
  read_keys(j, config_keys(), c, source);
  const fs::path base = source.parent_path();
  read_relative_path(j, "rig", base, c.rig, source);
  read_relative_path(j, "output", base, c.output, source);
  if (j.contains("network")) {
    NetworkConfig::from_json(j["network"], source.string());  // validates
    c.network = j["network"];
  }
  if (j.contains("losses")) c.losses = read_losses(j["losses"], source);
  if (j.contains("data")) read_data(j["data"], base, source, c);
  check_training_config(c, source);
  return c;
}

}  // namespace wobble::neural
