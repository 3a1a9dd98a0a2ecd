/* wobble's C API, offline part (library wobble::offline, with wobble::runtime's wobble.h): helper
 * bones for a host's own bake. A host that plays a deformer stack on its character (an animation
 * package, an engine's tool) hands wobble the frames it baked; wobble finds a few rigid helper
 * joints, each a child of a character joint, and refits the skin over the character's joints and
 * the helpers, so that plain linear blend skinning of the extended skeleton replays the bake: the
 * secondary motion as bones any engine plays (`wobble bake --helper-bones` does the same for files).
 * Conventions as in wobble.h: every function returns a wobble_status, wobble_last_error() says why
 * one failed, matrices are column-major 4x4. See docs/embedding.md. */
#ifndef WOBBLE_WOBBLE_OFFLINE_H
#define WOBBLE_WOBBLE_OFFLINE_H

#include <wobble/wobble.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A host's bake of a character, frame f at times[f]. */
typedef struct wobble_baked_frames {
  uint32_t frame_count;
  const double* times; /* seconds, rising */
  const float*
      joint_world_matrices; /* frame_count * joint_count * 16 floats: the pose of each frame, as wobble_frame's */
  const float* positions;   /* frame_count * vertex_count * 3 floats: the deformed mesh, world space */
} wobble_baked_frames;

typedef struct wobble_helper_bones wobble_helper_bones;

/* Fits helper bones to `frames` of `character` (the wobble_character the frames were made with).
 * settings_json: NULL, "" or an object of the fit's parameters ({"bones": 8, "influences": 4};
 * wobble_helper_bones_description lists them, `wobble bake --helper-KEY` takes the same); bad keys
 * and values fail with WOBBLE_INVALID_SETTINGS. joints_weighted: NULL (every joint may carry
 * weight) or joint_count bytes, 0 for a joint the refitted skin must not use (a host whose
 * skinning weights some joints only: Blender's Armature modifier weights bones, not objects);
 * helpers become children of joints that may carry weight. periodic: nonzero when the frames are
 * one loop, the last repeating the first (the helpers' last frame is then their first).
 * threads: as wobble_stack_create's (the result is the same for any count). Counts that disagree,
 * times that do not rise, non-finite numbers and more helpers than vertices fail with
 * WOBBLE_INVALID_ARGUMENT. Takes seconds to minutes (the cost grows with frames x vertices x bones). */
wobble_status wobble_helper_bones_fit(const wobble_character* character, const wobble_baked_frames* frames,
                                      const char* settings_json, const uint8_t* joints_weighted, int periodic,
                                      uint32_t threads, wobble_helper_bones** out);
/* NULL is fine. */
wobble_status wobble_helper_bones_destroy(wobble_helper_bones* helpers);

/* The fit. Helper h is joint joint_count + h of the extended skeleton. Its world matrix in frame f
 * is the parent's world matrix in that frame times its local transform; with its inverse bind
 * matrix that gives its skinning matrix, and LBS over the extended skeleton with the refitted
 * skin replays the frames (to rmse). The arrays belong to `helpers` and live as long as it does. */
typedef struct wobble_helper_bones_result {
  uint32_t helper_count;
  uint32_t frame_count;
  uint32_t influences_per_vertex;     /* k of the refitted skin (the fit's "influences") */
  const int32_t* parents;             /* per helper: the character joint it is a child of */
  const float* inverse_bind_matrices; /* 16 floats per helper: bind space -> the helper's space */
  const float* local_transforms;      /* frame_count * helper_count * 10 floats: each helper relative to its parent in
                                          each frame (translation x y z, unit quaternion x y z w, scale x y z), as
                                          wobble_frame's joint_local_transforms */
  const uint16_t*
      influence_joints;           /* k per vertex: j < joint_count the character's joint j, joint_count + h helper h */
  const float* influence_weights; /* k per vertex, summing to one; zero weights are unused slots */
  double rmse;                    /* RMS over frames and vertices of that LBS against the frames (scene units) */
  double secondary_rms;           /* the same of the character's own skin alone: the motion the helpers are to carry */
} wobble_helper_bones_result;
wobble_status wobble_helper_bones_get(const wobble_helper_bones* helpers, wobble_helper_bones_result* result);

/* The fit's parameters, for a host's UI: a JSON object as one element of
 * wobble_deformer_descriptions' array ({"name": "decompose", "stage", "summary", "parameters"}).
 * *json belongs to the library and stays valid until the process ends. */
wobble_status wobble_helper_bones_description(const char** json);

#ifdef __cplusplus
}
#endif

#endif /* WOBBLE_WOBBLE_OFFLINE_H */
