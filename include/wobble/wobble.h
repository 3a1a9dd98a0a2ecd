/* wobble's C API (library wobble::runtime): deformers for an engine's own skinned meshes.
 *
 * The engine keeps its skeleton, animation and skinning matrices; wobble takes its arrays:
 *   1. once per character: wobble_character_create() from the rest mesh, the joints' parents and
 *      inverse bind matrices, and the skin (a fixed number of influences per vertex);
 *   2. once per deformer stack: wobble_stack_create(character, "lbs,dynamic", settings JSON);
 *   3. every frame: wobble_stack_evaluate() with the joints' world matrices and the time; the
 *      deformed positions (and normals) land in the caller's buffers. Nothing is allocated per frame.
 *   4. wobble_stack_reset() after a jump in time (a cut, a teleport, a looping clip).
 * Every function returns a wobble_status; on failure wobble_last_error() says why, in one line.
 * Threads: any number of stacks may run at once on different threads; one stack (and the character
 * it was made from) is used by one thread at a time. Matrices are column-major 4x4 (16 floats,
 * OpenGL and glTF order); strides are in bytes (0: tightly packed). See docs/embedding.md. */
#ifndef WOBBLE_WOBBLE_H
#define WOBBLE_WOBBLE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum wobble_status {
  WOBBLE_OK = 0,
  WOBBLE_INVALID_ARGUMENT = 1, /* a null pointer, a count, stride or value that cannot be right */
  WOBBLE_INVALID_SETTINGS = 2, /* the stack text or the settings JSON (unknown deformer, key, value) */
  WOBBLE_OUT_OF_MEMORY = 3,
  WOBBLE_FAILED = 4 /* anything else (the message says what) */
} wobble_status;

/* The library's version, "MAJOR.MINOR.PATCH". */
const char* wobble_version(void);
/* The message of the calling thread's last failed call ("" if none failed yet). Valid until that
 * thread's next failing call. */
const char* wobble_last_error(void);

/* Warnings (repairs of the input, such as weights that did not sum to one) go to this callback,
 * one line each, from the thread that caused them; NULL restores the default (standard error). */
typedef void (*wobble_warning_callback)(const char* message, void* user_data);
wobble_status wobble_set_warning_callback(wobble_warning_callback callback, void* user_data);

/* ---- characters ---- */

typedef struct wobble_character wobble_character;

typedef struct wobble_skinned_mesh {
  uint32_t vertex_count;
  const float* positions;  /* 3 floats per vertex, rest pose, bind space */
  size_t positions_stride; /* bytes from one vertex to the next; 0: 12 */
  const float* normals;    /* 3 floats per vertex, or NULL (then normals are computed from the triangles) */
  size_t normals_stride;   /* 0: 12 */
  uint32_t triangle_count;
  const uint32_t* triangles; /* 3 vertex indices per triangle */
  uint32_t joint_count;
  const int32_t* joint_parents;       /* per joint: its parent, or -1; parents come before their children */
  const float* inverse_bind_matrices; /* 16 floats per joint: bind space -> the joint's space */
  uint32_t influences_per_vertex;     /* k, 1 to 64 */
  const uint16_t* influence_joints;   /* k per vertex */
  const float* influence_weights;     /* k per vertex; zero weights are unused slots */
} wobble_skinned_mesh;

/* Copies the arrays (the caller may free them afterwards). Weights that do not sum to one are
 * normalised (a warning); a joint index out of range, a cycle in the parents, a triangle index
 * out of range or a non-finite number fail with WOBBLE_INVALID_ARGUMENT. */
wobble_status wobble_character_create(const wobble_skinned_mesh* mesh, wobble_character** character);
/* NULL is fine. Destroy a character after every stack made from it. */
wobble_status wobble_character_destroy(wobble_character* character);

/* ---- deformer stacks ---- */

typedef struct wobble_stack wobble_stack;

/* stack: deformers in order, e.g. "lbs,dynamic" or "lbs,dynamic,deltamush" (`wobble deformers`
 * lists them); settings_json: NULL, "" or an object {"dynamic": {"amplitude": 1.5}, ...}.
 * threads: 0 or 1 run on the calling thread; more use a pool of that many threads (results are
 * identical bytes for any count). The stack binds to the character (the expensive precomputation
 * of Delta Mush and DDM happens here). */
wobble_status wobble_stack_create(const wobble_character* character, const char* stack, const char* settings_json,
                                  uint32_t threads, wobble_stack** out);
wobble_status wobble_stack_destroy(wobble_stack* stack);

/* Changes one live parameter between frames, keeping the deformers' state (the wobble goes on):
 * deformer and key as in the settings JSON ("dynamic", "amplitude"; docs/parameters.md lists
 * them). Numbers and integers here; any type as JSON text ("true", "\"cotangent\"", keyframes
 * {"keys": [[0, 1], [2, 0.5]]}) with the _json variant. Out of range, unknown keys and bind
 * parameters (which would rebind the deformer: make a new stack) fail with WOBBLE_INVALID_SETTINGS. */
wobble_status wobble_stack_set_parameter(wobble_stack* stack, const char* deformer, const char* key, double value);
wobble_status wobble_stack_set_parameter_json(wobble_stack* stack, const char* deformer, const char* key,
                                              const char* json);

/* The settings the stack runs with now, as settings JSON (what differs from the defaults, keyframed
 * numbers as {"keys": ...}): what wobble_stack_create takes to make the same stack again. *json
 * belongs to the stack and stays valid until the next call with this stack. */
wobble_status wobble_stack_settings(wobble_stack* stack, const char** json);

/* Every deformer wobble knows, for building an engine's tuning UI: a JSON array, the text of
 * `wobble deformers --json`, one object per deformer {"name", "stage" (base, effect, post),
 * "summary", "parameters": [{"key", "flag", "type" (number, integer, boolean, choice, text,
 * vertex_array, vector3, joint_table), "unit", "default", "minimum", "maximum" (null: unbounded),
 * "minimum_exclusive", "maximum_exclusive", "soft_minimum", "soft_maximum" (a slider's range),
 * "choices", "lifetime" ("live": wobble_stack_set_parameter takes it; "bind": a new stack),
 * "optional", "attribute_allowed", "help", and for joint tables "fields"}]}.
 * *json belongs to the library and stays valid until the process ends. */
wobble_status wobble_deformer_descriptions(const char** json);

typedef struct wobble_frame {
  double time;                       /* seconds; going back (or far ahead) restarts the history */
  const float* joint_world_matrices; /* 16 floats per joint: the joint's space -> world */
  uint32_t joint_count;              /* must be the character's */
  /* Optional: the same pose as local transforms, 10 floats per joint relative to its parent
   * (translation x y z, unit rotation quaternion x y z w, scale x y z). NULL: wobble recovers them from
   * the world matrices (about 0.03 us per joint); engines that have them save that. */
  const float* joint_local_transforms;
} wobble_frame;

/* Deforms the mesh for one frame. positions: room for vertex_count * stride bytes (3 floats
 * written per vertex); normals: NULL, or the same for normals (unit length). */
wobble_status wobble_stack_evaluate(wobble_stack* stack, const wobble_frame* frame, float* positions,
                                    size_t positions_stride, float* normals, size_t normals_stride);

/* Forgets the history of the stateful deformers (dynamic's oscillations, delays). */
wobble_status wobble_stack_reset(wobble_stack* stack);

/* The character's vertex and joint counts (for sizing buffers). */
wobble_status wobble_character_counts(const wobble_character* character, uint32_t* vertex_count, uint32_t* joint_count);

/* ---- hosts with their own rig (an animation package such as Blender: blender/wobble_blender) ---- */

/* Joint names, for the settings that name joints (a per-joint table such as dynamic's "joints":
 * {"hand.L": {"frequency": 3}}); without them joint j is "joint<j>". names: count (the joint count)
 * strings, each non-empty and unique; copied. Stacks created afterwards see them. */
wobble_status wobble_character_set_joint_names(wobble_character* character, const char* const* names, uint32_t count);

/* The host's animation at any time: writes the joints' world matrices at `time` (s; 16 floats per
 * joint, as wobble_frame's) and returns 0, or nonzero when it cannot (the call that asked fails). */
typedef int (*wobble_pose_sampler)(double time, float* joint_world_matrices, uint32_t joint_count, void* user_data);
/* Effects that read the motion at times other than the frame's (Dynamic Skinning samples it at
 * 60 Hz, as `wobble bake` samples a clip) ask the sampler, on the calling thread, from inside
 * wobble_stack_evaluate and wobble_stack_start_periodic. NULL (the default): they use the frames
 * given so far. */
wobble_status wobble_stack_set_pose_sampler(wobble_stack* stack, wobble_pose_sampler sampler, void* user_data);

/* Seamless loops: starts the history in the periodic steady state of a cycle of `period` s from
 * `cycle_start`, the motion being the pose sampler's (required) over that cycle, repeated forever.
 * Evaluate the frames from cycle_start on. */
wobble_status wobble_stack_start_periodic(wobble_stack* stack, double cycle_start, double period);

/* Every setting at once (settings JSON as wobble_stack_create's, NULL or "" for the defaults):
 * live values keep the deformers' state (the wobble goes on); a deformer whose bind values differ
 * is rebound, and its history starts again. *rebound (may be NULL): the names of the rebound
 * deformers, comma-separated ("" when none); belongs to the stack, valid until its next call. */
wobble_status wobble_stack_update(wobble_stack* stack, const char* settings_json, const char** rebound);

#ifdef __cplusplus
}
#endif

#endif /* WOBBLE_WOBBLE_H */
