#pragma once
// Procedural training shapes for the neural skinning fields (PhysSkin++ III-B data): closed
// triangle meshes of varied kinds, each with random non-uniform scaling and bending, so that the
// network sees thin limbs, blobs, boxy parts and assemblies without a downloaded data set.
// Every shape is a deterministic function of its seed.
#include <cstdint>
#include <string>

#include <wobble/mesh.hpp>

namespace wobble::neural {

enum class ShapeKind { Superquadric, Blob, Extrusion, Tube, Composition };
constexpr int kShapeKindCount = 5;

const char* to_string(ShapeKind kind);

// A closed, outward-oriented mesh (a union of closed parts for compositions), of the given kind.
Mesh procedural_shape(ShapeKind kind, std::uint64_t seed);
// The kind is drawn from the seed too.
Mesh procedural_shape(std::uint64_t seed);

}  // namespace wobble::neural
