// USD text output (usda 1.0): a Mesh with time-sampled points, extent and normals, and UVs as
// the primvar `st`, following the usda grammar and the UsdGeomMesh / UsdGeomPointBased
// schemas of the OpenUSD documentation. Numbers are written in their shortest exact form, so
// the file holds the baked floats bit for bit.
#include <wobble/io/usd_write.hpp>

#include <cmath>
#include <iterator>
#include <vector>

#include <fmt/format.h>

#include <wobble/io/atomic_file.hpp>
#include <wobble/io/output_file.hpp>
#include <wobble/error.hpp>
#include <wobble/mesh_topology.hpp>

#include "core/fail.hpp"

namespace wobble {

namespace {

using Buffer = fmt::memory_buffer;

template <typename... Args>
void put(Buffer& out, fmt::format_string<Args...> format, Args&&... args) {
  fmt::format_to(std::back_inserter(out), format, std::forward<Args>(args)...);
}

// A prim name is an identifier: [A-Za-z_][A-Za-z0-9_]*.
std::string prim_name(const std::string& wanted, const char* fallback) {
  std::string name;
  for (char c : wanted) {
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    const bool digit = c >= '0' && c <= '9';
    name.push_back(letter || digit ? c : '_');
  }
  if (name.empty()) return fallback;
  if (name[0] >= '0' && name[0] <= '9') name.insert(name.begin(), '_');
  return name;
}

// A usda string literal: double quotes, with quotes and backslashes escaped, on one line.
std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c == '\n' || c == '\r' ? ' ' : c);
  }
  return out + "\"";
}

// Time code of a frame: t * fps, snapped to the nearest integer when within 1e-3 of it (frame
// times are float seconds: 0.1f * 30 is 3.0000000447).
double time_code(float t, double fps) {
  const double code = static_cast<double>(t) * fps;
  const double nearest = std::round(code);
  return std::abs(code - nearest) < 1e-3 ? nearest : code;
}

void append_vec3(Buffer& out, const Vec3f& v) { put(out, "({}, {}, {})", v.x(), v.y(), v.z()); }

void append_vec3_array(Buffer& out, const std::vector<Vec3f>& values) {
  out.push_back('[');
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i) put(out, ", ");
    append_vec3(out, values[i]);
  }
  out.push_back(']');
}

// Normals of a deformed frame. The surface's own normal (area weighted, over vertices welded by
// rest position, so that UV seams do not show) turns each rest normal by the smallest rotation
// that takes the welded rest normal to the welded deformed one: smooth where the rest mesh is
// smooth, hard edges kept where the rest mesh has them.
class FrameNormals {
 public:
  explicit FrameNormals(const Mesh& mesh)
      : welding_(Welding::by_position(mesh.positions)), triangles_(welding_.weld(mesh.triangles)), rest_(mesh.normals) {
    rest_welded_ = welded_normals(mesh.positions);
  }

  std::vector<Vec3f> of(const std::vector<Vec3f>& positions) const {
    const std::vector<Vec3f> deformed = welded_normals(positions);
    std::vector<Vec3f> normals(positions.size());
    for (std::size_t v = 0; v < positions.size(); ++v) {
      const std::uint32_t w = welding_.welded_of[v];
      normals[v] = rest_.empty() ? deformed[w] : turned(rest_[v], rest_welded_[w], deformed[w]);
    }
    return normals;
  }

 private:
  // Area-weighted unit normals per welded vertex (+Y where no triangle gives one).
  std::vector<Vec3f> welded_normals(const std::vector<Vec3f>& positions) const {
    std::vector<Eigen::Vector3d> sum(welding_.welded_count, Eigen::Vector3d::Zero());
    std::vector<Eigen::Vector3d> any(welding_.welded_count, Eigen::Vector3d::Zero());
    for (std::uint32_t v = 0; v < positions.size(); ++v) any[welding_.welded_of[v]] = positions[v].cast<double>();
    for (const Triangle& t : triangles_) {
      const Eigen::Vector3d n = (any[t[1]] - any[t[0]]).cross(any[t[2]] - any[t[0]]);
      for (std::uint32_t corner : t) sum[corner] += n;
    }
    std::vector<Vec3f> unit(sum.size());
    for (std::size_t w = 0; w < sum.size(); ++w) {
      const double length = sum[w].norm();
      unit[w] = length > 1e-30 ? Vec3f((sum[w] / length).cast<float>()) : Vec3f::UnitY();
    }
    return unit;
  }

  // n turned by the rotation taking unit a to unit b: R n = c n + w x n + w (w . n) / (1 + c),
  // c = a . b, w = a x b (Rodrigues' formula without the angle).
  static Vec3f turned(const Vec3f& n, const Vec3f& a, const Vec3f& b) {
    const Eigen::Vector3d nd = n.cast<double>(), ad = a.cast<double>(), bd = b.cast<double>();
    const double c = ad.dot(bd);
    if (c < -0.999999) return b;  // turned over: no unique rotation, take the surface's normal
    const Eigen::Vector3d w = ad.cross(bd);
    Eigen::Vector3d r = c * nd + w.cross(nd) + w * (w.dot(nd) / (1 + c));
    const double length = r.norm();
    return length > 1e-30 ? Vec3f((r / length).cast<float>()) : b;
  }

  Welding welding_;
  std::vector<Triangle> triangles_;
  std::vector<Vec3f> rest_, rest_welded_;
};

void check(const std::filesystem::path& path, const Mesh& mesh, const BakedFrames& baked, double fps) {
  if (!std::isfinite(fps) || fps <= 0)
    fail(path, "frame rate must be a positive number of frames per second (got {})", fps);
  if (baked.positions.empty()) fail(path, "no frames to write");
  if (baked.times.size() != baked.positions.size()) {
    fail(path, "{} frame times for {} frames of positions", baked.times.size(), baked.positions.size());
  }
  if (mesh.triangles.empty()) fail(path, "the mesh has no triangles: USD needs faces");
  for (std::size_t f = 0; f < baked.positions.size(); ++f) {
    if (baked.positions[f].size() != mesh.vertex_count()) {
      fail(path, "frame {} has {} points, the mesh {} vertices", f, baked.positions[f].size(), mesh.vertex_count());
    }
    if (!std::isfinite(baked.times[f])) fail(path, "frame {} has a non-finite time", f);
    if (f > 0 && !(time_code(baked.times[f], fps) > time_code(baked.times[f - 1], fps))) {
      fail(path, "frame times must increase (frame {})", f);
    }
    for (std::size_t v = 0; v < baked.positions[f].size(); ++v) {
      if (!baked.positions[f][v].allFinite()) fail(path, "frame {} vertex {} is not finite", f, v);
    }
  }
}

void write_stage_header(Buffer& out, const std::string& root, const std::string& description, double fps, double first,
                        double last) {
  put(out, "#usda 1.0\n(\n");
  put(out, "    defaultPrim = {}\n", quoted(root));
  if (!description.empty()) put(out, "    doc = {}\n", quoted(description));
  put(out, "    endTimeCode = {}\n", last);
  put(out, "    framesPerSecond = {}\n", fps);
  put(out, "    metersPerUnit = 1\n");
  put(out, "    startTimeCode = {}\n", first);
  put(out, "    timeCodesPerSecond = {}\n", fps);
  put(out, "    upAxis = \"Y\"\n)\n\n");
}

void write_topology(Buffer& out, const Mesh& mesh) {
  put(out, "        int[] faceVertexCounts = [");
  for (std::size_t t = 0; t < mesh.triangles.size(); ++t) put(out, "{}3", t ? ", " : "");
  put(out, "]\n        int[] faceVertexIndices = [");
  for (std::size_t t = 0; t < mesh.triangles.size(); ++t) {
    const Triangle& tri = mesh.triangles[t];
    put(out, "{}{}, {}, {}", t ? ", " : "", tri[0], tri[1], tri[2]);
  }
  put(out, "]\n");
}

// UVs: glTF's (0, 0) is the image's top left, USD's st (0, 0) its bottom left: st = (u, 1 - v).
void write_uvs(Buffer& out, const Mesh& mesh) {
  if (mesh.uvs.size() != mesh.vertex_count()) return;
  put(out, "        texCoord2f[] primvars:st = [");
  for (std::size_t v = 0; v < mesh.uvs.size(); ++v)
    put(out, "{}({}, {})", v ? ", " : "", mesh.uvs[v].x(), 1.0f - mesh.uvs[v].y());
  put(out, "] (\n            interpolation = \"vertex\"\n        )\n");
}

// `TYPE NAME.timeSamples = { code: value, ... }`, one frame at a time into the stream.
template <typename Value>
void write_time_samples(OutputFile& stream, const char* declaration, const std::vector<double>& codes,
                        Value&& value_of) {
  Buffer frame;
  put(frame, "        {}.timeSamples = {{\n", declaration);
  for (std::size_t f = 0; f < codes.size(); ++f) {
    put(frame, "            {}: ", codes[f]);
    value_of(f, frame);
    put(frame, ",\n");
    stream.write(std::string_view(frame.data(), frame.size()));
    frame.clear();
  }
  stream.write("        }\n");
}

}  // namespace

void write_usda(const std::filesystem::path& path, const Character& character, const BakedFrames& baked,
                double frame_rate, const std::string& description) {
  const Mesh& mesh = character.mesh;
  check(path, mesh, baked, frame_rate);
  std::vector<double> codes;
  for (float t : baked.times) codes.push_back(time_code(t, frame_rate));
  const std::string root = prim_name(character.source.stem().string(), "Character");
  const std::string mesh_name =
      prim_name(mesh.primitives.empty() ? std::string() : mesh.primitives.front().name, "Mesh");
  const FrameNormals normals(mesh);

  AtomicOutput output(path);
  {
    OutputFile stream(output.temporary(), output.target());
    Buffer head;
    write_stage_header(head, root, description, frame_rate, codes.front(), codes.back());
    put(head, "def Xform {}\n{{\n    def Mesh {}\n    {{\n", quoted(root),
        quoted(mesh_name == root ? mesh_name + "_mesh" : mesh_name));
    write_topology(head, mesh);
    stream.write(std::string_view(head.data(), head.size()));
    write_time_samples(stream, "float3[] extent", codes, [&](std::size_t f, Buffer& out) {
      Eigen::AlignedBox3f box;
      for (const Vec3f& p : baked.positions[f]) box.extend(p);
      out.push_back('[');
      append_vec3(out, box.min());
      put(out, ", ");
      append_vec3(out, box.max());
      out.push_back(']');
    });
    stream.write("        normal3f[] normals (\n            interpolation = \"vertex\"\n        )\n");
    write_time_samples(stream, "normal3f[] normals", codes,
                       [&](std::size_t f, Buffer& out) { append_vec3_array(out, normals.of(baked.positions[f])); });
    stream.write("        uniform token orientation = \"rightHanded\"\n");
    write_time_samples(stream, "point3f[] points", codes,
                       [&](std::size_t f, Buffer& out) { append_vec3_array(out, baked.positions[f]); });
    Buffer tail;
    write_uvs(tail, mesh);
    put(tail, "        uniform token subdivisionScheme = \"none\"\n    }}\n}}\n");
    stream.write(std::string_view(tail.data(), tail.size()));
    stream.close();
  }
  output.commit();
}

}  // namespace wobble
