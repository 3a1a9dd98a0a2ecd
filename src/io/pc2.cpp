// PC2 point caches (the format of 3ds Max's Point Cache 2 modifier, read by Blender's Mesh Cache
// modifier): a 32-byte header, then numSamples frames of numPoints xyz float32, little-endian.
//
//   char  magic[12]    "POINTCACHE2\0"
//   int32 version      1
//   int32 numPoints
//   float startFrame   first sample, in frames
//   float sampleRate   frames between samples (1.0: one sample per frame)
//   int32 numSamples
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <string>
#include <system_error>
#include <vector>

#include <wobble/io/output_file.hpp>
#include <wobble/error.hpp>
#include <wobble/io/files.hpp>
#include <wobble/io/read_limits.hpp>

#include "core/fail.hpp"

namespace wobble {
namespace {

constexpr std::array<char, 12> kMagic = {'P', 'O', 'I', 'N', 'T', 'C', 'A', 'C', 'H', 'E', '2', '\0'};
constexpr std::size_t kHeaderSize = 32;

void put_u32(std::vector<char>& out, std::uint32_t value) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xffu));
}
void put_i32(std::vector<char>& out, std::int32_t value) { put_u32(out, static_cast<std::uint32_t>(value)); }
void put_f32(std::vector<char>& out, float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, 4);
  put_u32(out, bits);
}

std::uint32_t get_u32(const std::vector<char>& in, std::size_t at) {
  std::uint32_t value = 0;
  for (int i = 0; i < 4; ++i) value |= static_cast<std::uint32_t>(static_cast<unsigned char>(in[at + i])) << (8 * i);
  return value;
}
std::int32_t get_i32(const std::vector<char>& in, std::size_t at) { return static_cast<std::int32_t>(get_u32(in, at)); }
float get_f32(const std::vector<char>& in, std::size_t at) {
  const std::uint32_t bits = get_u32(in, at);
  float value;
  std::memcpy(&value, &bits, 4);
  return value;
}

}  // namespace

void write_pc2(const std::filesystem::path& path, const BakedFrames& baked, float frame_rate) {
  if (!std::isfinite(frame_rate) || frame_rate <= 0.0f)
    fail(path, "frame rate must be a positive number of frames per second, got {}", frame_rate);
  const std::size_t frames = baked.positions.size();
  if (baked.times.size() != frames) fail(path, "{} frame times for {} frames of positions", baked.times.size(), frames);
  const std::size_t points = frames ? baked.positions[0].size() : 0;
  if (points > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()) ||
      frames > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
    fail(path, "too many points or frames for PC2 ({} points, {} frames)", points, frames);
  for (std::size_t f = 0; f < frames; ++f) {
    if (baked.positions[f].size() != points)
      fail(path, "frame {} has {} points, frame 0 has {}", f, baked.positions[f].size(), points);
    if (!std::isfinite(baked.times[f])) fail(path, "frame {} has a non-finite time", f);
    for (std::size_t v = 0; v < points; ++v)
      if (!baked.positions[f][v].allFinite()) fail(path, "frame {} vertex {} is not finite", f, v);
  }
  for (std::size_t f = 1; f < frames; ++f)
    if (!(baked.times[f] > baked.times[f - 1])) fail(path, "frame times must increase (frame {})", f);

  const float start_frame = frames ? baked.times[0] * frame_rate : 0.0f;
  // The mean step between samples in frames; exactly 1 when the samples are one frame apart.
  float sample_step = 1.0f;
  if (frames >= 2) {
    const double step = double(baked.times.back() - baked.times.front()) * frame_rate / double(frames - 1);
    sample_step = std::abs(step - 1.0) < 1e-3 ? 1.0f : static_cast<float>(step);
  }

  std::vector<char> bytes;
  bytes.reserve(kHeaderSize + frames * points * 12);
  bytes.insert(bytes.end(), kMagic.begin(), kMagic.end());
  put_i32(bytes, 1);
  put_i32(bytes, static_cast<std::int32_t>(points));
  put_f32(bytes, start_frame);
  put_f32(bytes, sample_step);
  put_i32(bytes, static_cast<std::int32_t>(frames));
  for (const auto& frame : baked.positions)
    for (const Vec3f& p : frame) {
      put_f32(bytes, p.x());
      put_f32(bytes, p.y());
      put_f32(bytes, p.z());
    }

  write_output(path, std::string_view(bytes.data(), bytes.size()));
}

std::vector<std::vector<Vec3f>> read_pc2(const std::filesystem::path& path) { return read_point_cache(path).frames; }

PointCache read_point_cache(const std::filesystem::path& path) {
  const std::vector<std::uint8_t> file = read_regular_file(path, "a PC2 file");
  const std::vector<char> bytes(file.begin(), file.end());

  if (bytes.size() < kHeaderSize) fail(path, "not a PC2 file: {} bytes, shorter than the 32-byte header", bytes.size());
  if (std::memcmp(bytes.data(), kMagic.data(), kMagic.size()) != 0)
    fail(path, "not a PC2 file: the header does not start with POINTCACHE2");
  const std::int32_t version = get_i32(bytes, 12);
  if (version != 1) fail(path, "unsupported PC2 version {} (only 1 is known)", version);
  const std::int32_t points = get_i32(bytes, 16);
  const std::int32_t samples = get_i32(bytes, 28);
  if (points < 0) fail(path, "negative point count {} in the header", points);
  if (samples < 0) fail(path, "negative sample count {} in the header", samples);
  // 2^31 points x 2^31 samples x 12 bytes does not fit in 64 bits: compare in long double.
  const long double promised = static_cast<long double>(kHeaderSize) +
                               static_cast<long double>(points) * static_cast<long double>(samples) * 12.0L;
  if (static_cast<long double>(bytes.size()) < promised)
    fail(path, "truncated: the header promises {} samples of {} points ({:.0f} bytes), the file has {} bytes", samples,
         points, static_cast<double>(promised), bytes.size());
  const std::uint64_t expected = kHeaderSize + std::uint64_t(points) * std::uint64_t(samples) * 12u;
  if (bytes.size() > expected)
    fail(path, "{} unexpected bytes after {} samples of {} points", bytes.size() - expected, samples, points);
  if (points == 0 && samples > 0 && static_cast<std::uint64_t>(samples) > read_allocation_ceiling(bytes.size()) / 24)
    fail(path, "{} samples of no points: more frames than reading this file may allocate", samples);

  PointCache cache;
  cache.start_frame = get_f32(bytes, 20);
  cache.sample_step = get_f32(bytes, 24);
  std::vector<std::vector<Vec3f>>& frames = cache.frames;
  frames.resize(static_cast<std::size_t>(samples));
  std::size_t at = kHeaderSize;
  for (auto& frame : frames) {
    frame.resize(static_cast<std::size_t>(points));
    for (Vec3f& p : frame) {
      p = Vec3f(get_f32(bytes, at), get_f32(bytes, at + 4), get_f32(bytes, at + 8));
      at += 12;
    }
  }
  return cache;
}

}  // namespace wobble
