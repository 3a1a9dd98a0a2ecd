// Mesh animations as `wobble decompose` reads them, through read_mesh_animation: a PC2 point cache
// (with its header's timing) or a folder of OBJ frames. The first byte chooses: bit 0 the kind
// (0: the rest of the input is one .pc2 file; 1: the rest is OBJ frames separated by "#frame\n",
// written as frame_0000.obj, ...), bits 1-2 the frame rate. What is read must hold what the reader
// promises: frames of one vertex count, finite positions, one finite time per frame, in order.
#include <cmath>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include <wobble/io/mesh_animation.hpp>

#include "../fuzz_support.hpp"

WOBBLE_FUZZ_QUIET_LOGS

namespace {

namespace fs = std::filesystem;

constexpr double kFrameRates[] = {24, 30, 60, 0.5};
constexpr std::string_view kFrameSeparator = "#frame\n";
constexpr std::size_t kMostFrames = 16;

// The OBJ frames of `text` in a fresh folder.
fs::path obj_folder(std::string_view text) {
  const fs::path folder = wobble::fuzz::scratch_folder() / "frames";
  fs::remove_all(folder);
  fs::create_directories(folder);
  for (std::size_t frame = 0; frame < kMostFrames && !text.empty(); ++frame) {
    const std::size_t end = frame + 1 < kMostFrames ? text.find(kFrameSeparator) : std::string_view::npos;
    const std::string_view file = text.substr(0, end);
    wobble::fuzz::input_file(fmt::format("frames/frame_{:04d}.obj", frame),
                             reinterpret_cast<const std::uint8_t*>(file.data()), file.size());
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + kFrameSeparator.size());
  }
  return folder;
}

void check_promises(const wobble::BakedFrames& baked) {
  using wobble::fuzz::finding;
  if (baked.positions.empty()) finding("an animation of no frames was read");
  if (baked.times.size() != baked.positions.size()) finding("not one time per frame");
  for (std::size_t f = 0; f < baked.positions.size(); ++f) {
    if (baked.positions[f].size() != baked.positions.front().size()) finding("frames of different vertex counts");
    for (const auto& p : baked.positions[f])
      if (!p.allFinite()) finding("a position that is not finite");
    if (!std::isfinite(baked.times[f])) finding(fmt::format("frame {}'s time is not finite", f));
    if (f > 0 && !(baked.times[f] >= baked.times[f - 1])) finding(fmt::format("frame {}'s time goes back", f));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const double fps = kFrameRates[(data[0] >> 1) & 3];
  const std::string_view rest(reinterpret_cast<const char*>(data + 1), size - 1);
  const fs::path path = (data[0] & 1) ? obj_folder(rest) : wobble::fuzz::input_file("input.pc2", data + 1, size - 1);
  wobble::fuzz::expect_clean([&] { check_promises(wobble::read_mesh_animation(path, fps)); }, path.string());
  return 0;
}
