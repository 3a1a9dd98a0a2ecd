/* wobble's C API on an engine's own data: a skinned tube built here, bent by joint matrices
 * computed here, deformed by "lbs" (checked against skinning done by hand) and "lbs,dynamic"
 * (secondary motion, tuned live half-way, that rings out once the tube stops). Exits 0 when every
 * check passes.
 * Build: cc -std=c11 deform_tube.c $(pkg-config --cflags --libs wobble-runtime) -lm */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <wobble/wobble.h>

enum { JOINTS = 3, RINGS = 30, SIDES = 12, VERTICES = RINGS * SIDES, TRIANGLES = 2 * (RINGS - 1) * SIDES };

static float rest[VERTICES][3];
static uint32_t triangles[TRIANGLES][3];
static int32_t parents[JOINTS];
static float inverse_bind[JOINTS][16];
static uint16_t joints[VERTICES][2];
static float weights[VERTICES][2];

/* Column-major 4x4: a rotation about Z by angle, then a translation by (x, y, 0). */
static void turn_and_move(float angle, float x, float y, float m[16]) {
  memset(m, 0, 16 * sizeof(float));
  m[0] = cosf(angle), m[1] = sinf(angle), m[4] = -sinf(angle), m[5] = cosf(angle);
  m[10] = 1, m[12] = x, m[13] = y, m[15] = 1;
}

static void multiply(const float a[16], const float b[16], float out[16]) {
  for (int c = 0; c < 4; ++c) {
    for (int r = 0; r < 4; ++r) {
      float sum = 0;
      for (int k = 0; k < 4; ++k) sum += a[4 * k + r] * b[4 * c + k];
      out[4 * c + r] = sum;
    }
  }
}

/* A chain of joints one unit apart along +Y; vertices blend the two nearest joints. */
static void build_tube(void) {
  for (int j = 0; j < JOINTS; ++j) {
    parents[j] = j - 1;
    turn_and_move(0, 0, (float)-j, inverse_bind[j]);
  }
  for (int r = 0; r < RINGS; ++r) {
    const float y = JOINTS * (r + 0.5f) / RINGS;
    float u = y - 0.5f;
    if (u < 0) u = 0;
    if (u > JOINTS - 1) u = JOINTS - 1;
    const int j0 = u >= JOINTS - 1 ? JOINTS - 1 : (int)u;
    for (int s = 0; s < SIDES; ++s) {
      const float a = 6.2831853f * s / SIDES;
      const int v = r * SIDES + s;
      rest[v][0] = 0.2f * cosf(a), rest[v][1] = y, rest[v][2] = 0.2f * sinf(a);
      joints[v][0] = (uint16_t)j0, joints[v][1] = (uint16_t)(j0 + 1 < JOINTS ? j0 + 1 : j0);
      weights[v][0] = 1 - (u - j0), weights[v][1] = u - j0;
    }
  }
  int t = 0;
  for (int r = 0; r + 1 < RINGS; ++r) {
    for (int s = 0; s < SIDES; ++s) {
      const uint32_t a = r * SIDES + s, b = (r + 1) * SIDES + s;
      const uint32_t c = (r + 1) * SIDES + (s + 1) % SIDES, d = r * SIDES + (s + 1) % SIDES;
      triangles[t][0] = a, triangles[t][1] = b, triangles[t][2] = c, ++t;
      triangles[t][0] = a, triangles[t][1] = c, triangles[t][2] = d, ++t;
    }
  }
}

/* The engine's animation: every joint bends while t < 1 s, then the tube holds still. */
static void pose(double t, float world[JOINTS][16]) {
  const float angle = t < 1.0 ? 0.5f * sinf((float)(6.2831853 * t)) : 0.0f;
  float local[16];
  for (int j = 0; j < JOINTS; ++j) {
    turn_and_move(angle, 0, j ? 1.0f : 0.0f, local);
    if (j == 0) {
      memcpy(world[0], local, sizeof local);
    } else {
      multiply(world[j - 1], local, world[j]);
    }
  }
}

/* Linear blend skinning by hand: sum_k w_k (world_k inverse_bind_k) p. */
static void skin_by_hand(float world[JOINTS][16], float out[VERTICES][3]) {
  for (int v = 0; v < VERTICES; ++v) {
    out[v][0] = out[v][1] = out[v][2] = 0;
    for (int k = 0; k < 2; ++k) {
      float m[16];
      multiply(world[joints[v][k]], inverse_bind[joints[v][k]], m);
      for (int c = 0; c < 3; ++c) {
        out[v][c] += weights[v][k] * (m[c] * rest[v][0] + m[4 + c] * rest[v][1] + m[8 + c] * rest[v][2] + m[12 + c]);
      }
    }
  }
}

static float largest_distance(float a[VERTICES][3], float b[VERTICES][3]) {
  float worst = 0;
  for (int v = 0; v < VERTICES; ++v) {
    const float dx = a[v][0] - b[v][0], dy = a[v][1] - b[v][1], dz = a[v][2] - b[v][2];
    const float d = sqrtf(dx * dx + dy * dy + dz * dz);
    if (d > worst) worst = d;
  }
  return worst;
}

static int check(int ok, const char* what) {
  if (!ok) fprintf(stderr, "deform_tube: FAILED: %s (%s)\n", what, wobble_last_error());
  return ok;
}

int main(void) {
  build_tube();
  const wobble_skinned_mesh mesh = {VERTICES,    &rest[0][0],       0, NULL, 0, TRIANGLES, &triangles[0][0], JOINTS,
                                    parents,     &inverse_bind[0][0], 2, &joints[0][0], &weights[0][0]};
  wobble_character* character = NULL;
  wobble_stack *lbs = NULL, *dynamic = NULL;
  int ok = check(wobble_character_create(&mesh, &character) == WOBBLE_OK, "create the character");
  ok = ok && check(wobble_stack_create(character, "lbs", NULL, 1, &lbs) == WOBBLE_OK, "create lbs");
  ok = ok && check(wobble_stack_create(character, "lbs,dynamic", "{\"dynamic\": {\"amplitude\": 1.5}}", 1, &dynamic) ==
                       WOBBLE_OK, "create lbs,dynamic");
  static float world[JOINTS][16], by_hand[VERTICES][3], skinned[VERTICES][3], moving[VERTICES][3];
  float lbs_error = 0, swing = 0, after = 0;
  for (int frame = 0; ok && frame <= 4 * 60; ++frame) {  /* four seconds at 60 frames per second */
    const double t = frame / 60.0;
    if (frame == 30) { /* half a second in: a live change, the motion goes on */
      ok = check(wobble_stack_set_parameter(dynamic, "dynamic", "amplitude", 2.0) == WOBBLE_OK, "set dynamic.amplitude");
    }
    pose(t, world);
    const wobble_frame input = {t, &world[0][0], JOINTS, NULL};  /* local transforms: recovered */
    ok = check(wobble_stack_evaluate(lbs, &input, &skinned[0][0], 0, NULL, 0) == WOBBLE_OK, "evaluate lbs") &&
         check(wobble_stack_evaluate(dynamic, &input, &moving[0][0], 0, NULL, 0) == WOBBLE_OK, "evaluate lbs,dynamic");
    skin_by_hand(world, by_hand);
    const float e = largest_distance(skinned, by_hand), d = largest_distance(moving, skinned);
    if (e > lbs_error) lbs_error = e;
    if (t <= 1.5 && d > swing) swing = d;
    if (t >= 3.5 && d > after) after = d;
  }
  ok = ok && check(lbs_error < 1e-5f, "lbs matches the skinning done by hand");
  ok = ok && check(swing > 1e-2f, "dynamic adds secondary motion while the tube bends");
  ok = ok && check(after < 0.05f * swing, "the secondary motion rings out once the tube stops");
  /* What a tuning UI reads: the deformers' descriptions and the settings a stack runs with now. */
  const char *descriptions = NULL, *settings = NULL;
  ok = ok && check(wobble_deformer_descriptions(&descriptions) == WOBBLE_OK && strstr(descriptions, "\"amplitude\""),
                   "the descriptions list dynamic.amplitude");
  ok = ok && check(wobble_stack_settings(dynamic, &settings) == WOBBLE_OK && strstr(settings, "\"amplitude\": 2.0"),
                   "the settings hold the live change");
  /* Mistakes are refused with a status and a message, never a crash. */
  wobble_stack* bad = NULL;
  ok = ok && check(wobble_stack_create(character, "lbs,nonsense", NULL, 1, &bad) == WOBBLE_INVALID_SETTINGS &&
                       bad == NULL && strlen(wobble_last_error()) > 0, "an unknown deformer is refused");
  const wobble_frame short_frame = {5.0, &world[0][0], JOINTS - 1, NULL};
  ok = ok && check(wobble_stack_evaluate(dynamic, &short_frame, &moving[0][0], 0, NULL, 0) == WOBBLE_INVALID_ARGUMENT,
                   "a frame with too few joints is refused");
  printf("wobble %s: lbs error %.2g, dynamic swing %.3f then %.2g after the stop: %s\n", wobble_version(),
         (double)lbs_error, (double)swing, (double)after, ok ? "ok" : "FAILED");
  wobble_stack_destroy(dynamic);
  wobble_stack_destroy(lbs);
  wobble_character_destroy(character);
  return ok ? 0 : 1;
}
