// The physics C API (wobble/wobble_physics.h): built by the same function as `wobble simulate`,
// so its frames equal the command's output to the bit; settings are the physics description's
// (checked by it), and every refusal names the key, the file or the argument.
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <wobble/io/files.hpp>
#include <wobble/physics/settings.hpp>
#include <wobble/wobble_physics.h>

#include "test_util.hpp"

using namespace wobble;
using wobble::test::shell_quoted;

namespace {

// A small subspace on a shared shape: seconds, not minutes.
constexpr const char* kFlags = " --handles 4 --points 200 --sample-grid 12 --field-grid 10 --pin 'y>0.8' --fps 30";
constexpr const char* kSettings =
    R"({"handles": 4, "points": 200, "sample_grid": 12, "field_grid": 10, "pin": "y>0.8", "fps": 30})";

// The status of a refused create and its message; the result pointer is left NULL.
std::pair<wobble_status, std::string> refused(const char* file, const char* settings) {
  wobble_simulation* simulation = reinterpret_cast<wobble_simulation*>(&simulation);  // not NULL before the call
  const wobble_status status = wobble_simulation_create(file, settings, &simulation);
  EXPECT_EQ(simulation, nullptr) << settings;
  if (simulation) wobble_simulation_destroy(simulation);
  return {status, wobble_last_error()};
}

}  // namespace

TEST(PhysicsCApi, FramesEqualWobbleSimulateToTheBit) {
  test::ScratchDir dir;
  const auto shape = test::shared_asset("shapes/cactus.off");
  constexpr int kFrames = 6;
  std::string command = "simulate " + shell_quoted(shape);
  command += kFlags;
  command += " --frames " + std::to_string(kFrames) + " -q -o " + shell_quoted(dir / "out.pc2");
  const auto cli = test::run_wobble(command);
  ASSERT_EQ(cli.exit_code, 0) << cli.output;
  const auto expected = read_pc2(dir / "out.pc2");
  ASSERT_EQ(expected.size(), static_cast<std::size_t>(kFrames));

  wobble_simulation* simulation = nullptr;
  ASSERT_EQ(wobble_simulation_create(shape.c_str(), kSettings, &simulation), WOBBLE_OK) << wobble_last_error();
  std::uint32_t count = 0;
  ASSERT_EQ(wobble_simulation_point_count(simulation, &count), WOBBLE_OK);
  ASSERT_EQ(count, expected[0].size());
  std::vector<float> positions(4 * count);  // a stride of 16 bytes: x, y, z and a host's fourth float
  float moved = 0;
  for (int f = 0; f < kFrames; ++f) {
    if (f > 0) {
      ASSERT_EQ(wobble_simulation_advance(simulation), WOBBLE_OK) << wobble_last_error();
    }
    ASSERT_EQ(wobble_simulation_positions(simulation, positions.data(), 16), WOBBLE_OK) << wobble_last_error();
    for (std::uint32_t v = 0; v < count; ++v) {
      const Vec3f p(positions[4 * v], positions[4 * v + 1], positions[4 * v + 2]);
      ASSERT_EQ(std::memcmp(p.data(), expected[f][v].data(), sizeof(Vec3f)), 0) << "frame " << f << " point " << v;
      moved = std::max(moved, (p - expected[0][v]).norm());
    }
  }
  EXPECT_GT(moved, 1e-4f);  // it sagged: the frames compared are not all the rest shape
  EXPECT_EQ(wobble_simulation_destroy(simulation), WOBBLE_OK);
}

TEST(PhysicsCApi, DescriptionListsEveryPhysicsSetting) {
  const char* json = nullptr;
  ASSERT_EQ(wobble_physics_description(&json), WOBBLE_OK);
  const auto description = nlohmann::json::parse(json);
  std::vector<std::string> keys;
  for (const auto& parameter : description.at("parameters")) keys.push_back(parameter.at("key"));
  std::vector<std::string> declared;
  for (const ParameterDescription& p : physics::physics_description().parameters) declared.push_back(p.key);
  EXPECT_EQ(keys, declared);
}

TEST(PhysicsCApi, RefusalsNameTheKeyTheFileOrTheArgument) {
  const std::string shape = test::shared_asset("shapes/cactus.off").string();
  struct Case {
    const char* file;
    const char* settings;
    wobble_status status;
    const char* message;
  };
  const Case cases[] = {
      {shape.c_str(), R"({"youngs": 1e5})", WOBBLE_INVALID_SETTINGS, "youngs"},  // a flag's spelling, not a key
      {shape.c_str(), R"({"poisson_ratio": 0.6})", WOBBLE_INVALID_SETTINGS, "poisson_ratio"},
      {shape.c_str(), R"({"handles": "four"})", WOBBLE_INVALID_SETTINGS, "handles"},
      {shape.c_str(), R"({"frames": 10})", WOBBLE_INVALID_SETTINGS, "frames: not a setting here"},
      {shape.c_str(), R"({"contact": true})", WOBBLE_INVALID_SETTINGS, "contact: not a setting here"},
      {shape.c_str(), "[1, 2]", WOBBLE_INVALID_SETTINGS, "an object of settings"},
      {shape.c_str(), "{\"fps\": 30", WOBBLE_INVALID_SETTINGS, "wobble_simulation_create: settings"},
      {"/nonexistent/nope.off", "", WOBBLE_FAILED, "nope.off"},
      {shape.c_str(), R"({"pin": "y>5", "points": 50, "handles": 2, "field_grid": 8})", WOBBLE_FAILED,
       "selects no point"},
      {nullptr, "", WOBBLE_INVALID_ARGUMENT, "shape_file is NULL"},
  };
  for (const Case& c : cases) {
    const auto [status, message] = refused(c.file, c.settings);
    EXPECT_EQ(status, c.status) << c.settings << ": " << message;
    EXPECT_NE(message.find(c.message), std::string::npos) << c.settings << ": " << message;
  }
  EXPECT_EQ(wobble_simulation_create(shape.c_str(), "", nullptr), WOBBLE_INVALID_ARGUMENT);
  std::uint32_t count = 0;
  EXPECT_EQ(wobble_simulation_point_count(nullptr, &count), WOBBLE_INVALID_ARGUMENT);
  EXPECT_EQ(wobble_simulation_advance(nullptr), WOBBLE_INVALID_ARGUMENT);
  EXPECT_EQ(wobble_simulation_destroy(nullptr), WOBBLE_OK);
}
