#include "render/kernel_shaders.hpp"

namespace wobble::render::shaders {

const char* const kSkinKernel = R"GLSL(
uniform highp usampler2D u_ranges;  // per vertex: influences first, count; dynamic pairs first, count
uniform sampler2D u_rest;           // per vertex: rest position, bend weight
vec4 kernel(int v) {
  uvec4 ranges = fetch_u(u_ranges, v);
  vec4 rest = fetch(u_rest, v);
  vec3 p = (blended_matrix(ranges) * vec4(rest.xyz, 1.0)).xyz;
  if (u_dynamic) p += dynamic_offset(p, ranges, rest.w);
  return vec4(p, 0.0);
}
)GLSL";

// u_weld, per welded vertex w: texel 2w (members first, count, row first, count), texel 2w + 1
// (corners first, count, self weight's bits, keep input).
const char* const kMushGatherKernel = R"GLSL(
uniform highp usampler2D u_weld;
uniform highp usampler2D u_members;  // original vertex per member
uniform vec3 u_centre;
FRAME_TABLE(u_input, InputTable, 1)
vec4 kernel(int w) {
  uvec4 weld = fetch_u(u_weld, 2 * w);
  int first = int(weld.x), count = int(weld.y);
  vec3 p = FRAME(u_input, int(fetch_u(u_members, first).x)).xyz;
  vec3 sum = p;
  bool differ = false;
  for (int k = 1; k < count; ++k) {
    vec3 q = FRAME(u_input, int(fetch_u(u_members, first + k).x)).xyz;
    differ = differ || any(notEqual(q, p));
    sum += q;
  }
  if (differ) p = sum / float(count);
  return vec4(p - u_centre, 0.0);
}
)GLSL";

const char* const kMushSweepKernel = R"GLSL(
uniform highp usampler2D u_weld;
uniform highp usampler2D u_rows;  // per row entry: column, weight's bits
FRAME_TABLE(u_smoothed, SmoothedTable, 1)
vec4 kernel(int w) {
  uvec4 weld = fetch_u(u_weld, 2 * w);
  float self_weight = uintBitsToFloat(fetch_u(u_weld, 2 * w + 1).z);
  vec3 sum = vec3(0.0);
  int first = int(weld.z), end = first + int(weld.w);
  for (int k = first; k < end; ++k) {
    uvec2 entry = fetch_u(u_rows, k).xy;
    sum += uintBitsToFloat(entry.y) * FRAME(u_smoothed, int(entry.x)).xyz;
  }
  return vec4(self_weight * FRAME(u_smoothed, w).xyz + sum, 0.0);
}
)GLSL";

// Per corner c, with a = next - s, b = prev - s, n = a x b:
//   F d = a (dx / |a|) + (n x a) (dy / (|n| |a|)) + n (dz / |n|), a degenerate length giving 0.
const char* const kMushRestoreKernel = R"GLSL(
uniform highp usampler2D u_weld;
uniform highp usampler2D u_corners;  // per corner 2 texels: (next, prev, dx, dy), (dz, -, -, -) (bits)
FRAME_TABLE(u_smoothed, SmoothedTable, 1)
float inverse_length(float squared) { return squared > 1.2e-38 ? inversesqrt(squared) : 0.0; }
vec4 kernel(int w) {
  uvec4 info = fetch_u(u_weld, 2 * w + 1);
  vec3 s = FRAME(u_smoothed, w).xyz;
  vec3 r = vec3(0.0);
  int first = int(info.x), end = first + int(info.y);
  for (int c = first; c < end; ++c) {
    uvec4 corner = fetch_u(u_corners, 2 * c);
    vec3 d = vec3(uintBitsToFloat(corner.z), uintBitsToFloat(corner.w), uintBitsToFloat(fetch_u(u_corners, 2 * c + 1).x));
    vec3 a = FRAME(u_smoothed, int(corner.x)).xyz - s;
    vec3 b = FRAME(u_smoothed, int(corner.y)).xyz - s;
    vec3 n = cross(a, b);
    float ia = inverse_length(dot(a, a)), in_ = inverse_length(dot(n, n));
    r += a * (d.x * ia) + cross(n, a) * (d.y * ia * in_) + n * (d.z * in_);
  }
  return vec4(s + r, 0.0);
}
)GLSL";

const char* const kMushScatterKernel = R"GLSL(
uniform highp usampler2D u_welded_of;
uniform highp usampler2D u_weld;
uniform vec3 u_centre;
uniform float u_scale;
uniform bool u_smooth_only;
FRAME_TABLE(u_input, InputTable, 1)
FRAME_TABLE(u_mushed, MushedTable, 2)
vec4 kernel(int v) {
  int w = int(fetch_u(u_welded_of, v).x);
  vec3 p = FRAME(u_input, v).xyz;
  bool keep = fetch_u(u_weld, 2 * w + 1).w != 0u;
  if (keep && !u_smooth_only) return vec4(p, 0.0);
  vec3 mushed = FRAME(u_mushed, w).xyz + u_centre;
  if (u_scale == 1.0 || u_smooth_only) return vec4(mushed, 0.0);
  return vec4(p + u_scale * (mushed - p), 0.0);
}
)GLSL";

const char* const kNormalsKernel = R"GLSL(
uniform highp usampler2D u_vertex_corners;  // per vertex: first corner, count
uniform highp usampler2D u_corner_vertices;  // per corner: the triangle's next and previous vertex
FRAME_TABLE(u_positions, PositionTable, 1)
vec4 kernel(int v) {
  uvec2 range = fetch_u(u_vertex_corners, v).xy;
  vec3 p = FRAME(u_positions, v).xyz;
  vec3 n = vec3(0.0);
  int end = int(range.x + range.y);
  for (int c = int(range.x); c < end; ++c) {
    uvec2 corner = fetch_u(u_corner_vertices, c).xy;
    n += cross(FRAME(u_positions, int(corner.x)).xyz - p, FRAME(u_positions, int(corner.y)).xyz - p);
  }
  float length2 = dot(n, n);
  return vec4(length2 > 0.0 ? n * inversesqrt(length2) : vec3(0.0, 1.0, 0.0), 0.0);
}
)GLSL";

const char* const kRotationFunctions = R"GLSL(
float frobenius2(mat3 m) { return dot(m[0], m[0]) + dot(m[1], m[1]) + dot(m[2], m[2]); }

// The rotation of the unit quaternion q = (x, y, z, w).
mat3 rotation_of(vec4 q) {
  float x = q.x, y = q.y, z = q.z, w = q.w;
  return mat3(1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y + z * w), 2.0 * (x * z - y * w),
              2.0 * (x * y - z * w), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z + x * w),
              2.0 * (x * z + y * w), 2.0 * (y * z - x * w), 1.0 - 2.0 * (x * x + y * y));
}

// X <- (g X + X^-T / g) / 2, g = (|X^-1| / |X|)^(1/2) until near convergence, then g = 1 (the
// CPU kernel's schedule). False for matrices it cannot fit: zero, not finite, det not safely > 0.
bool polar_newton(mat3 m, out mat3 r) {
  r = mat3(1.0);
  float norm2 = frobenius2(m);
  if (!(norm2 > 0.0 && norm2 < 3.0e38)) return false;
  mat3 x = m * inversesqrt(norm2 / 3.0);
  bool scaling = true;
  for (int iteration = 0; iteration < 30; ++iteration) {
    mat3 cof = mat3(cross(x[1], x[2]), cross(x[2], x[0]), cross(x[0], x[1]));  // det X^-T
    float det = dot(x[0], cof[0]);
    if (!(det > 1e-6)) return false;
    float g = scaling ? sqrt(sqrt(frobenius2(cof) / (det * det * frobenius2(x)))) : 1.0;
    mat3 next = (0.5 * g) * x + (0.5 / (det * g)) * cof;
    mat3 step = next - x;
    float change = frobenius2(step);
    x = next;
    if (!scaling && change < 1e-10) break;
    if (change < 1e-4) scaling = false;
  }
  r = x;
  return true;
}

// The rotation maximising trace(R^T m) for any m (singular, reflecting): the quaternion of the
// largest eigenvalue of Horn's symmetric 4x4 matrix of S = m^T (Horn 1987, "Closed-form
// solution of absolute orientation using unit quaternions"), by cyclic Jacobi rotations.
mat3 rotation_by_eigenvector(mat3 m) {
  // m[c][r] is row r of column c, so S_ab = M_ba = m[a][b].
  float xx = m[0][0], xy = m[0][1], xz = m[0][2], yx = m[1][0], yy = m[1][1], yz = m[1][2];
  float zx = m[2][0], zy = m[2][1], zz = m[2][2];
  mat4 a = mat4(xx + yy + zz, yz - zy, zx - xz, xy - yx,  // quaternion order (w, x, y, z); symmetric
                yz - zy, xx - yy - zz, xy + yx, zx + xz,
                zx - xz, xy + yx, yy - xx - zz, yz + zy,
                xy - yx, zx + xz, yz + zy, zz - xx - yy);
  mat4 v = mat4(1.0);
  for (int sweep = 0; sweep < 6; ++sweep) {
    for (int p = 0; p < 3; ++p) {
      for (int q = p + 1; q < 4; ++q) {
        float apq = a[q][p];
        if (abs(apq) < 1e-30) continue;
        float theta = (a[q][q] - a[p][p]) / (2.0 * apq);
        float t = (theta >= 0.0 ? 1.0 : -1.0) / (abs(theta) + sqrt(theta * theta + 1.0));
        float c = inversesqrt(t * t + 1.0), s = t * c;
        mat4 j = mat4(1.0);  // the rotation that zeroes a_pq: J_pp = J_qq = c, J_pq = s, J_qp = -s
        j[p][p] = c;
        j[q][q] = c;
        j[q][p] = s;
        j[p][q] = -s;
        a = transpose(j) * a * j;
        v = v * j;
      }
    }
  }
  int best = 0;
  for (int i = 1; i < 4; ++i) {
    if (a[i][i] > a[best][best]) best = i;
  }
  return rotation_of(normalize(vec4(v[best].yzw, v[best].x)));
}

mat3 nearest_rotation(mat3 m) {
  mat3 r;
  if (polar_newton(m, r)) return r;
  float norm2 = frobenius2(m);
  return norm2 > 0.0 && norm2 < 3.0e38 ? rotation_by_eigenvector(m * inversesqrt(norm2 / 3.0)) : mat3(1.0);
}
)GLSL";

// u_vertices per vertex: (p, linear fallback), (u - p, 0), v1 also the covariance (xx xy xz yy),
// (yz zz, -, -). u_slots per (vertex, slot): v0 (Omega 0..3), (Omega 4..7), (Omega 8, 9, joint,
// psi); other variants (-, -, joint, psi).
const char* const kDirectDeltaMushKernel = R"GLSL(
uniform sampler2D u_vertices;
uniform sampler2D u_slots;
uniform sampler2D u_quaternions;  // per joint: its nearest rotation (x, y, z, w)
uniform int u_width;
#if DDM_VARIANT == 0
const int kSlotTexels = 3;
#else
const int kSlotTexels = 1;
#endif
#if DDM_VARIANT == 1
const int kVertexTexels = 4;
#else
const int kVertexTexels = 2;
#endif

int slot_texel(int v, int s) { return (v * u_width + s) * kSlotTexels; }
vec2 joint_and_psi(int v, int s) { return fetch(u_slots, slot_texel(v, s) + kSlotTexels - 1).zw; }

// The psi-weighted blend of the joints' quaternions, in the hemisphere of the strongest (slot 0).
vec4 blended_quaternion(int v) {
  vec4 first = fetch(u_quaternions, int(joint_and_psi(v, 0).x + 0.5));
  vec4 sum = vec4(0.0);
  for (int s = 0; s < u_width; ++s) {
    vec2 jp = joint_and_psi(v, s);
    vec4 q = fetch(u_quaternions, int(jp.x + 0.5));
    sum += (dot(q, first) < 0.0 ? -jp.y : jp.y) * q;
  }
  return normalize(sum);
}

// The psi-weighted blend of the joints' matrices.
mat4 blended_joints(int v) {
  mat4 m = mat4(0.0);
  for (int s = 0; s < u_width; ++s) {
    vec2 jp = joint_and_psi(v, s);
    if (jp.y != 0.0) m += jp.y * skinning_matrix(int(jp.x + 0.5));
  }
  return m;
}

vec4 kernel(int v) {
  vec4 t0 = fetch(u_vertices, v * kVertexTexels);
  vec3 p = t0.xyz, u = fetch(u_vertices, v * kVertexTexels + 1).xyz;
  if (t0.w != 0.0) return vec4((blended_joints(v) * vec4(p + u, 1.0)).xyz, 0.0);  // degenerate neighbourhood
#if DDM_VARIANT == 0
  mat3 q_bar = mat3(0.0);
  vec3 q = vec3(0.0);
  for (int s = 0; s < u_width; ++s) {
    int k = slot_texel(v, s);
    vec4 a = fetch(u_slots, k), b = fetch(u_slots, k + 1), c = fetch(u_slots, k + 2);
    if (c.y == 0.0) continue;
    mat4 m = skinning_matrix(int(c.z + 0.5));
    mat3 l = mat3(m);
    vec3 t = l * p + m[3].xyz;  // the joint's matrix about p
    mat3 omega = mat3(a.x, a.y, a.z, a.y, a.w, b.x, a.z, b.x, b.y);
    vec3 omega_b = vec3(b.z, b.w, c.x);
    q_bar += l * omega + outerProduct(t, omega_b);
    q += l * omega_b + c.y * t;
  }
  return vec4(nearest_rotation(q_bar) * u + q, 0.0);
#else
  mat4 blend = blended_joints(v);
  mat3 l = mat3(blend);
  vec3 moved = l * p + blend[3].xyz;
#if DDM_VARIANT == 1
  vec4 c0 = fetch(u_vertices, v * kVertexTexels + 2), c1 = fetch(u_vertices, v * kVertexTexels + 3);
  mat3 r = nearest_rotation(l * mat3(c0.x, c0.y, c0.z, c0.y, c0.w, c1.x, c0.z, c1.x, c1.y));
#elif DDM_VARIANT == 2
  mat3 r = nearest_rotation(l);
#else
  mat3 r = rotation_of(blended_quaternion(v));
#endif
  return vec4(r * u + moved, 0.0);
#endif
}
)GLSL";

}  // namespace wobble::render::shaders
