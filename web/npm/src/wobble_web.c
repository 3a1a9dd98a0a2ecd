/* The package's helpers beside the C API (include/wobble/wobble.h), compiled into the same
 * WebAssembly module: they take the C API's structs as plain arguments, so that the ES module
 * (index.js) never depends on their memory layout, and they bound the deformed points for
 * three.js's culling. */
#include <stddef.h>
#include <stdint.h>

#include <wasm_simd128.h>

#include <wobble/wobble.h>

/* wobble_character_create from the arrays the ES module fills (rest positions and normals packed,
 * normals may be NULL; triangles; joints; influences, k per vertex). */
wobble_status wobble_web_character_create(uint32_t vertex_count, const float* positions, const float* normals,
                                          uint32_t triangle_count, const uint32_t* triangles, uint32_t joint_count,
                                          const int32_t* joint_parents, const float* inverse_bind_matrices,
                                          uint32_t influences_per_vertex, const uint16_t* influence_joints,
                                          const float* influence_weights, wobble_character** character) {
  const wobble_skinned_mesh mesh = {vertex_count,         positions,         0, normals, 0,
                                    triangle_count,       triangles,         joint_count,
                                    joint_parents,        inverse_bind_matrices,
                                    influences_per_vertex, influence_joints, influence_weights};
  return wobble_character_create(&mesh, character);
}

/* wobble_stack_evaluate for one frame from the joints' world matrices, into packed buffers. */
wobble_status wobble_web_evaluate(wobble_stack* stack, double time, const float* joint_world_matrices,
                                  uint32_t joint_count, float* positions, float* normals) {
  const wobble_frame frame = {time, joint_world_matrices, joint_count, NULL};
  return wobble_stack_evaluate(stack, &frame, positions, 0, normals, 0);
}

/* The axis-aligned box of `count` packed points: box[0..2] the least x y z, box[3..5] the
 * greatest. Four points (three vectors) at a time: each lane keeps one coordinate's running
 * minimum and maximum, the same coordinate in every step since 12 floats are a whole number of
 * vectors. */
void wobble_web_bounds(const float* points, uint32_t count, float* box) {
  if (count == 0) {
    for (int c = 0; c < 6; ++c) box[c] = 0.0f;
    return;
  }
  const v128_t first = wasm_f32x4_make(points[0], points[1], points[2], points[0]);
  const v128_t second = wasm_f32x4_make(points[1], points[2], points[0], points[1]);
  const v128_t third = wasm_f32x4_make(points[2], points[0], points[1], points[2]);
  v128_t low[3] = {first, second, third}, high[3] = {first, second, third};
  uint32_t i = 0;
  for (; i + 4 <= count; i += 4) {
    const float* p = points + 3 * (size_t)i;
    for (int k = 0; k < 3; ++k) {
      const v128_t v = wasm_v128_load(p + 4 * k);
      low[k] = wasm_f32x4_pmin(v, low[k]);
      high[k] = wasm_f32x4_pmax(v, high[k]);
    }
  }
  float lows[12], highs[12];
  for (int k = 0; k < 3; ++k) {
    wasm_v128_store(lows + 4 * k, low[k]);
    wasm_v128_store(highs + 4 * k, high[k]);
  }
  /* Float j of the 12 holds coordinate j % 3. */
  for (int c = 0; c < 3; ++c) box[c] = lows[c], box[3 + c] = highs[c];
  for (int j = 3; j < 12; ++j) {
    const int c = j % 3;
    if (lows[j] < box[c]) box[c] = lows[j];
    if (highs[j] > box[3 + c]) box[3 + c] = highs[j];
  }
  for (; i < count; ++i) {
    for (int c = 0; c < 3; ++c) {
      const float v = points[3 * (size_t)i + c];
      if (v < box[c]) box[c] = v;
      if (v > box[3 + c]) box[3 + c] = v;
    }
  }
}
