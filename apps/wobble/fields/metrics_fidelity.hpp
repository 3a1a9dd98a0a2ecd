#pragma once
// The physics columns of `wobble fields metrics --fidelity` (issue 35): each subspace's error
// against full-space FEM (wobble/physics/subspace_fidelity.hpp) and the time from reading a shape
// to the end of its first simulation step, as `wobble simulate` does it.
#include <filesystem>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include <wobble/fields/skinning_field.hpp>
#include <wobble/physics/subspace_fidelity.hpp>

namespace wobble::cli {

// The JSON columns of one subspace: sag_error, poke_error, frequencies, frequency_errors,
// largest_frequency_error, subspace_dofs.
nlohmann::json fidelity_columns(const physics::FullSpaceReference& reference, const fields::SkinningField& field);
// The full-space columns of a shape: full_frequencies, tet_nodes, dropped_tets, reference_seconds.
nlohmann::json reference_columns(const physics::FullSpaceReference& reference, double seconds);
// " sag poke f1 fmax" as the table prints them.
std::string fidelity_text(const nlohmann::json& columns);

// Seconds from reading `shape` to the end of its first implicit step (sampling, the subspace from
// `fields`, or eigenmodes with `handles` modes when empty, the body's precomputation, one step),
// free under gravity, with the default material and time step of `wobble simulate`.
double seconds_to_first_step(const std::filesystem::path& shape, const fields::MeshFields& fields, int handles);
// A MeshFields that gives one field whatever the mesh (a subspace computed beforehand).
fields::MeshFields fixed_fields(std::shared_ptr<const fields::SkinningField> field);

}  // namespace wobble::cli
