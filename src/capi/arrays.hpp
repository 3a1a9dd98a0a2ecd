#pragma once
// The C API's array conversions: a Character from a wobble_skinned_mesh (checked, copied) and the
// stack's output into the caller's strided buffers.
#include <cstddef>
#include <span>

#include <wobble/character.hpp>
#include <wobble/wobble.h>

namespace wobble::capi {

// Throws Error naming the field for null arrays, strides that cannot hold a vertex, indices out of
// range, parents after their children and non-finite numbers. Weights are normalised (warnings).
Character character_from_arrays(const wobble_skinned_mesh& mesh);

// The byte stride of packed 3-float rows when `stride` is 0; throws Error naming `what` when a
// stride cannot hold 3 floats or is not a multiple of 4.
std::size_t row_stride(std::size_t stride, const char* what);

// Writes rows[i] to out + i * stride (bytes, from row_stride).
void copy_out(std::span<const Vec3f> rows, float* out, std::size_t stride);

}  // namespace wobble::capi
