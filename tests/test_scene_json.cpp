// SCENE.json values read with errors naming the file and the JSON path of the key
// (scene_description.hpp), and physical inputs refused before the solver runs
// (physics/input_checks.hpp). The JSON reader itself (core/json_values.hpp):
// tests/runtime/test_json_values.cpp.
#include <functional>
#include <tuple>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <wobble/error.hpp>
#include <wobble/physics/input_checks.hpp>
#include <wobble/physics/rig_complementary.hpp>
#include <wobble/physics/scene_description.hpp>
#include <wobble/physics/settings.hpp>

#include "test_util.hpp"

using namespace wobble;
using nlohmann::json;
using wobble::test::error_of;

namespace {

json good_scene() {
  return json::parse(R"({
    "fps": 24, "frames": 10, "gravity": [0, -9.81, 0],
    "objects": [{"file": "a.off", "pin": "y>0.5", "material": {"youngs_modulus": 1e5}},
                {"file": "b.off", "kinematic": true, "velocity": [1, 0, 0]}],
    "planes": [{"origin": [0, -1, 0], "normal": [0, 2, 0], "half_size": [3, 4]}],
    "drags": [{"object": 0, "target": [0, 1, 0]}]
  })");
}

// The error of describe_scene on the good scene with one edit.
std::string scene_error(const std::function<void(json&)>& edit) {
  json scene = good_scene();
  edit(scene);
  return error_of([&] { physics::describe_scene(scene, "/scenes/scene.json"); });
}

}  // namespace

TEST(SceneJson, EveryBadValueIsNamedByFileAndPath) {
  EXPECT_EQ(scene_error([](json&) {}), "");
  const std::string file = "/scenes/scene.json: ";
  EXPECT_EQ(scene_error([](json& s) { s["planes"][0]["half_size"][1] = true; }),
            file + "planes[0].half_size[1]: expected a number, got true");
  EXPECT_EQ(scene_error([](json& s) { s["objects"][0]["handles"] = 1.5; }),
            file + "objects[0].handles: expected an integer, got 1.5");
  EXPECT_EQ(scene_error([](json& s) { s["objects"][0]["handles"] = 300; }),
            file + "objects[0].handles: 300 is out of range [1, 256]");
  EXPECT_EQ(
      scene_error([](json& s) { s["objects"][0]["handels"] = 3; }).rfind(file + "objects[0]: unknown key 'handels'", 0),
      0u);
  EXPECT_EQ(scene_error([](json& s) {
              s["gravity"] = {0, -1e308, 0};
            }),
            file + "gravity[1]: -1e+308 is out of range [-10000, 10000]");
  EXPECT_EQ(scene_error([](json& s) {
              s["objects"][1]["acceleration"] = {0, "up", 0};
            }),
            file + "objects[1].acceleration[1]: expected a number, got \"up\"");
  EXPECT_EQ(scene_error([](json& s) { s["objects"][0]["material"]["poisson_ratio"] = 0.5; }),
            file + "objects[0].material.poisson_ratio: 0.5 is out of range [0, 0.4999]");
  EXPECT_EQ(scene_error([](json& s) {
              s["objects"][0]["material"]["model"] = "rubber";
            }).rfind(file + "objects[0].material.model: ", 0),
            0u);
  EXPECT_EQ(scene_error([](json& s) { s["objects"][0]["pin"] = "y >"; }).rfind(file + "objects[0].pin: ", 0), 0u);
  EXPECT_EQ(scene_error([](json& s) { s["fps"] = 0; }), file + "fps: 0 is out of range [0.001, 10000]");
  EXPECT_EQ(scene_error([](json& s) { s["frames"] = "10"; }), file + "frames: expected an integer, got \"10\"");
  EXPECT_EQ(scene_error([](json& s) {
              s["planes"][0]["normal"] = {0, 0, 0};
            }),
            file + "planes[0].normal: must not be zero");
  EXPECT_EQ(scene_error([](json& s) { s["drags"][0]["object"] = 1; }),
            file + "drags[0].object: object 1 is kinematic, not deformable");
  EXPECT_EQ(scene_error([](json& s) { s["drags"][0]["object"] = 2; }),
            file + "drags[0].object: 2 is out of range [0, 1]");
  EXPECT_EQ(scene_error([](json& s) { s["objects"] = json::array(); }),
            file + "objects: required: a non-empty array of objects");
  EXPECT_EQ(scene_error([](json& s) { s.erase("objects"); }), file + "objects: required: a non-empty array of objects");
  EXPECT_EQ(scene_error([](json& s) { s["objects"][0]["kinematic"] = true; }),
            file + "objects: none is deformable (every object is kinematic)");
  EXPECT_EQ(scene_error([](json& s) { s["objects"][0].erase("file"); }),
            file + "objects[0].file: required (the shape's file, relative to the scene file)");
  EXPECT_EQ(scene_error([](json& s) { s = json::array(); }), "/scenes/scene.json: expected an object, got []");
}

TEST(SceneJson, TheDescriptionHoldsWhatTheFileSays) {
  const physics::SceneDescription scene = physics::describe_scene(good_scene(), "/scenes/scene.json");
  ASSERT_EQ(scene.objects.size(), 2u);
  EXPECT_EQ(scene.objects[0].file, "/scenes/a.off");
  EXPECT_EQ(scene.objects[0].where, "/scenes/scene.json: objects[0]");
  EXPECT_TRUE(scene.objects[1].kinematic);
  EXPECT_EQ(scene.objects[1].velocity, Vec3d(1, 0, 0));
  EXPECT_DOUBLE_EQ(scene.solver.time_step, 1.0 / (24 * 2));
  ASSERT_EQ(scene.planes.size(), 1u);
  EXPECT_EQ(scene.planes[0].normal, Vec3d(0, 1, 0));  // normalised
  EXPECT_EQ(scene.planes[0].half_v, 4.0);
  ASSERT_EQ(scene.drags.size(), 1u);
  EXPECT_EQ(scene.drags[0].drag.target, Vec3d(0, 1, 0));
}

TEST(PhysicsInputs, NonFiniteOrAbsurdValuesAreRefusedWithWhatIsWrong) {
  physics::World world;
  EXPECT_EQ(error_of([&] { physics::check_world_inputs(world, "shape.off"); }), "");
  world.solver.gravity = Vec3d(0, std::nan(""), 0);
  EXPECT_EQ(error_of([&] { physics::check_world_inputs(world, "shape.off"); }),
            "shape.off: gravity: (0, nan, 0) is not finite");
  world.solver.gravity = Vec3d(0, -1e308, 0);
  EXPECT_EQ(error_of([&] { physics::check_world_inputs(world, "shape.off"); }),
            "shape.off: gravity: (0, -1e+308, 0) has length 1e+308 m/s^2, beyond the limit 10000 m/s^2");
  world.solver.gravity = Vec3d(0, -9.81, 0);
  physics::Plane floor;
  floor.origin = Vec3d(0, std::numeric_limits<double>::infinity(), 0);
  world.planes.push_back(floor);
  EXPECT_EQ(error_of([&] { physics::check_world_inputs(world, "shape.off"); }),
            "shape.off: plane 0 origin: (0, inf, 0) is not finite");
  EXPECT_EQ(error_of([] {
              physics::check_material(physics::Material{-1, 0.3, 1000}, "--youngs");
            }),
            "--youngs: Young's modulus (Pa): -1 is out of range [0.001, 1e+13]");
}

// The physics settings are declared once (settings.hpp): the description's defaults are those of
// every option struct the front ends fill, and SCENE.json takes its defaults and ranges from it.
TEST(PhysicsSettings, EveryOptionStructAndTheSceneFileTakeTheDescribedDefaults) {
  const DeformerDescription& d = physics::physics_description();
  auto number = [&](const char* key) { return std::get<double>(d.at(key, "test").default_value); };
  auto integer = [&](const char* key) { return std::get<std::int64_t>(d.at(key, "test").default_value); };
  const physics::ObjectDescription object;
  const physics::RigComplementaryOptions rig;
  for (const auto& [handles, points, youngs, poisson, density] :
       {std::tuple{object.handles, object.points, object.material.youngs_modulus, object.material.poisson_ratio,
                   object.material.density},
        std::tuple{rig.handles, rig.points, rig.material.youngs_modulus, rig.material.poisson_ratio,
                   rig.material.density}}) {
    EXPECT_EQ(handles, integer("handles"));
    EXPECT_EQ(static_cast<std::int64_t>(points), integer("points"));
    EXPECT_EQ(youngs, number("youngs_modulus"));
    EXPECT_EQ(poisson, number("poisson_ratio"));
    EXPECT_EQ(density, number("density"));
  }
  const physics::SceneDescription scene =
      physics::describe_scene(nlohmann::json::parse(R"({"objects": [{"file": "a.off"}]})"), "s.json");
  EXPECT_EQ(scene.fps, number("fps"));
  EXPECT_EQ(scene.frames, integer("frames"));
  EXPECT_EQ(scene.substeps, integer("substeps"));
  EXPECT_EQ(scene.solver.max_iterations, integer("max_iterations"));
  EXPECT_EQ(scene.solver.tolerance, number("tolerance"));
  EXPECT_EQ(scene.contact.radius, number("contact_radius"));
  EXPECT_EQ(scene.contact.stiffness, number("contact_stiffness"));
  EXPECT_EQ(scene.objects[0].handles, integer("handles"));
  EXPECT_EQ(scene.objects[0].pin_blend, number("pin_blend"));
  EXPECT_EQ(scene.objects[0].material.youngs_modulus, number("youngs_modulus"));
  EXPECT_EQ(physics::Drag{}.stiffness, number("drag_stiffness"));
  EXPECT_EQ(physics::Drag{}.radius, number("drag_radius"));
  // The file's ranges are the description's: 0.4999 is the largest Poisson ratio everywhere.
  auto material = [](double poisson) {
    return nlohmann::json::parse(R"({"objects": [{"file": "a.off", "material": {"poisson_ratio": )" +
                                 std::to_string(poisson) + "}}]}");
  };
  EXPECT_EQ(physics::describe_scene(material(0.4999), "s.json").objects[0].material.poisson_ratio, 0.4999);
  EXPECT_NE(error_of([&] { physics::describe_scene(material(0.5), "s.json"); }).find("0.5 is out of range [0, 0.4999]"),
            std::string::npos);
}
