// Static meshes in two text formats: OFF (Geomview's Object File Format, as CGAL's data sets use
// it) and Wavefront OBJ. Both read into a Character with an empty rig and skin.
//
// Texture coordinates: both formats put v = 0 at the bottom of the image, Mesh::uvs follows glTF
// (v = 0 at the top), so v is flipped on the way in and on the way out.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include <wobble/io/atomic_file.hpp>
#include <wobble/io/output_file.hpp>
#include <wobble/error.hpp>
#include <wobble/io/files.hpp>
#include <wobble/io/read_limits.hpp>

#include "core/fail.hpp"

namespace wobble {
namespace {

namespace fs = std::filesystem;

std::string read_text(const fs::path& path, const char* what) {
  const std::vector<std::uint8_t> bytes = read_regular_file(path, what);
  return std::string(bytes.begin(), bytes.end());
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// Splits on whitespace into `tokens` (reused between lines to avoid allocations).
void split(std::string_view s, std::vector<std::string_view>& tokens) {
  tokens.clear();
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && is_space(s[i])) ++i;
    const std::size_t start = i;
    while (i < s.size() && !is_space(s[i])) ++i;
    if (i > start) tokens.push_back(s.substr(start, i - start));
  }
}

// Shows a token in an error message, shortened so the message stays one readable line.
std::string shown(std::string_view token) {
  std::string s(token.substr(0, 40));
  for (char& c : s)
    if (static_cast<unsigned char>(c) < 32 || static_cast<unsigned char>(c) > 126) c = '?';
  return token.size() > 40 ? s + "..." : s;
}

bool parse_float(std::string_view token, float& value) {
  if (!token.empty() && token.front() == '+') token.remove_prefix(1);
  const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  return ec == std::errc() && end == token.data() + token.size();
}

bool parse_long(std::string_view token, long long& value) {
  if (!token.empty() && token.front() == '+') token.remove_prefix(1);
  const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  return ec == std::errc() && end == token.data() + token.size();
}

// Lines of a text file, with line numbers (1-based), '#' comments removed and whitespace trimmed.
class Lines {
 public:
  explicit Lines(const std::string& text) : text_(text) {}
  // The next line (possibly empty); false at the end of the text.
  bool next(std::string_view& line) {
    if (pos_ >= text_.size()) return false;
    std::size_t end = text_.find('\n', pos_);
    if (end == std::string::npos) end = text_.size();
    std::string_view raw(text_.data() + pos_, end - pos_);
    pos_ = end + 1;
    ++number_;
    if (const auto hash = raw.find('#'); hash != std::string_view::npos) raw = raw.substr(0, hash);
    line = trim(raw);
    return true;
  }
  // The next non-empty line; false at the end of the text.
  bool next_nonempty(std::string_view& line) {
    while (next(line))
      if (!line.empty()) return true;
    return false;
  }
  int number() const { return number_; }

 private:
  const std::string& text_;
  std::size_t pos_ = 0;
  int number_ = 0;
};

Character static_character(const fs::path& path) {
  Character character;
  character.source = path;
  return character;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// OFF

Character read_off(const fs::path& path) {
  const std::string text = read_text(path, "an OFF file");
  Lines lines(text);
  std::vector<std::string_view> tokens;
  std::string_view line;

  if (!lines.next_nonempty(line)) fail(path, "empty file, expected an OFF header");
  split(line, tokens);
  // The keyword: [ST][C][N][4][n]OFF. Texture coordinates, colours and normals are optional
  // per-vertex fields; 4D and n-dimensional variants are not meshes wobble can use.
  std::string_view keyword = tokens[0];
  if (keyword.size() < 3 || keyword.substr(keyword.size() - 3) != "OFF")
    fail(path, "line {}: not an OFF file (expected OFF, COFF, NOFF ... as the first word, found '{}')",
         lines.number(), shown(keyword));
  std::string_view prefix = keyword.substr(0, keyword.size() - 3);
  bool has_st = false, has_color = false, has_normal = false;
  if (prefix.starts_with("ST")) has_st = true, prefix.remove_prefix(2);
  if (prefix.starts_with("C")) has_color = true, prefix.remove_prefix(1);
  if (prefix.starts_with("N")) has_normal = true, prefix.remove_prefix(1);
  if (prefix == "4" || prefix == "n" || prefix == "4n")
    fail(path, "line {}: {} (4D or n-dimensional vertices) is not supported", lines.number(), shown(keyword));
  if (!prefix.empty()) fail(path, "line {}: unknown OFF variant '{}'", lines.number(), shown(keyword));
  (void)has_color;  // colours are skipped: Mesh has no vertex colours

  // Counts: on the keyword line or on the next non-empty line.
  std::vector<std::string_view> counts(tokens.begin() + 1, tokens.end());
  if (!counts.empty() && counts[0] == "BINARY") fail(path, "binary OFF is not supported");
  if (counts.empty()) {
    if (!lines.next_nonempty(line)) fail(path, "truncated: no vertex and face counts after the header");
    split(line, tokens);
    counts = tokens;
  }
  const int counts_line = lines.number();
  if (counts.size() < 2 || counts.size() > 3)
    fail(path, "line {}: bad counts line, expected 'vertices faces [edges]'", counts_line);
  long long vertex_count = 0, face_count = 0, edge_count = 0;
  if (!parse_long(counts[0], vertex_count) || !parse_long(counts[1], face_count) ||
      (counts.size() == 3 && !parse_long(counts[2], edge_count)))
    fail(path, "line {}: bad counts line, expected three whole numbers", counts_line);
  if (vertex_count < 0 || face_count < 0 || edge_count < 0)
    fail(path, "line {}: negative vertex or face count", counts_line);
  // Each vertex needs at least "0 0 0\n", each face "3 0 0 0\n": refuse counts the file cannot hold
  // before allocating anything.
  if (vertex_count > static_cast<long long>(text.size() / 6) || face_count > static_cast<long long>(text.size() / 8))
    fail(path, "truncated: the header promises {} vertices and {} faces, the file has only {} bytes", vertex_count,
         face_count, text.size());
  if (vertex_count > std::numeric_limits<std::uint32_t>::max() / 2)
    fail(path, "line {}: too many vertices ({})", counts_line, vertex_count);

  Character character = static_character(path);
  Mesh& mesh = character.mesh;
  const std::size_t nv = static_cast<std::size_t>(vertex_count);
  mesh.positions.resize(nv);
  if (has_normal) mesh.normals.resize(nv);
  if (has_st) mesh.uvs.resize(nv);
  const std::size_t needed = 3 + (has_normal ? 3 : 0) + (has_st ? 2 : 0);
  std::size_t extra_values = 0;
  for (std::size_t v = 0; v < nv; ++v) {
    if (!lines.next_nonempty(line))
      fail(path, "truncated: the header promises {} vertices, the file ends after {}", nv, v);
    split(line, tokens);
    if (tokens.size() < needed)
      fail(path, "line {}: vertex {} has {} numbers, expected at least {}", lines.number(), v, tokens.size(), needed);
    float values[8];
    const std::size_t n_positional = 3 + (has_normal ? 3 : 0);
    for (std::size_t k = 0; k < n_positional; ++k)
      if (!parse_float(tokens[k], values[k]))
        fail(path, "line {}: vertex {}: '{}' is not a number", lines.number(), v, shown(tokens[k]));
    if (has_st)
      for (std::size_t k = 0; k < 2; ++k) {
        const auto& token = tokens[tokens.size() - 2 + k];
        if (!parse_float(token, values[n_positional + k]))
          fail(path, "line {}: vertex {}: '{}' is not a number", lines.number(), v, shown(token));
      }
    for (std::size_t k = 0; k < needed; ++k)
      if (!std::isfinite(values[k]))
        fail(path, "line {}: vertex {} is not finite ({})", lines.number(), v, shown(tokens[k < n_positional ? k : tokens.size() - needed + k]));
    // Without C (or ST) in the keyword nothing may follow the coordinates: say so rather than
    // guess (a free-format file with several vertices on a line would be misread).
    if (!has_color && !has_st && tokens.size() > needed) ++extra_values;
    mesh.positions[v] = Vec3f(values[0], values[1], values[2]);
    if (has_normal) mesh.normals[v] = Vec3f(values[3], values[4], values[5]);
    if (has_st) mesh.uvs[v] = Vec2f(values[n_positional], 1.0f - values[n_positional + 1]);
  }

  if (extra_values)
    character.diagnostics.repair("off_extra_vertex_values",
                                 "vertex lines with more values than the header announces: the extra values were ignored",
                                 extra_values);

  mesh.triangles.reserve(static_cast<std::size_t>(face_count));
  std::size_t skipped_faces = 0;
  for (long long f = 0; f < face_count; ++f) {
    if (!lines.next_nonempty(line))
      fail(path, "truncated: the header promises {} faces, the file ends after {}", face_count, f);
    split(line, tokens);
    long long n = 0;
    if (!parse_long(tokens[0], n) || n < 0)
      fail(path, "line {}: face {}: '{}' is not a vertex count", lines.number(), f, shown(tokens[0]));
    if (static_cast<long long>(tokens.size()) - 1 < n)
      fail(path, "line {}: face {} should list {} vertices but lists {}", lines.number(), f, n, tokens.size() - 1);
    std::uint32_t first = 0, previous = 0;
    for (long long k = 0; k < n; ++k) {
      long long index = 0;
      if (!parse_long(tokens[1 + k], index))
        fail(path, "line {}: face {}: '{}' is not a vertex index", lines.number(), f, shown(tokens[1 + k]));
      if (index < 0 || index >= vertex_count)
        fail(path, "line {}: face {} refers to vertex {}, but there are only {} vertices (0 to {})", lines.number(), f,
             index, vertex_count, vertex_count - 1);
      const auto i = static_cast<std::uint32_t>(index);
      if (n < 3) continue;
      if (k == 0) first = i;
      else if (k >= 2) mesh.triangles.push_back({first, previous, i});
      previous = i;
    }
    if (n < 3) ++skipped_faces;
  }
  if (skipped_faces)
    character.diagnostics.repair("off_face_too_small",
                                 "faces with fewer than three vertices are not surfaces: skipped", skipped_faces);

  if (has_normal) {
    std::size_t bad = 0;
    for (Vec3f& n : mesh.normals) {
      const float length = n.norm();
      if (length > 1e-12f) n /= length;
      else ++bad;
    }
    if (bad) {
      mesh.normals.clear();
      character.diagnostics.repair("off_zero_normals", "zero-length vertex normals: normals dropped", bad);
    }
  }

  Primitive primitive;
  primitive.name = path.stem().string();
  primitive.vertex_count = static_cast<std::uint32_t>(nv);
  primitive.triangle_count = static_cast<std::uint32_t>(mesh.triangles.size());
  mesh.primitives.push_back(primitive);
  return character;
}

// ---------------------------------------------------------------------------------------------
// OBJ

namespace {

// One face corner's indices (0-based; -1 where absent).
struct Corner {
  int v = -1, vt = -1, vn = -1;
  bool operator==(const Corner&) const = default;
};
struct CornerHash {
  std::size_t operator()(const Corner& c) const {
    std::uint64_t h = static_cast<std::uint32_t>(c.v);
    h = h * 0x9E3779B97F4A7C15ull ^ static_cast<std::uint32_t>(c.vt);
    h = h * 0x9E3779B97F4A7C15ull ^ static_cast<std::uint32_t>(c.vn);
    return static_cast<std::size_t>(h ^ (h >> 29));
  }
};

std::string mime_from_extension(const fs::path& file) {
  std::string ext = file.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  if (ext == ".png") return "image/png";
  if (ext == ".jpg" || ext == ".jpeg") return "image/jpeg";
  return {};
}

// Reads the materials of an .mtl library (diffuse colour, opacity, diffuse texture) into `mesh`.
// A missing or unreadable library is a repair, not an error: the geometry is still good.
void read_mtl(const fs::path& obj_path, const fs::path& library, Mesh& mesh, Diagnostics& diagnostics) {
  const fs::path file = obj_path.parent_path() / library;
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) {
    diagnostics.repair("obj_mtl_missing", fmt::format("material library {} not found: default materials used",
                                                      library.string()));
    return;
  }
  std::ifstream in(file, std::ios::binary);
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  Lines lines(text);
  std::string_view line;
  std::vector<std::string_view> tokens;
  Material* current = nullptr;
  while (lines.next_nonempty(line)) {
    split(line, tokens);
    const std::string_view key = tokens[0];
    if (key == "newmtl") {
      const std::string name(trim(line.substr(6)));
      auto it = std::find_if(mesh.materials.begin(), mesh.materials.end(),
                             [&](const Material& m) { return m.name == name; });
      if (it == mesh.materials.end()) {
        mesh.materials.push_back(Material{});
        mesh.materials.back().name = name;
        current = &mesh.materials.back();
      } else {
        current = &*it;
      }
    } else if (!current) {
      continue;
    } else if (key == "Kd" && tokens.size() >= 4) {
      float rgb[3];
      bool ok = true;
      for (int k = 0; k < 3; ++k) ok = ok && parse_float(tokens[1 + k], rgb[k]) && std::isfinite(rgb[k]);
      if (ok) current->base_color.head<3>() = Vec3f(rgb[0], rgb[1], rgb[2]);
    } else if ((key == "d" || key == "Tr") && tokens.size() >= 2) {
      float value;
      if (parse_float(tokens.back(), value) && std::isfinite(value))
        current->base_color.w() = std::clamp(key == "d" ? value : 1.0f - value, 0.0f, 1.0f);
    } else if (key == "map_Kd" && tokens.size() >= 2) {
      // The file name is the last word (options such as -s come first).
      const fs::path image_file = obj_path.parent_path() / std::string(tokens.back());
      const std::string mime = mime_from_extension(image_file);
      if (mime.empty() || !fs::is_regular_file(image_file, ec)) {
        diagnostics.repair("obj_texture_skipped",
                           fmt::format("texture {} is missing or not PNG/JPEG: skipped", image_file.string()));
        continue;
      }
      std::ifstream image_in(image_file, std::ios::binary);
      Image image;
      image.name = image_file.filename().string();
      image.mime_type = mime;
      image.encoded.assign(std::istreambuf_iterator<char>(image_in), std::istreambuf_iterator<char>());
      current->base_color_image = static_cast<int>(mesh.images.size());
      mesh.images.push_back(std::move(image));
    }
  }
}

}  // namespace

Character read_obj(const fs::path& path) {
  std::string text = read_text(path, "an OBJ file");
  // Line continuations: a backslash at the end of a line joins it with the next.
  for (std::size_t at = text.find("\\\n"); at != std::string::npos; at = text.find("\\\n", at)) text.replace(at, 2, "  ");
  for (std::size_t at = text.find("\\\r\n"); at != std::string::npos; at = text.find("\\\r\n", at))
    text.replace(at, 3, "   ");

  Character character = static_character(path);
  Mesh& mesh = character.mesh;
  Diagnostics& diagnostics = character.diagnostics;

  std::vector<Vec3f> file_positions, file_normals;
  std::vector<Vec2f> file_uvs;
  std::vector<Corner> vertices;  // per output vertex, the corner it was made from
  std::unordered_map<Corner, std::uint32_t, CornerHash> vertex_of;  // within the current primitive

  std::string group_name = path.stem().string();
  int material = -1;
  Primitive current;
  current.name = group_name;
  current.material = material;
  bool any_face = false;
  std::size_t ignored_lines = 0, ignored_points = 0, unknown = 0;

  auto close_primitive = [&]() {
    current.vertex_count = static_cast<std::uint32_t>(vertices.size()) - current.first_vertex;
    current.triangle_count = static_cast<std::uint32_t>(mesh.triangles.size()) - current.first_triangle;
    if (current.vertex_count > 0 || current.triangle_count > 0) {
      current.source_mesh = static_cast<int>(mesh.primitives.size());
      mesh.primitives.push_back(current);
    }
    vertex_of.clear();
    current = Primitive{};
    current.first_vertex = static_cast<std::uint32_t>(vertices.size());
    current.first_triangle = static_cast<std::uint32_t>(mesh.triangles.size());
  };
  auto start_primitive = [&]() {
    if (vertices.size() > current.first_vertex || mesh.triangles.size() > current.first_triangle) close_primitive();
    current.name = group_name;
    current.material = material;
  };

  Lines lines(text);
  std::string_view line;
  std::vector<std::string_view> tokens;
  std::vector<std::uint32_t> polygon;
  while (lines.next(line)) {
    if (line.empty()) continue;
    split(line, tokens);
    const std::string_view key = tokens[0];
    const int number = lines.number();
    if (key == "v" || key == "vn" || key == "vt") {
      const std::size_t needed = key == "vt" ? 1 : 3;
      if (tokens.size() < 1 + needed)
        fail(path, "line {}: '{}' needs {} numbers, has {}", number, key, needed, tokens.size() - 1);
      float values[3] = {0, 0, 0};
      const std::size_t count = key == "vt" ? std::min<std::size_t>(2, tokens.size() - 1) : 3;
      for (std::size_t k = 0; k < count; ++k) {
        if (!parse_float(tokens[1 + k], values[k]))
          fail(path, "line {}: '{}' is not a number", number, shown(tokens[1 + k]));
        if (!std::isfinite(values[k]))
          fail(path, "line {}: {} is not finite ({})", number, key == "v" ? "vertex" : key == "vn" ? "normal" : "texture coordinate", shown(tokens[1 + k]));
      }
      if (key == "v") file_positions.emplace_back(values[0], values[1], values[2]);
      else if (key == "vn") file_normals.emplace_back(values[0], values[1], values[2]);
      else file_uvs.emplace_back(values[0], 1.0f - values[1]);
    } else if (key == "f" || key == "fo") {
      if (tokens.size() < 4) fail(path, "line {}: a face needs at least three vertices, has {}", number, tokens.size() - 1);
      any_face = true;
      polygon.clear();
      for (std::size_t k = 1; k < tokens.size(); ++k) {
        const std::string_view token = tokens[k];
        std::string_view parts[3];
        std::size_t part = 0, start = 0;
        for (std::size_t i = 0; i <= token.size(); ++i) {
          if (i == token.size() || token[i] == '/') {
            if (part >= 3) fail(path, "line {}: bad face vertex '{}'", number, shown(token));
            parts[part++] = token.substr(start, i - start);
            start = i + 1;
          }
        }
        auto resolve = [&](std::string_view text_index, std::size_t available, const char* what) -> int {
          long long index = 0;
          if (!parse_long(text_index, index))
            fail(path, "line {}: bad face vertex '{}': '{}' is not an index", number, shown(token), shown(text_index));
          const long long resolved = index > 0 ? index - 1 : static_cast<long long>(available) + index;
          if (index == 0 || resolved < 0 || resolved >= static_cast<long long>(available))
            fail(path, "line {}: face index {} out of range ({} {} defined so far)", number, index, available, what);
          return static_cast<int>(resolved);
        };
        Corner corner;
        if (parts[0].empty()) fail(path, "line {}: bad face vertex '{}': no position index", number, shown(token));
        corner.v = resolve(parts[0], file_positions.size(), "vertices");
        if (part >= 2 && !parts[1].empty()) corner.vt = resolve(parts[1], file_uvs.size(), "texture coordinates");
        if (part >= 3 && !parts[2].empty()) corner.vn = resolve(parts[2], file_normals.size(), "normals");
        auto [it, inserted] = vertex_of.try_emplace(corner, static_cast<std::uint32_t>(vertices.size()));
        if (inserted) vertices.push_back(corner);
        polygon.push_back(it->second);
      }
      for (std::size_t k = 2; k < polygon.size(); ++k) mesh.triangles.push_back({polygon[0], polygon[k - 1], polygon[k]});
    } else if (key == "o" || key == "g") {
      group_name = tokens.size() > 1 ? std::string(trim(line.substr(key.size()))) : path.stem().string();
      start_primitive();
    } else if (key == "usemtl") {
      const std::string name = tokens.size() > 1 ? std::string(trim(line.substr(6))) : std::string();
      auto it = std::find_if(mesh.materials.begin(), mesh.materials.end(), [&](const Material& m) { return m.name == name; });
      if (it == mesh.materials.end()) {
        mesh.materials.push_back(Material{});
        mesh.materials.back().name = name;
        material = static_cast<int>(mesh.materials.size()) - 1;
      } else {
        material = static_cast<int>(it - mesh.materials.begin());
      }
      start_primitive();
    } else if (key == "mtllib") {
      for (std::size_t k = 1; k < tokens.size(); ++k) read_mtl(path, std::string(tokens[k]), mesh, diagnostics);
    } else if (key == "l") {
      ++ignored_lines;
    } else if (key == "p") {
      ++ignored_points;
    } else if (key == "s" || key == "vp" || key == "mg" || key == "lod" || key == "usemap" || key == "maplib" ||
               key == "bevel" || key == "c_interp" || key == "d_interp" || key == "shadow_obj" || key == "trace_obj") {
      // Smoothing groups and display attributes: nothing wobble keeps.
    } else {
      ++unknown;
    }
  }
  close_primitive();

  if (ignored_lines) diagnostics.repair("obj_lines_ignored", "line elements (l) are not surfaces: ignored", ignored_lines);
  if (ignored_points) diagnostics.repair("obj_points_ignored", "point elements (p) are not surfaces: ignored", ignored_points);
  if (unknown) diagnostics.repair("obj_unknown_statement", "unsupported OBJ statements ignored", unknown);

  if (!any_face) {
    // A point cloud: every vertex, in file order.
    mesh.positions = file_positions;
    mesh.primitives.clear();
    if (!file_positions.empty()) {
      Primitive points;
      points.name = path.stem().string();
      points.vertex_count = static_cast<std::uint32_t>(file_positions.size());
      mesh.primitives.push_back(points);
    }
    return character;
  }

  mesh.positions.reserve(vertices.size());
  bool any_uv = false, any_normal = false, all_uv = true, all_normal = true;
  for (const Corner& c : vertices) {
    mesh.positions.push_back(file_positions[c.v]);
    any_uv |= c.vt >= 0, all_uv &= c.vt >= 0;
    any_normal |= c.vn >= 0, all_normal &= c.vn >= 0;
  }
  if (any_uv) {
    mesh.uvs.reserve(vertices.size());
    for (const Corner& c : vertices) mesh.uvs.push_back(c.vt >= 0 ? file_uvs[c.vt] : Vec2f(0.0f, 1.0f));
    if (!all_uv)
      diagnostics.repair("obj_uvs_incomplete", "some face corners have no texture coordinate: (0, 0) used");
  }
  if (any_normal && all_normal) {
    mesh.normals.reserve(vertices.size());
    std::size_t zero = 0;
    for (const Corner& c : vertices) {
      Vec3f n = file_normals[c.vn];
      const float length = n.norm();
      if (length > 1e-12f) n /= length;
      else ++zero;
      mesh.normals.push_back(n);
    }
    if (zero) {
      mesh.normals.clear();
      diagnostics.repair("obj_zero_normals", "zero-length normals: normals dropped", zero);
    }
  } else if (any_normal) {
    diagnostics.repair("obj_normals_incomplete", "some face corners have no normal: normals dropped");
  }
  return character;
}

// ---------------------------------------------------------------------------------------------
// OBJ writing

namespace {

std::string group_name_of(const Primitive& primitive, std::size_t index) {
  std::string name = primitive.name.empty() ? fmt::format("primitive_{}", index) : primitive.name;
  for (char& c : name)
    if (is_space(c)) c = '_';
  return name;
}

void check_mesh(const fs::path& path, const Mesh& mesh, std::span<const Vec3f> positions) {
  const std::size_t n = mesh.vertex_count();
  if (positions.size() != n) fail(path, "{} positions for a mesh of {} vertices", positions.size(), n);
  if (!mesh.uvs.empty() && mesh.uvs.size() != n) fail(path, "{} texture coordinates for {} vertices", mesh.uvs.size(), n);
  if (!mesh.normals.empty() && mesh.normals.size() != n) fail(path, "{} normals for {} vertices", mesh.normals.size(), n);
  for (std::size_t v = 0; v < n; ++v)
    if (!positions[v].allFinite()) fail(path, "vertex {} is not finite", v);
  for (std::size_t t = 0; t < mesh.triangles.size(); ++t)
    for (std::uint32_t i : mesh.triangles[t])
      if (i >= n) fail(path, "triangle {} refers to vertex {}, the mesh has {}", t, i, n);
}

// The OBJ text of one mesh. Normals are written only with the rest positions: they belong to the
// rest shape and would be wrong for a deformed one (viewers recompute them).
std::string obj_text(const Mesh& mesh, std::span<const Vec3f> positions) {
  const bool rest_shape =
      positions.data() == mesh.positions.data() ||
      std::equal(positions.begin(), positions.end(), mesh.positions.begin(), mesh.positions.end(),
                 [](const Vec3f& a, const Vec3f& b) { return a == b; });
  const bool write_normals = !mesh.normals.empty() && rest_shape;
  const bool write_uvs = !mesh.uvs.empty();

  fmt::memory_buffer out;
  fmt::format_to(std::back_inserter(out), "# wobble {} vertices, {} triangles\n", mesh.vertex_count(),
                 mesh.triangle_count());
  for (const Vec3f& p : positions) fmt::format_to(std::back_inserter(out), "v {} {} {}\n", p.x(), p.y(), p.z());
  if (write_uvs)
    for (const Vec2f& uv : mesh.uvs) fmt::format_to(std::back_inserter(out), "vt {} {}\n", uv.x(), 1.0f - uv.y());
  if (write_normals)
    for (const Vec3f& n : mesh.normals) fmt::format_to(std::back_inserter(out), "vn {} {} {}\n", n.x(), n.y(), n.z());

  auto write_triangles = [&](std::size_t begin, std::size_t end) {
    for (std::size_t t = begin; t < end; ++t) {
      out.push_back('f');
      for (std::uint32_t i : mesh.triangles[t]) {
        const std::uint32_t k = i + 1;
        if (write_uvs && write_normals) fmt::format_to(std::back_inserter(out), " {}/{}/{}", k, k, k);
        else if (write_uvs) fmt::format_to(std::back_inserter(out), " {}/{}", k, k);
        else if (write_normals) fmt::format_to(std::back_inserter(out), " {}//{}", k, k);
        else fmt::format_to(std::back_inserter(out), " {}", k);
      }
      out.push_back('\n');
    }
  };

  // Groups per primitive when the primitives tile the triangles in order; otherwise one group.
  bool tiled = !mesh.primitives.empty();
  std::size_t next = 0;
  for (const Primitive& p : mesh.primitives) {
    if (p.first_triangle != next) tiled = false;
    next = std::size_t(p.first_triangle) + p.triangle_count;
  }
  if (next != mesh.triangle_count()) tiled = false;
  if (tiled) {
    for (std::size_t k = 0; k < mesh.primitives.size(); ++k) {
      const Primitive& p = mesh.primitives[k];
      fmt::format_to(std::back_inserter(out), "g {}\n", group_name_of(p, k));
      if (p.material >= 0 && p.material < static_cast<int>(mesh.materials.size()) &&
          !mesh.materials[p.material].name.empty()) {
        std::string name = mesh.materials[p.material].name;
        for (char& c : name)
          if (is_space(c)) c = '_';
        fmt::format_to(std::back_inserter(out), "usemtl {}\n", name);
      }
      write_triangles(p.first_triangle, std::size_t(p.first_triangle) + p.triangle_count);
    }
  } else {
    write_triangles(0, mesh.triangle_count());
  }
  return fmt::to_string(out);
}

void write_text_file(const fs::path& shown_path, const fs::path& file, const std::string& text) {
  OutputFile out(file, shown_path);
  out.write(text);
  out.close();
}

}  // namespace

void write_obj(const fs::path& path, const Mesh& mesh, std::span<const Vec3f> positions) {
  check_mesh(path, mesh, positions);
  write_output(path, obj_text(mesh, positions));
}

void write_obj_sequence(const fs::path& folder, const Mesh& mesh, const BakedFrames& baked) {
  for (std::size_t f = 0; f < baked.positions.size(); ++f) {
    if (baked.positions[f].size() != mesh.vertex_count())
      fail(folder, "frame {} has {} positions for a mesh of {} vertices", f, baked.positions[f].size(),
           mesh.vertex_count());
    check_mesh(folder, mesh, baked.positions[f]);
  }
  AtomicOutput output(folder, true);
  for (std::size_t f = 0; f < baked.positions.size(); ++f)
    write_text_file(folder, output.temporary() / fmt::format("frame_{:04d}.obj", f), obj_text(mesh, baked.positions[f]));
  output.commit();
}

}  // namespace wobble
