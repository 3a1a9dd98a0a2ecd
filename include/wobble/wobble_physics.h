/* wobble's C API, physics part (library wobble::physics, with wobble::runtime's wobble.h):
 * PhysSkin++ simulation of one shape, built as `wobble simulate SHAPE` and Python's
 * wobble.Simulation build it (one builder: physics::quick_scene), for a host that steps it and
 * shows the points itself (an engine's tool, a game's prop).
 *   1. wobble_simulation_create() from a shape file and the settings JSON: samples the shape and
 *      builds its subspace (skinning eigenmodes); this takes from a fraction of a second to seconds;
 *   2. every frame: wobble_simulation_advance() (1/fps of simulated time, in `substeps` implicit
 *      steps), then wobble_simulation_positions() into the host's buffer.
 * The frames equal `wobble simulate`'s output for the same settings, to the bit: the positions
 * before the first advance are its frame 0, after k advances its frame k.
 * Conventions as in wobble.h: every function returns a wobble_status, wobble_last_error() says
 * why one failed; one simulation is used by one thread at a time. See docs/embedding.md. */
#ifndef WOBBLE_WOBBLE_PHYSICS_H
#define WOBBLE_WOBBLE_PHYSICS_H

#include <wobble/wobble.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wobble_simulation wobble_simulation;

/* A simulation of shape_file (.obj, .off, .gltf, .glb, a .ply point cloud or 3D Gaussians).
 * settings_json: NULL, "" or an object of the physics settings that act on a single shape
 * ({"youngs_modulus": 1e6, "pin": "y>0.8", "fps": 60}; wobble_physics_description lists every
 * key with its unit, range and default; docs/physics-parameters.md is the same list). "frames"
 * is refused: the host decides how many frames it advances. A bad key or value fails with
 * WOBBLE_INVALID_SETTINGS naming it; a file that cannot be read or simulated (no triangles, a
 * pin that selects nothing) with WOBBLE_FAILED naming the file. */
wobble_status wobble_simulation_create(const char* shape_file, const char* settings_json,
                                       wobble_simulation** simulation);
wobble_status wobble_simulation_destroy(wobble_simulation* simulation); /* NULL is fine */

/* The points the simulation moves: the file's vertices (or points, or Gaussian centres), in order. */
wobble_status wobble_simulation_point_count(const wobble_simulation* simulation, uint32_t* count);

/* One frame: 1/fps seconds of simulated time in `substeps` implicit steps. */
wobble_status wobble_simulation_advance(wobble_simulation* simulation);

/* The current points, in the file's own frame and units: point_count * 3 floats, `stride` bytes
 * from one point to the next (0: 12). */
wobble_status wobble_simulation_positions(const wobble_simulation* simulation, float* positions, size_t stride);

/* The settings' description as JSON (`wobble simulate --describe --json`): every key with its
 * type, unit, range, default and help. The text lives as long as the library. */
wobble_status wobble_physics_description(const char** json);

#ifdef __cplusplus
}
#endif

#endif /* WOBBLE_WOBBLE_PHYSICS_H */
