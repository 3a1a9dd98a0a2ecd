#pragma once
// The columns of one skinning field projected onto the span of another's: for each target column
// t, the combination of the span's columns closest to it in least squares at given points. What
// a selection from a field's span could reach at best for a target subspace (issue 35: the
// skinning eigenmodes within a network's candidate fields, `wobble fields metrics --candidates`).
#include <memory>
#include <span>

#include <wobble/fields/skinning_field.hpp>

namespace wobble::fields {

// `span`'s columns combined by C (span columns x target columns): W = W_span C, dW = dW_span C.
// Throws Error when `span` is null or `points` empty or holding a non-finite point.
std::shared_ptr<const SkinningField> projected_onto_span(std::shared_ptr<const SkinningField> span,
                                                         const SkinningField& target, std::span<const Vec3d> points);

}  // namespace wobble::fields
