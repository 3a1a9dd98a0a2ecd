#include "character_wire.hpp"

#include <cstdint>
#include <cstring>
#include <type_traits>

#include <wobble/error.hpp>
#include "core/fail.hpp"

namespace wobble {

namespace {

constexpr std::uint32_t kMagic = 0x57424331;  // "WBC1"

// Types stored as their bytes: trivially copyable ones, and Eigen's fixed-size vectors and
// matrices, which hold exactly their coefficients.
template <typename T>
concept Eigen_fixed = requires {
  typename T::Scalar;
  T::SizeAtCompileTime;
}
&&(T::SizeAtCompileTime > 0) && sizeof(T) == T::SizeAtCompileTime * sizeof(typename T::Scalar);
template <typename T>
concept Bitwise = std::is_trivially_copyable_v<T> || Eigen_fixed<T>;

class Writer {
 public:
  template <Bitwise T>
  void pod(const T& value) {
    out_.append(reinterpret_cast<const char*>(&value), sizeof(T));
  }
  void text(const std::string& s) {
    pod<std::uint64_t>(s.size());
    out_.append(s);
  }
  template <Bitwise T>
  void array(const std::vector<T>& values) {
    pod<std::uint64_t>(values.size());
    out_.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
  }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

class Reader {
 public:
  Reader(std::string_view bytes, const std::filesystem::path& source) : bytes_(bytes), source_(source) {}
  template <Bitwise T>
  T pod() {
    T value;
    std::memcpy(static_cast<void*>(&value), take(sizeof(T)), sizeof(T));
    return value;
  }
  // A count of elements of `element_bytes` each that the remaining bytes can hold.
  std::size_t count(std::size_t element_bytes) {
    const auto n = pod<std::uint64_t>();
    if (element_bytes > 0 && n > (bytes_.size() - at_) / element_bytes) broken();
    if (element_bytes == 0 && n > bytes_.size()) broken();
    return static_cast<std::size_t>(n);
  }
  std::string text() {
    const std::size_t n = count(1);
    return std::string(take(n), n);
  }
  template <Bitwise T>
  std::vector<T> array() {
    const std::size_t n = count(sizeof(T));
    std::vector<T> values(n);
    if (n) std::memcpy(static_cast<void*>(values.data()), take(n * sizeof(T)), n * sizeof(T));
    return values;
  }
  bool done() const { return at_ == bytes_.size(); }
  [[noreturn]] void broken() const { fail(source_, "the isolated importer sent a malformed character"); }

 private:
  const char* take(std::size_t n) {
    if (n > bytes_.size() - at_) broken();
    const char* p = bytes_.data() + at_;
    at_ += n;
    return p;
  }
  std::string_view bytes_;
  std::size_t at_ = 0;
  const std::filesystem::path& source_;
};

void write_mesh(Writer& w, const Mesh& mesh) {
  w.array(mesh.positions);
  w.array(mesh.normals);
  w.array(mesh.uvs);
  w.array(mesh.triangles);
  w.pod<std::uint64_t>(mesh.primitives.size());
  for (const Primitive& p : mesh.primitives) {
    w.text(p.name);
    for (int v : {p.source_mesh, p.source_primitive, p.material}) w.pod(v);
    for (std::uint32_t v : {p.first_vertex, p.vertex_count, p.first_triangle, p.triangle_count}) w.pod(v);
  }
  w.pod<std::uint64_t>(mesh.vertex_scalars.size());
  for (const auto& [name, values] : mesh.vertex_scalars) {
    w.text(name);
    w.array(values);
  }
  w.pod<std::uint64_t>(mesh.materials.size());
  for (const Material& m : mesh.materials) {
    w.text(m.name);
    w.pod(m.base_color);
    w.pod(m.base_color_image);
    w.pod(m.metallic);
    w.pod(m.roughness);
    w.pod<std::uint8_t>(m.double_sided);
  }
  w.pod<std::uint64_t>(mesh.images.size());
  for (const Image& image : mesh.images) {
    w.text(image.name);
    w.text(image.mime_type);
    w.array(image.encoded);
  }
}

Mesh read_mesh(Reader& r) {
  Mesh mesh;
  mesh.positions = r.array<Vec3f>();
  mesh.normals = r.array<Vec3f>();
  mesh.uvs = r.array<Vec2f>();
  mesh.triangles = r.array<Triangle>();
  mesh.primitives.resize(r.count(8 + 7 * 4));
  for (Primitive& p : mesh.primitives) {
    p.name = r.text();
    p.source_mesh = r.pod<int>();
    p.source_primitive = r.pod<int>();
    p.material = r.pod<int>();
    p.first_vertex = r.pod<std::uint32_t>();
    p.vertex_count = r.pod<std::uint32_t>();
    p.first_triangle = r.pod<std::uint32_t>();
    p.triangle_count = r.pod<std::uint32_t>();
  }
  for (std::size_t k = r.count(16); k > 0; --k) {
    std::string name = r.text();
    mesh.vertex_scalars[name] = r.array<float>();
  }
  mesh.materials.resize(r.count(8 + sizeof(Vec4f) + 13));
  for (Material& m : mesh.materials) {
    m.name = r.text();
    m.base_color = r.pod<Vec4f>();
    m.base_color_image = r.pod<int>();
    m.metallic = r.pod<float>();
    m.roughness = r.pod<float>();
    m.double_sided = r.pod<std::uint8_t>() != 0;
  }
  mesh.images.resize(r.count(24));
  for (Image& image : mesh.images) {
    image.name = r.text();
    image.mime_type = r.text();
    image.encoded = r.array<std::uint8_t>();
  }
  return mesh;
}

void write_rig(Writer& w, const Rig& rig) {
  w.pod<std::uint64_t>(rig.joint_count());
  for (std::size_t j = 0; j < rig.joint_count(); ++j) {
    w.text(rig.names[j]);
    w.pod(rig.parents[j]);
    w.pod(rig.rest_local[j].translation);
    w.pod(rig.rest_local[j].rotation.coeffs().eval());
    w.pod(rig.rest_local[j].scale);
    w.pod(rig.inverse_bind[j]);
    w.pod<std::uint8_t>(rig.skinned[j]);
  }
}

Rig read_rig(Reader& r) {
  Rig rig;
  for (std::size_t j = r.count(8 + 4 + 12 + 16 + 12 + 64 + 1); j > 0; --j) {
    const std::string name = r.text();
    const int parent = r.pod<int>();
    Transform rest;
    rest.translation = r.pod<Vec3f>();
    rest.rotation.coeffs() = r.pod<Vec4f>();
    rest.scale = r.pod<Vec3f>();
    const Mat4f inverse_bind = r.pod<Mat4f>();
    const bool skinned = r.pod<std::uint8_t>() != 0;
    if (parent >= static_cast<int>(rig.joint_count())) r.broken();
    rig.add_joint(name, parent, rest, inverse_bind, skinned);
  }
  return rig;
}

void write_clips(Writer& w, const std::vector<Clip>& clips) {
  w.pod<std::uint64_t>(clips.size());
  for (const Clip& clip : clips) {
    w.text(clip.name);
    w.pod<std::uint64_t>(clip.channels.size());
    for (const Channel& c : clip.channels) {
      w.pod(c.joint);
      w.pod(static_cast<std::uint8_t>(c.path));
      w.pod(static_cast<std::uint8_t>(c.interpolation));
      w.array(c.times);
      w.array(c.values);
    }
  }
}

std::vector<Clip> read_clips(Reader& r) {
  std::vector<Clip> clips(r.count(16));
  for (Clip& clip : clips) {
    clip.name = r.text();
    clip.channels.resize(r.count(4 + 2 + 16));
    for (Channel& c : clip.channels) {
      c.joint = r.pod<std::uint32_t>();
      const auto path = r.pod<std::uint8_t>(), interpolation = r.pod<std::uint8_t>();
      if (path > static_cast<std::uint8_t>(ChannelPath::Scale) ||
          interpolation > static_cast<std::uint8_t>(Interpolation::CubicSpline))
        r.broken();
      c.path = static_cast<ChannelPath>(path);
      c.interpolation = static_cast<Interpolation>(interpolation);
      c.times = r.array<float>();
      c.values = r.array<float>();
    }
  }
  return clips;
}

}  // namespace

std::string encode_character(const Character& character) {
  Writer w;
  w.pod(kMagic);
  w.text(character.source.string());
  write_mesh(w, character.mesh);
  write_rig(w, character.rig);
  w.array(character.skin.offsets);
  w.array(character.skin.joints);
  w.array(character.skin.weights);
  write_clips(w, character.clips);
  w.pod<std::uint64_t>(character.diagnostics.repairs().size());
  for (const Repair& repair : character.diagnostics.repairs()) {
    w.text(repair.kind);
    w.text(repair.message);
    w.pod<std::uint64_t>(repair.count);
  }
  return w.take();
}

Character decode_character(std::string_view bytes, const std::filesystem::path& source) {
  Reader r(bytes, source);
  if (r.pod<std::uint32_t>() != kMagic) r.broken();
  Character character;
  character.source = r.text();
  character.mesh = read_mesh(r);
  character.rig = read_rig(r);
  character.skin.offsets = r.array<std::uint32_t>();
  character.skin.joints = r.array<std::uint32_t>();
  character.skin.weights = r.array<float>();
  if (character.skin.offsets.empty()) r.broken();
  character.clips = read_clips(r);
  for (std::size_t k = r.count(24); k > 0; --k) {
    const std::string kind = r.text();
    const std::string message = r.text();
    character.diagnostics.repair(kind, message, r.pod<std::uint64_t>());
  }
  if (!r.done()) r.broken();
  return character;
}

}  // namespace wobble
