// Wavefront OBJ (and its MTL material libraries) into a Character with an empty rig and skin.
// Statements are read one at a time into an ObjReader; the mesh is made from what they defined
// once the file ends: one vertex per distinct (position, texture coordinate, normal) corner of a
// primitive, primitives per group and material, faces as fans of triangles. A file without faces
// is a point cloud (every vertex, in file order).
//
// Texture coordinates: OBJ puts v = 0 at the bottom of the image, Mesh::uvs follows glTF (v = 0 at
// the top), so v is flipped on the way in.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include <wobble/error.hpp>
#include <wobble/io/files.hpp>

#include "image_mime_type.hpp"
#include "core/fail.hpp"
#include "text_format.hpp"

namespace wobble {
namespace {

using namespace text_format;

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

// The material of that name in `mesh` (added when new): its index.
int material_named(Mesh& mesh, const std::string& name) {
  auto it =
      std::find_if(mesh.materials.begin(), mesh.materials.end(), [&](const Material& m) { return m.name == name; });
  if (it != mesh.materials.end()) return static_cast<int>(it - mesh.materials.begin());
  mesh.materials.push_back(Material{});
  mesh.materials.back().name = name;
  return static_cast<int>(mesh.materials.size()) - 1;
}

// map_Kd: the diffuse texture, when it is a PNG or JPEG next to the OBJ file.
void read_mtl_texture(const fs::path& obj_path, const std::vector<std::string_view>& tokens, Material& material,
                      Mesh& mesh, Diagnostics& diagnostics) {
  // The file name is the last word (options such as -s come first).
  const fs::path image_file = obj_path.parent_path() / std::string(tokens.back());
  const std::string mime = image_mime_type_of_extension(image_file.extension().string());
  std::error_code ec;
  if (mime.empty() || !fs::is_regular_file(image_file, ec)) {
    diagnostics.repair("obj_texture_skipped",
                       fmt::format("texture {} is missing or not PNG/JPEG: skipped", image_file.string()));
    return;
  }
  std::ifstream image_in(image_file, std::ios::binary);
  Image image;
  image.name = image_file.filename().string();
  image.mime_type = mime;
  image.encoded.assign(std::istreambuf_iterator<char>(image_in), std::istreambuf_iterator<char>());
  material.base_color_image = static_cast<int>(mesh.images.size());
  mesh.images.push_back(std::move(image));
}

// One statement of a material library about `material`: Kd, d / Tr, map_Kd.
void read_mtl_statement(const fs::path& obj_path, const std::vector<std::string_view>& tokens, Material& material,
                        Mesh& mesh, Diagnostics& diagnostics) {
  const std::string_view key = tokens[0];
  if (key == "Kd" && tokens.size() >= 4) {
    float rgb[3];
    bool ok = true;
    for (int k = 0; k < 3; ++k) ok = ok && parse_float(tokens[1 + k], rgb[k]) && std::isfinite(rgb[k]);
    if (ok) material.base_color.head<3>() = Vec3f(rgb[0], rgb[1], rgb[2]);
  } else if ((key == "d" || key == "Tr") && tokens.size() >= 2) {
    float value;
    if (parse_float(tokens.back(), value) && std::isfinite(value))
      material.base_color.w() = std::clamp(key == "d" ? value : 1.0f - value, 0.0f, 1.0f);
  } else if (key == "map_Kd" && tokens.size() >= 2) {
    read_mtl_texture(obj_path, tokens, material, mesh, diagnostics);
  }
}

// Reads the materials of an .mtl library (diffuse colour, opacity, diffuse texture) into `mesh`.
// A missing or unreadable library is a repair, not an error: the geometry is still good.
void read_mtl(const fs::path& obj_path, const fs::path& library, Mesh& mesh, Diagnostics& diagnostics) {
  const fs::path file = obj_path.parent_path() / library;
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) {
    diagnostics.repair("obj_mtl_missing",
                       fmt::format("material library {} not found: default materials used", library.string()));
    return;
  }
  std::ifstream in(file, std::ios::binary);
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  Lines lines(text);
  std::string_view line;
  std::vector<std::string_view> tokens;
  int current = -1;
  while (lines.next_nonempty(line)) {
    split(line, tokens);
    if (tokens[0] == "newmtl")
      current = material_named(mesh, std::string(trim(line.substr(6))));
    else if (current >= 0)
      read_mtl_statement(obj_path, tokens, mesh.materials[current], mesh, diagnostics);
  }
}

// Line continuations: a backslash at the end of a line joins it with the next.
void join_continued_lines(std::string& text) {
  for (std::size_t at = text.find("\\\n"); at != std::string::npos; at = text.find("\\\n", at))
    text.replace(at, 2, "  ");
  for (std::size_t at = text.find("\\\r\n"); at != std::string::npos; at = text.find("\\\r\n", at))
    text.replace(at, 3, "   ");
}

bool is_display_statement(std::string_view key) {  // smoothing groups and display attributes: nothing wobble keeps
  return key == "s" || key == "vp" || key == "mg" || key == "lod" || key == "usemap" || key == "maplib" ||
         key == "bevel" || key == "c_interp" || key == "d_interp" || key == "shadow_obj" || key == "trace_obj";
}

class ObjReader {
 public:
  explicit ObjReader(const fs::path& path) : path_(path), group_name_(path.stem().string()) {
    character_.source = path;
    current_.name = group_name_;
  }

  void statement(std::string_view line, const std::vector<std::string_view>& tokens, int number);
  Character finish();

 private:
  void vertex_data(const std::vector<std::string_view>& tokens, int number);
  void face(const std::vector<std::string_view>& tokens, int number);
  Corner corner(std::string_view token, int number) const;
  int resolve(std::string_view text_index, std::size_t available, const char* what, std::string_view token,
              int number) const;
  void start_primitive();
  void close_primitive();
  void report_ignored();
  void make_point_cloud();
  void make_vertices();
  void make_normals();

  fs::path path_;
  Character character_;
  Mesh& mesh_ = character_.mesh;
  std::vector<Vec3f> file_positions_, file_normals_;
  std::vector<Vec2f> file_uvs_;
  std::vector<Corner> vertices_;                                     // per output vertex, the corner it was made from
  std::unordered_map<Corner, std::uint32_t, CornerHash> vertex_of_;  // within the current primitive
  std::vector<std::uint32_t> polygon_;
  std::string group_name_;
  int material_ = -1;
  Primitive current_;
  bool any_face_ = false;
  std::size_t ignored_lines_ = 0, ignored_points_ = 0, unknown_ = 0;
};

void ObjReader::statement(std::string_view line, const std::vector<std::string_view>& tokens, int number) {
  const std::string_view key = tokens[0];
  if (key == "v" || key == "vn" || key == "vt") {
    vertex_data(tokens, number);
  } else if (key == "f" || key == "fo") {
    face(tokens, number);
  } else if (key == "o" || key == "g") {
    group_name_ = tokens.size() > 1 ? std::string(trim(line.substr(key.size()))) : path_.stem().string();
    start_primitive();
  } else if (key == "usemtl") {
    material_ = material_named(mesh_, tokens.size() > 1 ? std::string(trim(line.substr(6))) : std::string());
    start_primitive();
  } else if (key == "mtllib") {
    for (std::size_t k = 1; k < tokens.size(); ++k)
      read_mtl(path_, std::string(tokens[k]), mesh_, character_.diagnostics);
  } else if (key == "l") {
    ++ignored_lines_;
  } else if (key == "p") {
    ++ignored_points_;
  } else if (!is_display_statement(key)) {
    ++unknown_;
  }
}

void ObjReader::vertex_data(const std::vector<std::string_view>& tokens, int number) {
  const std::string_view key = tokens[0];
  const std::size_t needed = key == "vt" ? 1 : 3;
  if (tokens.size() < 1 + needed)
    fail(path_, "line {}: '{}' needs {} numbers, has {}", number, key, needed, tokens.size() - 1);
  float values[3] = {0, 0, 0};
  const std::size_t count = key == "vt" ? std::min<std::size_t>(2, tokens.size() - 1) : 3;
  for (std::size_t k = 0; k < count; ++k) {
    if (!parse_float(tokens[1 + k], values[k]))
      fail(path_, "line {}: '{}' is not a number", number, shown(tokens[1 + k]));
    if (!std::isfinite(values[k]))
      fail(path_, "line {}: {} is not finite ({})", number,
           key == "v"    ? "vertex"
           : key == "vn" ? "normal"
                         : "texture coordinate",
           shown(tokens[1 + k]));
  }
  if (key == "v")
    file_positions_.emplace_back(values[0], values[1], values[2]);
  else if (key == "vn")
    file_normals_.emplace_back(values[0], values[1], values[2]);
  else
    file_uvs_.emplace_back(values[0], 1.0f - values[1]);
}

// A 1-based (or negative: from the end so far) index into `available` items, 0-based.
int ObjReader::resolve(std::string_view text_index, std::size_t available, const char* what, std::string_view token,
                       int number) const {
  long long index = 0;
  if (!parse_long(text_index, index))
    fail(path_, "line {}: bad face vertex '{}': '{}' is not an index", number, shown(token), shown(text_index));
  const long long resolved = index > 0 ? index - 1 : static_cast<long long>(available) + index;
  if (index == 0 || resolved < 0 || resolved >= static_cast<long long>(available))
    fail(path_, "line {}: face index {} out of range ({} {} defined so far)", number, index, available, what);
  return static_cast<int>(resolved);
}

// "v", "v/vt", "v//vn" or "v/vt/vn".
Corner ObjReader::corner(std::string_view token, int number) const {
  std::string_view parts[3];
  std::size_t part = 0, start = 0;
  for (std::size_t i = 0; i <= token.size(); ++i) {
    if (i != token.size() && token[i] != '/') continue;
    if (part >= 3) fail(path_, "line {}: bad face vertex '{}'", number, shown(token));
    parts[part++] = token.substr(start, i - start);
    start = i + 1;
  }
  Corner corner;
  if (parts[0].empty()) fail(path_, "line {}: bad face vertex '{}': no position index", number, shown(token));
  corner.v = resolve(parts[0], file_positions_.size(), "vertices", token, number);
  if (part >= 2 && !parts[1].empty())
    corner.vt = resolve(parts[1], file_uvs_.size(), "texture coordinates", token, number);
  if (part >= 3 && !parts[2].empty()) corner.vn = resolve(parts[2], file_normals_.size(), "normals", token, number);
  return corner;
}

void ObjReader::face(const std::vector<std::string_view>& tokens, int number) {
  if (tokens.size() < 4)
    fail(path_, "line {}: a face needs at least three vertices, has {}", number, tokens.size() - 1);
  any_face_ = true;
  polygon_.clear();
  for (std::size_t k = 1; k < tokens.size(); ++k) {
    auto [it, inserted] =
        vertex_of_.try_emplace(corner(tokens[k], number), static_cast<std::uint32_t>(vertices_.size()));
    if (inserted) vertices_.push_back(it->first);
    polygon_.push_back(it->second);
  }
  for (std::size_t k = 2; k < polygon_.size(); ++k)
    mesh_.triangles.push_back({polygon_[0], polygon_[k - 1], polygon_[k]});
}

void ObjReader::close_primitive() {
  current_.vertex_count = static_cast<std::uint32_t>(vertices_.size()) - current_.first_vertex;
  current_.triangle_count = static_cast<std::uint32_t>(mesh_.triangles.size()) - current_.first_triangle;
  if (current_.vertex_count > 0 || current_.triangle_count > 0) {
    current_.source_mesh = static_cast<int>(mesh_.primitives.size());
    mesh_.primitives.push_back(current_);
  }
  vertex_of_.clear();
  current_ = Primitive{};
  current_.first_vertex = static_cast<std::uint32_t>(vertices_.size());
  current_.first_triangle = static_cast<std::uint32_t>(mesh_.triangles.size());
}

void ObjReader::start_primitive() {
  if (vertices_.size() > current_.first_vertex || mesh_.triangles.size() > current_.first_triangle) close_primitive();
  current_.name = group_name_;
  current_.material = material_;
}

void ObjReader::report_ignored() {
  Diagnostics& diagnostics = character_.diagnostics;
  if (ignored_lines_)
    diagnostics.repair("obj_lines_ignored", "line elements (l) are not surfaces: ignored", ignored_lines_);
  if (ignored_points_)
    diagnostics.repair("obj_points_ignored", "point elements (p) are not surfaces: ignored", ignored_points_);
  if (unknown_) diagnostics.repair("obj_unknown_statement", "unsupported OBJ statements ignored", unknown_);
}

void ObjReader::make_point_cloud() {
  mesh_.positions = file_positions_;
  mesh_.primitives.clear();
  if (file_positions_.empty()) return;
  Primitive points;
  points.name = path_.stem().string();
  points.vertex_count = static_cast<std::uint32_t>(file_positions_.size());
  mesh_.primitives.push_back(points);
}

// Positions and texture coordinates of the corners.
void ObjReader::make_vertices() {
  mesh_.positions.reserve(vertices_.size());
  bool any_uv = false, all_uv = true;
  for (const Corner& c : vertices_) {
    mesh_.positions.push_back(file_positions_[c.v]);
    any_uv |= c.vt >= 0, all_uv &= c.vt >= 0;
  }
  if (!any_uv) return;
  mesh_.uvs.reserve(vertices_.size());
  for (const Corner& c : vertices_) mesh_.uvs.push_back(c.vt >= 0 ? file_uvs_[c.vt] : Vec2f(0.0f, 1.0f));
  if (!all_uv)
    character_.diagnostics.repair("obj_uvs_incomplete", "some face corners have no texture coordinate: (0, 0) used");
}

// The corners' normals made unit length; none where some corner has none or one is zero.
void ObjReader::make_normals() {
  const bool any = std::any_of(vertices_.begin(), vertices_.end(), [](const Corner& c) { return c.vn >= 0; });
  const bool all = std::all_of(vertices_.begin(), vertices_.end(), [](const Corner& c) { return c.vn >= 0; });
  if (!any) return;
  if (!all)
    return character_.diagnostics.repair("obj_normals_incomplete", "some face corners have no normal: normals dropped");
  mesh_.normals.reserve(vertices_.size());
  std::size_t zero = 0;
  for (const Corner& c : vertices_) {
    Vec3f n = file_normals_[c.vn];
    const float length = n.norm();
    if (length > 1e-12f)
      n /= length;
    else
      ++zero;
    mesh_.normals.push_back(n);
  }
  if (!zero) return;
  mesh_.normals.clear();
  character_.diagnostics.repair("obj_zero_normals", "zero-length normals: normals dropped", zero);
}

Character ObjReader::finish() {
  close_primitive();
  report_ignored();
  if (!any_face_) {
    make_point_cloud();
  } else {
    make_vertices();
    make_normals();
  }
  return std::move(character_);
}

}  // namespace

Character read_obj(const fs::path& path) {
  std::string text = read_text(path, "an OBJ file");
  join_continued_lines(text);
  ObjReader reader(path);
  Lines lines(text);
  std::string_view line;
  std::vector<std::string_view> tokens;
  while (lines.next(line)) {
    if (line.empty()) continue;
    split(line, tokens);
    reader.statement(line, tokens, lines.number());
  }
  return reader.finish();
}

}  // namespace wobble
