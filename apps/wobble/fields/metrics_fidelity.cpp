// Physics columns of `wobble fields metrics --fidelity` (see metrics_fidelity.hpp).
#include "metrics_fidelity.hpp"

#include <chrono>
#include <cmath>

#include <fmt/format.h>

#include <wobble/physics/scene.hpp>

namespace wobble::cli {

namespace {

nlohmann::json finite_or_null(const Eigen::VectorXd& values) {
  nlohmann::json out = nlohmann::json::array();
  for (Eigen::Index i = 0; i < values.size(); ++i)
    out.push_back(std::isfinite(values[i]) ? nlohmann::json(values[i]) : nlohmann::json());
  return out;
}

}  // namespace

nlohmann::json fidelity_columns(const physics::FullSpaceReference& reference, const fields::SkinningField& field) {
  const physics::SubspaceFidelity f = physics::subspace_fidelity(reference, physics::subspace_basis(reference, field));
  return {{"sag_error", f.sag_error},
          {"poke_error", f.poke_error},
          {"frequencies", finite_or_null(f.frequencies)},
          {"frequency_errors", finite_or_null(f.frequency_errors)},
          {"largest_frequency_error", f.largest_frequency_error()},
          {"subspace_dofs", f.dofs}};
}

nlohmann::json reference_columns(const physics::FullSpaceReference& reference, double seconds) {
  return {{"full_frequencies", finite_or_null(reference.frequencies)},
          {"tet_nodes", reference.mesh.node_count()},
          {"dropped_tets", reference.dropped_tets},
          {"reference_seconds", seconds}};
}

std::string fidelity_text(const nlohmann::json& c) {
  const double first = c["frequency_errors"][0].is_number() ? c["frequency_errors"][0].get<double>() : std::nan("");
  return fmt::format(" {:>7.3f} {:>7.3f} {:>7.3f} {:>7.3f}", c["sag_error"].get<double>(),
                     c["poke_error"].get<double>(), first, c["largest_frequency_error"].get<double>());
}

double seconds_to_first_step(const std::filesystem::path& shape, const fields::MeshFields& fields, int handles) {
  physics::QuickSceneOptions options;
  options.settings.handles = handles;
  options.field_source = fields;
  options.settings.frames = 1;
  const auto start = std::chrono::steady_clock::now();
  physics::Scene scene = physics::quick_scene(shape, options);
  scene.world.step();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

fields::MeshFields fixed_fields(std::shared_ptr<const fields::SkinningField> field) {
  return [field](const Mesh&, bool) { return field; };
}

}  // namespace wobble::cli
