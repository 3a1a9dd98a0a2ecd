// wobble's Blender-compatible Delta Mush against Blender's Corrective Smooth modifier itself, on
// every vertex of every frame: each shared character's clip (clonk's Walk, the first clip of the
// others) baked with LBS at 24 fps, Simple and Length Weight, pinned boundary on and off, 5 and 10
// iterations, plus a vertex-group mask (inverted, with a scale) and "only smooth". One Blender
// process (Debian's package, installed by scripts/install-deps.sh test; run on one thread, so that
// its edge order, and with it its float sums, is the same on any machine: blender_mesh_edges.hpp)
// gets every rest mesh as raw arrays and wobble's LBS frames as PC2 files read by its Mesh Cache
// modifier, and streams its results through a FIFO (no large files); positions must be Blender's
// bit for bit. Blender's edge lists must be wobble's blender_mesh_edges exactly. Twice: Blender 3.4
// (the host's) against blender_version 3.4, Blender 4.3 (Debian 13's, scripts/blender4.sh)
// against 4.3.
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <set>
#include <thread>

#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <wobble/offline/bake.hpp>
#include <wobble/delta_mush.hpp>
#include <wobble/io/files.hpp>

#include "deform/blender_mesh_edges.hpp"
#include "test_util.hpp"

using namespace wobble;

namespace {

struct ParityCase {
  const char* smooth_type;  // Blender's name
  MushSmoothing smoothing;
  int iterations;
  float factor, scale;
  bool pin, use_mask, invert_mask, only_smooth;
};

const std::vector<ParityCase> kCases = {
    {"SIMPLE", MushSmoothing::Uniform, 5, 0.5f, 1.0f, false, false, false, false},
    {"SIMPLE", MushSmoothing::Uniform, 10, 0.5f, 1.0f, false, false, false, false},
    {"SIMPLE", MushSmoothing::Uniform, 5, 0.5f, 1.0f, true, false, false, false},
    {"SIMPLE", MushSmoothing::Uniform, 10, 0.5f, 1.0f, true, false, false, false},
    {"LENGTH_WEIGHTED", MushSmoothing::Length, 5, 0.5f, 1.0f, false, false, false, false},
    {"LENGTH_WEIGHTED", MushSmoothing::Length, 10, 0.5f, 1.0f, false, false, false, false},
    {"LENGTH_WEIGHTED", MushSmoothing::Length, 5, 0.5f, 1.0f, true, false, false, false},
    {"LENGTH_WEIGHTED", MushSmoothing::Length, 10, 0.5f, 1.0f, true, false, false, false},
    {"SIMPLE", MushSmoothing::Uniform, 8, 0.7f, 1.5f, true, true, false, false},
    {"LENGTH_WEIGHTED", MushSmoothing::Length, 6, 0.4f, 0.6f, true, true, true, false},
    {"SIMPLE", MushSmoothing::Uniform, 5, 0.5f, 1.0f, false, false, false, true},
};

struct Subject {
  std::string name;
  Character character;
  BakedFrames baked;
  std::vector<float> mask;
  std::vector<DeltaMush> mushes;  // one per case
  bool rigid = false;             // one joint moves every vertex: Delta Mush must give LBS back
};

struct CaseResult {
  double worst = 0, moved = 0;
  std::size_t frame = 0, vertex = 0;
};

// Every shared character with its clip: clonk's Walk, the first clip of the others.
std::vector<std::pair<std::string, std::string>> shared_characters() {
  std::vector<std::pair<std::string, std::string>> list;
  const auto folder = test::shared_asset("characters");
  for (const auto& entry : std::filesystem::recursive_directory_iterator(folder)) {
    const std::string extension = entry.path().extension().string();
    if (extension != ".glb" && extension != ".gltf") continue;
    const std::string relative = std::filesystem::relative(entry.path(), folder).string();
    list.emplace_back(relative, relative == "clonk.glb" ? "Walk" : "0");
  }
  std::sort(list.begin(), list.end());
  return list;
}

std::string stem_of(const std::string& relative) {
  std::string stem = relative;
  std::replace(stem.begin(), stem.end(), '/', '_');
  return stem;
}

DeltaMushSettings settings_of(const ParityCase& pc, const std::vector<float>& mask, BlenderVersion version) {
  DeltaMushSettings settings;
  settings.mode = MushMode::Blender;
  settings.blender_version = version;
  settings.smoothing = pc.smoothing;
  settings.iterations = pc.iterations;
  settings.step = pc.factor;
  settings.scale = pc.scale;
  settings.pin_boundary = pc.pin;
  if (pc.use_mask) settings.mask = mask;
  settings.invert_mask = pc.invert_mask;
  settings.smooth_only = pc.only_smooth;
  return settings;
}

Subject prepare(const std::string& relative, const std::string& clip, const std::filesystem::path& scratch,
                BlenderVersion version) {
  Subject s;
  s.name = relative;
  s.character = load_character(test::shared_asset("characters/" + relative));
  BakeOptions options;
  options.clip = s.character.require_clip(clip);
  options.fps = 24;
  options.stack = StackDescription::parse("lbs");
  s.baked = bake(s.character, options);
  // Frames numbered from 0 for the Mesh Cache modifier (scene frame k reads sample k).
  for (std::size_t k = 0; k < s.baked.times.size(); ++k) s.baked.times[k] = static_cast<float>(k);
  write_pc2(scratch / (stem_of(relative) + ".pc2"), s.baked, 1.0f);
  const Mesh& mesh = s.character.mesh;
  // A smooth mask in [0, 1] over the height.
  const Eigen::AlignedBox3f box = mesh.bounds();
  s.mask.resize(mesh.vertex_count());
  for (std::size_t v = 0; v < mesh.vertex_count(); ++v) {
    const float h = (mesh.positions[v].y() - box.min().y()) / std::max(1e-6f, box.sizes().y());
    s.mask[v] = std::clamp(0.5f + 0.5f * std::sin(6.0f * h), 0.0f, 1.0f);
  }
  const std::set<std::uint32_t> joints(s.character.skin.joints.begin(), s.character.skin.joints.end());
  s.rigid = joints.size() == 1;
  s.mushes.resize(kCases.size());
  for (std::size_t c = 0; c < kCases.size(); ++c)
    s.mushes[c].bind(mesh.positions, mesh.triangles, settings_of(kCases[c], s.mask, version));
  return s;
}

nlohmann::json job_entry(const Subject& s, const std::filesystem::path& scratch) {
  std::vector<float> positions;
  for (const Vec3f& p : s.character.mesh.positions) positions.insert(positions.end(), {p.x(), p.y(), p.z()});
  std::vector<std::uint32_t> triangles;
  for (const Triangle& t : s.character.mesh.triangles) triangles.insert(triangles.end(), t.begin(), t.end());
  return {{"name", stem_of(s.name)},
          {"positions", positions},
          {"triangles", triangles},
          {"mask", s.mask},
          {"pc2", (scratch / (stem_of(s.name) + ".pc2")).string()},
          {"frames", s.baked.times.size()}};
}

// Reads exactly `bytes` from the FIFO, waiting while Blender runs; false if it ended first.
bool read_exactly(int fd, char* out, std::size_t bytes, const std::atomic<bool>& blender_done) {
  while (bytes > 0) {
    pollfd ready{fd, POLLIN, 0};
    if (::poll(&ready, 1, 1000) <= 0) {
      if (blender_done) return false;
      continue;
    }
    const ssize_t n = ::read(fd, out, bytes);
    if (n <= 0) return false;
    out += n;
    bytes -= static_cast<std::size_t>(n);
  }
  return true;
}

// One frame of one character: the Mesh Cache output, then each case, against wobble.
void compare_frame(Subject& s, std::size_t k, int fd, const std::atomic<bool>& blender_done,
                   std::vector<CaseResult>& results) {
  const std::size_t n = s.character.mesh.vertex_count();
  std::vector<Vec3f> blender(n);
  ASSERT_TRUE(read_exactly(fd, reinterpret_cast<char*>(blender.data()), n * sizeof(Vec3f), blender_done))
      << "Blender's stream ended early";
  for (std::size_t v = 0; v < n; ++v) ASSERT_EQ(blender[v], s.baked.positions[k][v]) << s.name << " frame " << k;
  for (std::size_t c = 0; c < kCases.size(); ++c) {
    ASSERT_TRUE(read_exactly(fd, reinterpret_cast<char*>(blender.data()), n * sizeof(Vec3f), blender_done))
        << "Blender's stream ended early";
    std::vector<Vec3f> positions = s.baked.positions[k];
    s.mushes[c].evaluate(positions);
    CaseResult& r = results[c];
    for (std::size_t v = 0; v < n; ++v) {
      const double d = (positions[v] - blender[v]).norm();
      if (d > r.worst) r.worst = d, r.frame = k, r.vertex = v;
      r.moved = std::max<double>(r.moved, (positions[v] - s.baked.positions[k][v]).norm());
    }
  }
}

void report(const Subject& s, const std::vector<CaseResult>& results) {
  const double size = s.character.mesh.size();
  for (std::size_t c = 0; c < kCases.size(); ++c) {
    const ParityCase& pc = kCases[c];
    const CaseResult& r = results[c];
    std::printf(
        "%-34s %-15s it %2d factor %.1f scale %.1f pin %d mask %d%s%s: max |wobble - Blender| = %.2e of the "
        "size (frame %zu vertex %zu; smoothing moved vertices up to %.2e)\n",
        s.name.c_str(), pc.smooth_type, pc.iterations, pc.factor, pc.scale, pc.pin, pc.use_mask,
        pc.invert_mask ? " inverted" : "", pc.only_smooth ? " only smooth" : "", r.worst / size, r.frame, r.vertex,
        r.moved / size);
    EXPECT_EQ(r.worst, 0.0) << s.name << " case " << c << " frame " << r.frame << " vertex " << r.vertex
                            << ": not Blender's bits";
    if (s.rigid && !pc.use_mask && !pc.only_smooth) {
      // A rigid motion: the restored details are exactly what smoothing took away.
      EXPECT_LE(r.moved, 1e-5 * size) << s.name << " case " << c << ": Delta Mush of a rigid motion is not rigid";
    } else {
      EXPECT_GT(r.moved, 1e-4 * size) << s.name << " case " << c << " did not change anything: a vacuous comparison";
    }
  }
}

void check_edges(const std::vector<Subject>& subjects, const std::filesystem::path& file, BlenderVersion version) {
  const std::vector<char> bytes = test::read_bytes(file);
  std::size_t at = 0;
  for (const Subject& s : subjects) {
    const std::vector<BlenderEdge> expected = blender_mesh_edges(s.character.mesh.triangles, version);
    ASSERT_LE(at + expected.size() * sizeof(BlenderEdge), bytes.size()) << s.name;
    std::vector<BlenderEdge> blender(expected.size());
    std::memcpy(blender.data(), bytes.data() + at, expected.size() * sizeof(BlenderEdge));
    at += expected.size() * sizeof(BlenderEdge);
    EXPECT_EQ(blender, expected) << s.name << ": Blender made its edges in another order";
  }
  EXPECT_EQ(at, bytes.size()) << "Blender made a different number of edges";
}

// `blender` runs Blender (the command line before its arguments), as old as `version`.
void compare_with_blender(const std::string& command, BlenderVersion version) {
  test::ScratchDir scratch;
  std::vector<Subject> subjects;
  nlohmann::json job;
  job["characters"] = nlohmann::json::array();
  for (const auto& [relative, clip] : shared_characters()) {
    subjects.push_back(prepare(relative, clip, scratch.path(), version));
    job["characters"].push_back(job_entry(subjects.back(), scratch.path()));
  }
  ASSERT_GE(subjects.size(), 5u) << "the shared characters are missing";
  job["cases"] = nlohmann::json::array();
  for (const ParityCase& c : kCases) {
    job["cases"].push_back({{"smooth_type", c.smooth_type},
                            {"iterations", c.iterations},
                            {"factor", c.factor},
                            {"scale", c.scale},
                            {"pin_boundary", c.pin},
                            {"use_mask", c.use_mask},
                            {"invert_mask", c.invert_mask},
                            {"only_smooth", c.only_smooth}});
  }
  const std::filesystem::path fifo = scratch / "positions.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  job["out"] = fifo.string();
  job["edges"] = (scratch / "edges.bin").string();
  std::ofstream(scratch / "job.json") << job.dump();

  // Read and write ends both here: opening never blocks, and Blender's writes wait for our reads.
  const int fd = ::open(fifo.c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  const auto script = std::filesystem::path(WOBBLE_SOURCE_DIR) / "tests/blender/corrective_smooth.py";
  const auto started = std::chrono::steady_clock::now();
  std::atomic<bool> blender_done = false;
  test::CommandResult blender;
  std::thread runner([&] {
    blender = test::run_command(command + " -t 1 -b -noaudio --factory-startup --python '" + script.string() +
                                "' -- '" + (scratch / "job.json").string() + "'");
    blender_done = true;
  });
  std::vector<std::vector<CaseResult>> results(subjects.size(), std::vector<CaseResult>(kCases.size()));
  std::size_t frames = 0;
  for (const Subject& s : subjects) frames = std::max(frames, s.baked.times.size());
  for (std::size_t k = 0; k < frames && !::testing::Test::HasFatalFailure(); ++k)
    for (std::size_t i = 0; i < subjects.size() && !::testing::Test::HasFatalFailure(); ++i)
      if (k < subjects[i].baked.times.size()) compare_frame(subjects[i], k, fd, blender_done, results[i]);
  // After a failure, let Blender finish writing (it waits for the reads).
  for (char sink[65536]; !blender_done;) {
    pollfd ready{fd, POLLIN, 0};
    if (::poll(&ready, 1, 200) > 0 && ::read(fd, sink, sizeof sink) <= 0) break;
  }
  runner.join();
  ::close(fd);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  ASSERT_EQ(blender.exit_code, 0) << blender.output;
  ASSERT_NE(blender.output.find("corrective_smooth.py: streamed"), std::string::npos) << blender.output;
  ASSERT_FALSE(::testing::Test::HasFatalFailure()) << blender.output;
  rusage children{};
  ::getrusage(RUSAGE_CHILDREN, &children);
  const double blender_cpu = static_cast<double>(children.ru_utime.tv_sec + children.ru_stime.tv_sec) +
                             1e-6 * static_cast<double>(children.ru_utime.tv_usec + children.ru_stime.tv_usec);
  std::printf("Blender and wobble compared %zu characters x %zu cases on every frame in %.1f s (Blender: %.1f s CPU)\n",
              subjects.size(), kCases.size(), seconds, blender_cpu);
  check_edges(subjects, scratch / "edges.bin", version);
  for (std::size_t i = 0; i < subjects.size(); ++i) report(subjects[i], results[i]);
}

}  // namespace

TEST(BlenderParity, CorrectiveSmoothMatchesBlender3_4OnEveryFrameOfEveryCharacter) {
  const test::CommandResult which = test::run_command("command -v blender");
  ASSERT_EQ(which.exit_code, 0) << "blender is not installed: run scripts/install-deps.sh test (it installs Debian's "
                                   "blender package); this test does not skip";
  compare_with_blender("blender", BlenderVersion::V3_4);
}

// Debian 13's Blender 4.3 in the tree scripts/install-blender4.sh makes (install-deps.sh test
// starts it in the background: this waits for it, and fails with its log if it failed).
TEST(BlenderParity, CorrectiveSmoothMatchesBlender4_3OnEveryFrameOfEveryCharacter) {
  const std::filesystem::path scripts = std::filesystem::path(WOBBLE_SOURCE_DIR) / "scripts";
  const test::CommandResult tree = test::run_command(test::shell_quoted(scripts / "install-blender4.sh") + " --wait");
  ASSERT_EQ(tree.exit_code, 0) << tree.output;
  compare_with_blender(test::shell_quoted(scripts / "blender4.sh"), BlenderVersion::V4_3);
}
