#include "render/shaders.hpp"

#include "render/gpu_kernel.hpp"

namespace wobble::render::shaders {

const char* const kMeshVertex = R"GLSL(
layout(location = 0) in vec3 a_position;  // CPU path: deformed, world space; GPU path: bind space
layout(location = 1) in vec3 a_normal;
layout(location = 2) in vec2 a_uv;
layout(location = 3) in float a_scalar;
uniform mat4 u_view_projection;
out vec3 v_position;
out vec3 v_normal;
out vec2 v_uv;
out float v_scalar;

#ifdef GPU_SKINNING
layout(location = 4) in uvec4 a_ranges;   // skin: first, count; dynamic pairs: first, count
layout(location = 5) in float a_gamma;    // bend weight
#endif

void main() {
#ifdef GPU_SKINNING
  mat4 m = blended_matrix(a_ranges);
  vec3 p = (m * vec4(a_position, 1.0)).xyz;
  vec3 n = mat3(m) * a_normal;
  if (u_dynamic) p += dynamic_offset(p, a_ranges, a_gamma);
#else
  vec3 p = a_position;
  vec3 n = a_normal;
#endif
  v_position = p;
  v_normal = n;
  v_uv = a_uv;
  v_scalar = a_scalar;
  gl_Position = u_view_projection * vec4(p, 1.0);
}
)GLSL";

const char* const kSkinningMatrices = R"GLSL(
uniform sampler2D u_matrices;  // per joint 4 texels: the columns of world * inverse_bind
mat4 skinning_matrix(int joint) {
  return mat4(fetch(u_matrices, 4 * joint), fetch(u_matrices, 4 * joint + 1), fetch(u_matrices, 4 * joint + 2),
              fetch(u_matrices, 4 * joint + 3));
}
)GLSL";

const char* const kSkinningFunctions = R"GLSL(
uniform sampler2D u_skin;      // per influence: (joint, weight)
uniform sampler2D u_pairs;     // per (vertex, joint) pair: (joint, beta)
uniform sampler2D u_joints;    // per joint 4 texels: q, G = F/L, n = F/|F|, L/|F|, linear offset
uniform bool u_dynamic;
uniform float u_inv_max_angle2;

// The weighted sum of the skinning matrices of the influences ranges.xy (first, count).
mat4 blended_matrix(uvec4 ranges) {
  mat4 m = mat4(0.0);
  int first = int(ranges.x), count = int(ranges.y);
  for (int k = 0; k < count; ++k) {
    vec2 influence = fetch(u_skin, first + k).xy;
    m += influence.y * skinning_matrix(int(influence.x + 0.5));
  }
  return m;
}

// The bend of METHOD_NOTES section 1 over the pairs ranges.zw (first, count): p turns about the
// axis through q along F by theta = -gamma |G x u|, softened by the max angle, weighted by beta;
// plus the linear push.
vec3 dynamic_offset(vec3 p, uvec4 ranges, float gamma) {
  vec3 d = vec3(0.0);
  int first = int(ranges.z), count = int(ranges.w);
  for (int k = 0; k < count; ++k) {
    vec2 pair = fetch(u_pairs, first + k).xy;
    int j = int(pair.x + 0.5);
    float beta = pair.y;
    vec4 t0 = fetch(u_joints, 4 * j), t1 = fetch(u_joints, 4 * j + 1), t2 = fetch(u_joints, 4 * j + 2),
         t3 = fetch(u_joints, 4 * j + 3);
    vec3 q = t0.xyz, g = vec3(t0.w, t1.xy), n = vec3(t1.zw, t2.x), lin = vec3(t2.zw, t3.x);
    float inv_g = t2.y;
    vec3 u = p - q;
    vec3 c = cross(g, u);
    float raw = -gamma * length(c);
    float theta = raw / sqrt(1.0 + raw * raw * u_inv_max_angle2);
    float h = sin(0.5 * theta);
    float cos_m1 = -2.0 * h * h;  // cos(theta) - 1 without cancellation
    vec3 perp = u - n * dot(n, u);
    d += beta * (cos_m1 * perp + sin(theta) * inv_g * c) + beta * gamma * lin;
  }
  return d;
}
)GLSL";

std::string skinned_mesh_vertex() {
  return std::string(kTableAccess) + kSkinningMatrices + kSkinningFunctions + kMeshVertex;
}

const char* const kMeshFragment = R"GLSL(
in vec3 v_position;
in vec3 v_normal;
in vec2 v_uv;
in float v_scalar;
uniform vec3 u_eye;
uniform vec4 u_base_color;     // linear RGBA
uniform bool u_textured;
uniform sampler2D u_texture;   // sRGB-encoded base colour
uniform bool u_heat_map;
uniform vec2 u_scalar_range;
out vec4 o_color;

// Blue - cyan - green - yellow - red.
vec3 heat(float x) {
  x = clamp(x, 0.0, 1.0);
  return clamp(vec3(1.5 - abs(4.0 * x - 3.0), 1.5 - abs(4.0 * x - 2.0), 1.5 - abs(4.0 * x - 1.0)), 0.0, 1.0);
}

void main() {
  vec3 to_eye = normalize(u_eye - v_position);
  vec3 n = normalize(v_normal);
  if (dot(n, to_eye) < 0.0) n = -n;  // two-sided
  vec3 albedo;
  if (u_heat_map) {
    float span = max(u_scalar_range.y - u_scalar_range.x, 1e-20);
    albedo = pow(heat((v_scalar - u_scalar_range.x) / span), vec3(2.2));
  } else {
    albedo = u_base_color.rgb;
    if (u_textured) {
      // Opaque materials ignore alpha (glTF); where a texture is transparent anyway (a tint
      // mask, as OpenClonk's player colour) a clay tone stands in for the missing colour.
      vec4 texel = texture(u_texture, v_uv);
      albedo *= mix(vec3(0.62, 0.45, 0.34), pow(texel.rgb, vec3(2.2)), texel.a);
    }
  }
  // A key light from above the camera's right shoulder, a fill light, and sky/ground ambient.
  vec3 key = normalize(to_eye + vec3(0.0, 1.2, 0.0));
  float diffuse = max(dot(n, key), 0.0);
  float fill = 0.5 + 0.5 * dot(n, normalize(vec3(-0.6, 0.3, -0.5)));
  float ambient = mix(0.18, 0.35, 0.5 + 0.5 * n.y);
  vec3 h = normalize(key + to_eye);
  float specular = 0.12 * pow(max(dot(n, h), 0.0), 40.0);
  vec3 linear = albedo * (0.85 * diffuse + 0.12 * fill + ambient) + vec3(specular);
  o_color = vec4(pow(clamp(linear, 0.0, 1.0), vec3(1.0 / 2.2)), 1.0);
}
)GLSL";

const char* const kLinesVertex = R"GLSL(
layout(location = 0) in vec3 a_position;
layout(location = 1) in vec4 a_color;
uniform mat4 u_view_projection;
uniform float u_point_size;
out vec4 v_color;
out vec3 v_position;
void main() {
  v_color = a_color;
  v_position = a_position;
  gl_PointSize = u_point_size;
  gl_Position = u_view_projection * vec4(a_position, 1.0);
}
)GLSL";

const char* const kLinesFragment = R"GLSL(
in vec4 v_color;
in vec3 v_position;
uniform vec3 u_fade_centre;
uniform float u_fade_radius;   // 0: no fading
uniform bool u_round_points;
out vec4 o_color;
void main() {
  float alpha = v_color.a;
  if (u_fade_radius > 0.0) {
    float r = length((v_position - u_fade_centre).xz) / u_fade_radius;
    alpha *= 1.0 - smoothstep(0.5, 1.0, r);
  }
  if (u_round_points && length(gl_PointCoord - vec2(0.5)) > 0.5) discard;
  o_color = vec4(v_color.rgb, alpha);
}
)GLSL";

}  // namespace wobble::render::shaders
