// OFF (Geomview's Object File Format, as CGAL's data sets use it) into a Character with an empty
// rig and skin, in stages: the header, the vertices, the faces, the normals.
//
// Texture coordinates: OFF puts v = 0 at the bottom of the image, Mesh::uvs follows glTF (v = 0 at
// the top), so v is flipped on the way in.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include <wobble/error.hpp>
#include <wobble/io/files.hpp>

#include "core/fail.hpp"
#include "text_format.hpp"

namespace wobble {
namespace {

using namespace text_format;

struct OffHeader {
  bool st = false, color = false, normal = false;  // per-vertex fields the keyword announces
  std::size_t vertices = 0, faces = 0;

  std::size_t numbers_per_vertex() const { return 3 + (normal ? 3 : 0) + (st ? 2 : 0); }
};

// The keyword: [ST][C][N][4][n]OFF. Texture coordinates, colours and normals are optional
// per-vertex fields; 4D and n-dimensional variants are not meshes wobble can use.
OffHeader off_keyword(const fs::path& path, std::string_view keyword, int line) {
  if (keyword.size() < 3 || keyword.substr(keyword.size() - 3) != "OFF")
    fail(path, "line {}: not an OFF file (expected OFF, COFF, NOFF ... as the first word, found '{}')", line,
         shown(keyword));
  OffHeader header;
  std::string_view prefix = keyword.substr(0, keyword.size() - 3);
  if (prefix.starts_with("ST")) header.st = true, prefix.remove_prefix(2);
  if (prefix.starts_with("C")) header.color = true, prefix.remove_prefix(1);
  if (prefix.starts_with("N")) header.normal = true, prefix.remove_prefix(1);
  if (prefix == "4" || prefix == "n" || prefix == "4n")
    fail(path, "line {}: {} (4D or n-dimensional vertices) is not supported", line, shown(keyword));
  if (!prefix.empty()) fail(path, "line {}: unknown OFF variant '{}'", line, shown(keyword));
  return header;
}

// The counts "vertices faces [edges]", checked against what the file's size can hold before
// anything is allocated: each vertex needs at least "0 0 0\n", each face "3 0 0 0\n".
void read_off_counts(const fs::path& path, const std::vector<std::string_view>& counts, int line, std::size_t text_size,
                     OffHeader& header) {
  if (counts.size() < 2 || counts.size() > 3)
    fail(path, "line {}: bad counts line, expected 'vertices faces [edges]'", line);
  long long vertex_count = 0, face_count = 0, edge_count = 0;
  if (!parse_long(counts[0], vertex_count) || !parse_long(counts[1], face_count) ||
      (counts.size() == 3 && !parse_long(counts[2], edge_count)))
    fail(path, "line {}: bad counts line, expected three whole numbers", line);
  if (vertex_count < 0 || face_count < 0 || edge_count < 0) fail(path, "line {}: negative vertex or face count", line);
  if (vertex_count > static_cast<long long>(text_size / 6) || face_count > static_cast<long long>(text_size / 8))
    fail(path, "truncated: the header promises {} vertices and {} faces, the file has only {} bytes", vertex_count,
         face_count, text_size);
  if (vertex_count > std::numeric_limits<std::uint32_t>::max() / 2)
    fail(path, "line {}: too many vertices ({})", line, vertex_count);
  header.vertices = static_cast<std::size_t>(vertex_count);
  header.faces = static_cast<std::size_t>(face_count);
}

// The keyword line, and the counts on it or on the next non-empty line.
OffHeader read_off_header(const fs::path& path, std::size_t text_size, Lines& lines) {
  std::string_view line;
  std::vector<std::string_view> tokens;
  if (!lines.next_nonempty(line)) fail(path, "empty file, expected an OFF header");
  split(line, tokens);
  OffHeader header = off_keyword(path, tokens[0], lines.number());
  std::vector<std::string_view> counts(tokens.begin() + 1, tokens.end());
  if (!counts.empty() && counts[0] == "BINARY") fail(path, "binary OFF is not supported");
  if (counts.empty()) {
    if (!lines.next_nonempty(line)) fail(path, "truncated: no vertex and face counts after the header");
    split(line, tokens);
    counts = tokens;
  }
  read_off_counts(path, counts, lines.number(), text_size, header);
  return header;
}

float off_number(const fs::path& path, std::string_view token, int line, std::size_t v) {
  float value = 0;
  if (!parse_float(token, value)) fail(path, "line {}: vertex {}: '{}' is not a number", line, v, shown(token));
  if (!std::isfinite(value)) fail(path, "line {}: vertex {} is not finite ({})", line, v, shown(token));
  return value;
}

// Vertex v from its tokens: position, then the normal (N), the texture coordinate last (ST).
// Returns whether the line holds values the keyword does not announce.
bool read_off_vertex(const fs::path& path, const OffHeader& header, const std::vector<std::string_view>& tokens,
                     int line, std::size_t v, Mesh& mesh) {
  const std::size_t needed = header.numbers_per_vertex();
  if (tokens.size() < needed)
    fail(path, "line {}: vertex {} has {} numbers, expected at least {}", line, v, tokens.size(), needed);
  auto number = [&](std::size_t k) { return off_number(path, tokens[k], line, v); };
  mesh.positions[v] = Vec3f(number(0), number(1), number(2));
  if (header.normal) mesh.normals[v] = Vec3f(number(3), number(4), number(5));
  if (header.st) mesh.uvs[v] = Vec2f(number(tokens.size() - 2), 1.0f - number(tokens.size() - 1));
  // Without C (or ST) in the keyword nothing may follow the coordinates: say so rather than guess
  // (a free-format file with several vertices on a line would be misread).
  return !header.color && !header.st && tokens.size() > needed;
}

// Reads `count` items from the next non-empty lines (the file must not end before) and counts
// those for which item(tokens, line number, k) is true.
template <typename Item>
std::size_t count_items(const fs::path& path, Lines& lines, std::size_t count, const char* what, Item&& item) {
  std::string_view line;
  std::vector<std::string_view> tokens;
  std::size_t counted = 0;
  for (std::size_t k = 0; k < count; ++k) {
    if (!lines.next_nonempty(line))
      fail(path, "truncated: the header promises {} {}, the file ends after {}", count, what, k);
    split(line, tokens);
    counted += item(tokens, lines.number(), k);
  }
  return counted;
}

void read_off_vertices(const fs::path& path, const OffHeader& header, Lines& lines, Character& character) {
  Mesh& mesh = character.mesh;
  mesh.positions.resize(header.vertices);
  if (header.normal) mesh.normals.resize(header.vertices);
  if (header.st) mesh.uvs.resize(header.vertices);
  const std::size_t extra_values =
      count_items(path, lines, header.vertices, "vertices", [&](const auto& tokens, int line, std::size_t v) {
        return read_off_vertex(path, header, tokens, line, v, mesh);
      });
  if (extra_values)
    character.diagnostics.repair(
        "off_extra_vertex_values",
        "vertex lines with more values than the header announces: the extra values were ignored", extra_values);
}

// Face f as a fan of triangles; false for a face of fewer than three vertices (no surface).
bool read_off_face(const fs::path& path, const std::vector<std::string_view>& tokens, int line, std::size_t f,
                   std::size_t vertex_count, Mesh& mesh) {
  long long n = 0;
  if (!parse_long(tokens[0], n) || n < 0)
    fail(path, "line {}: face {}: '{}' is not a vertex count", line, f, shown(tokens[0]));
  if (static_cast<long long>(tokens.size()) - 1 < n)
    fail(path, "line {}: face {} should list {} vertices but lists {}", line, f, n, tokens.size() - 1);
  std::uint32_t first = 0, previous = 0;
  for (long long k = 0; k < n; ++k) {
    long long index = 0;
    if (!parse_long(tokens[1 + k], index))
      fail(path, "line {}: face {}: '{}' is not a vertex index", line, f, shown(tokens[1 + k]));
    if (index < 0 || index >= static_cast<long long>(vertex_count))
      fail(path, "line {}: face {} refers to vertex {}, but there are only {} vertices (0 to {})", line, f, index,
           vertex_count, static_cast<long long>(vertex_count) - 1);
    const auto i = static_cast<std::uint32_t>(index);
    if (n < 3) continue;
    if (k == 0)
      first = i;
    else if (k >= 2)
      mesh.triangles.push_back({first, previous, i});
    previous = i;
  }
  return n >= 3;
}

void read_off_faces(const fs::path& path, const OffHeader& header, Lines& lines, Character& character) {
  character.mesh.triangles.reserve(header.faces);
  const std::size_t skipped =
      count_items(path, lines, header.faces, "faces", [&](const auto& tokens, int line, std::size_t f) {
        return !read_off_face(path, tokens, line, f, header.vertices, character.mesh);
      });
  if (skipped)
    character.diagnostics.repair("off_face_too_small", "faces with fewer than three vertices are not surfaces: skipped",
                                 skipped);
}

// The file's normals made unit length, or dropped (with a repair) when one is zero.
void unit_normals(Character& character) {
  std::size_t bad = 0;
  for (Vec3f& n : character.mesh.normals) {
    const float length = n.norm();
    if (length > 1e-12f)
      n /= length;
    else
      ++bad;
  }
  if (!bad) return;
  character.mesh.normals.clear();
  character.diagnostics.repair("off_zero_normals", "zero-length vertex normals: normals dropped", bad);
}

}  // namespace

Character read_off(const fs::path& path) {
  const std::string text = read_text(path, "an OFF file");
  Lines lines(text);
  const OffHeader header = read_off_header(path, text.size(), lines);
  Character character;
  character.source = path;
  read_off_vertices(path, header, lines, character);
  read_off_faces(path, header, lines, character);
  if (header.normal) unit_normals(character);
  Primitive primitive;
  primitive.name = path.stem().string();
  primitive.vertex_count = static_cast<std::uint32_t>(header.vertices);
  primitive.triangle_count = static_cast<std::uint32_t>(character.mesh.triangles.size());
  character.mesh.primitives.push_back(primitive);
  return character;
}

}  // namespace wobble
