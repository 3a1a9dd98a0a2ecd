// `wobble batch` end to end on this machine: outputs equal to single `wobble bake` runs, a broken
// input failing alone, resuming, redoing what changed, and strict manifests.
#include <filesystem>
#include <fstream>
#include <map>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <wobble/io/files.hpp>

#include "test_util.hpp"

using nlohmann::json;
using wobble::test::run_wobble;
using wobble::test::ScratchDir;
namespace fs = std::filesystem;

namespace {

std::string in_quotes(const fs::path& p) { return "'" + p.string() + "'"; }

void write_json(const fs::path& file, const json& value) { wobble::test::write_bytes(file, value.dump(2)); }

json read_json(const fs::path& file) {
  std::ifstream in(file);
  return json::parse(in);
}

// A file's bytes, or a folder's files' bytes by name (OBJ sequences).
std::map<std::string, std::vector<char>> output_bytes(const fs::path& output) {
  std::map<std::string, std::vector<char>> files;
  if (fs::is_directory(output)) {
    for (const auto& entry : fs::directory_iterator(output)) {
      files[entry.path().filename().string()] = wobble::test::read_bytes(entry.path());
    }
  } else if (fs::exists(output)) {
    files[""] = wobble::test::read_bytes(output);
  }
  return files;
}

std::map<std::string, std::string> statuses(const json& report) {
  std::map<std::string, std::string> out;
  for (const json& job : report["jobs"]) out[job["name"]] = job["status"];
  return out;
}

// One job of the test manifest and, written out by hand, the `wobble bake` command that must
// give the same bytes.
struct Case {
  json entry;
  std::string bake_arguments;  // besides IN, -o and the settings file
  json settings;               // what bake's --settings file holds (the manifest's layers merged)
};

// 13 jobs over the shared characters: 4 characters, several clips, 6 stacks, 4 output kinds;
// one input is broken. Defaults: 10 fps, up to 0.6 s, settings {"dynamic": {"amplitude": 0.4}}.
class BatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(dir / "chars");
    for (const char* name : {"RiggedFigure.gltf", "RiggedFigure0.bin"}) {
      fs::copy_file(wobble::test::shared_asset(std::string("characters/RiggedFigure/") + name), dir / "chars" / name);
      fs::permissions(dir / "chars" / name, fs::perms::owner_write, fs::perm_options::add);
    }
    wobble::test::write_bytes(dir / "chars/broken.glb", "glTF this is not a binary glTF file");
    write_json(dir / "dyn.json", {{"dynamic", {{"frequency", 3}}}});

    const std::string clonk = wobble::test::bundled_asset("clonk.glb").string();
    const std::string wipf = wobble::test::shared_asset("characters/wipf.glb").string();
    const std::string simple = wobble::test::shared_asset("characters/RiggedSimple/RiggedSimple.gltf").string();
    const std::string bird = wobble::test::shared_asset("characters/velocity_skinning/vs_bird.glb").string();
    const json base = {{"dynamic", {{"amplitude", 0.4}}}};
    const json with_drag = {{"dynamic", {{"amplitude", 0.4}, {"drag", 0.2}}}};
    const json with_frequency = {{"dynamic", {{"amplitude", 0.4}, {"frequency", 3}}}};
    cases = {
        {{{"input", clonk}, {"clip", "Walk"}, {"output", "out/clonk_walk.pc2"}}, "--clip Walk", base},
        {{{"input", clonk}, {"clip", "Run"}, {"deformer", "dqs"}, {"output", "out/clonk_run_dqs.glb"}},
         "--clip Run --deformer dqs",
         base},
        {{{"input", clonk},
          {"clip", "JumpDive"},
          {"deformer", "lbs,dynamic"},
          {"settings", {{"dynamic", {{"drag", 0.2}}}}},
          {"output", "out/clonk_jump_dynamic.pc2"}},
         "--clip JumpDive --deformer lbs,dynamic",
         with_drag},
        {{{"input", clonk},
          {"clip", "Walk"},
          {"deformer", "dlbs,dynamic"},
          {"settings", "dyn.json"},
          {"output", "out/clonk_walk_dlbs.gltf"}},
         "--clip Walk --deformer dlbs,dynamic",
         with_frequency},
        {{{"input", clonk}, {"clip", "Walk"}, {"deformer", "lbs,deltamush"}, {"output", "out/frames/clonk_mush/"}},
         "--clip Walk --deformer lbs,deltamush",
         base},
        {{{"input", wipf}, {"clip", 1}, {"deformer", "lbs,dynamic"}, {"output", "out/wipf_1.glb"}},
         "--clip 1 --deformer lbs,dynamic",
         base},
        {{{"input", wipf}, {"clip", "2"}, {"deformer", "dqs"}, {"output", "out/wipf_2.pc2"}},
         "--clip 2 --deformer dqs",
         base},
        {{{"input", "chars/RiggedFigure.gltf"}, {"output", "out/figure.pc2"}}, "", base},
        {{{"input", "chars/RiggedFigure.gltf"}, {"deformer", "lbs,ddm"}, {"output", "out/figure_ddm.glb"}},
         "--deformer lbs,ddm",
         base},
        {{{"input", simple}, {"deformer", "lbs,dynamic"}, {"output", "out/simple/"}}, "--deformer lbs,dynamic", base},
        {{{"input", bird}, {"deformer", "lbs,dynamic"}, {"name", "bird"}, {"output", "out/bird.pc2"}},
         "--deformer lbs,dynamic",
         base},
        {{{"input", clonk}, {"clip", "Swim"}, {"fps", 15}, {"start", 0.2}, {"output", "out/clonk_swim.pc2"}},
         "--clip Swim --fps 15 --start 0.2",
         base},
        {{{"input", "chars/broken.glb"}, {"output", "out/broken.pc2"}}, "", base},
    };
    json jobs = json::array();
    for (const Case& c : cases) jobs.push_back(c.entry);
    manifest = dir / "batch.json";
    write_json(manifest, {{"defaults", {{"fps", 10}, {"end", 0.6}, {"settings", base}}}, {"jobs", jobs}});
  }

  fs::path output_of(const Case& c) const { return dir / c.entry["output"].get<std::string>(); }
  std::string name_of(const Case& c) const {
    return c.entry.contains("name") ? c.entry["name"].get<std::string>() : c.entry["output"].get<std::string>();
  }

  // The single `wobble bake` for case `i`, into ref/; returns its exit code and output.
  wobble::test::CommandResult bake_alone(std::size_t i) const {
    const Case& c = cases[i];
    fs::create_directories(dir / "ref");
    const fs::path settings = dir / "ref" / ("settings" + std::to_string(i) + ".json");
    write_json(settings, c.settings);
    std::string input = c.entry["input"].get<std::string>();
    if (fs::path(input).is_relative()) input = (dir / input).string();
    std::string output = c.entry["output"].get<std::string>();
    output = (dir / "ref" / std::to_string(i)).string() +
             (output.back() == '/' ? "/" : fs::path(output).extension().string());
    // The manifest's defaults, unless the job sets its own.
    const std::string fps = c.bake_arguments.find("--fps") == std::string::npos ? " --fps 10" : "";
    return run_wobble("bake " + in_quotes(input) + fps + " --end 0.6 " + c.bake_arguments + " --settings " +
                      in_quotes(settings) + " -q -o " + in_quotes(output) + " 2>&1");
  }
  fs::path reference_of(std::size_t i) const {
    const std::string output = cases[i].entry["output"].get<std::string>();
    return (dir / "ref" / std::to_string(i)).string() +
           (output.back() == '/' ? "/" : fs::path(output).extension().string());
  }

  json run_batch(const std::string& flags, int expected_exit_code) const {
    const fs::path report = dir / "report.json";
    const auto result =
        run_wobble("batch " + in_quotes(manifest) + " --jobs 2 --quiet --report " + in_quotes(report) + " " + flags);
    EXPECT_EQ(result.exit_code, expected_exit_code) << result.output;
    return read_json(report);
  }

  ScratchDir scratch;
  const fs::path dir = scratch.path();
  std::vector<Case> cases;
  fs::path manifest;
};

TEST_F(BatchTest, OutputsEqualSingleBakesAndABrokenInputFailsAlone) {
  const json report = run_batch("", 1);
  ASSERT_EQ(report["jobs"].size(), cases.size());
  EXPECT_EQ(report["counts"], json({{"done", 12}, {"skipped", 0}, {"failed", 1}}));
  for (std::size_t i = 0; i + 1 < cases.size(); ++i) {
    const auto alone = bake_alone(i);
    ASSERT_EQ(alone.exit_code, 0) << alone.output;
    const json& entry = report["jobs"][i];
    EXPECT_EQ(entry["status"], "done") << entry.dump();
    EXPECT_EQ(entry["name"], name_of(cases[i]));
    EXPECT_TRUE(entry["error"].is_null());
    const auto bytes = output_bytes(output_of(cases[i]));
    ASSERT_FALSE(bytes.empty()) << output_of(cases[i]);
    EXPECT_EQ(bytes, output_bytes(reference_of(i))) << "job " << i << ": " << output_of(cases[i]);
    EXPECT_TRUE(fs::exists(fs::path(entry["log"].get<std::string>())));
  }
  EXPECT_GT(output_bytes(dir / "out/simple/").size(), 1u);  // an OBJ per frame

  // The broken input: its own job fails with bake's own one-line error, and leaves nothing.
  const json& broken = report["jobs"][cases.size() - 1];
  EXPECT_EQ(broken["status"], "failed");
  const auto alone = bake_alone(cases.size() - 1);
  EXPECT_EQ(alone.exit_code, 1);
  EXPECT_EQ("wobble: error: " + broken["error"].get<std::string>() + "\n", alone.output);
  EXPECT_NE(broken["error"].get<std::string>().find("broken.glb"), std::string::npos);
  for (const auto& entry : fs::directory_iterator(dir / "out")) {
    const std::string name = entry.path().filename().string();
    if (name.find("broken.pc2") != std::string::npos) {
      EXPECT_EQ(name, "broken.pc2.wobble-job.log");  // no output, no temporary, no sidecar; the log
    }
    EXPECT_EQ(name.find(".tmp-"), std::string::npos) << name;
  }
  EXPECT_TRUE(fs::exists(dir / "out/broken.pc2.wobble-job.log"));
  // The sidecar of a .gltf job depends on its buffer file too.
  const json sidecar = read_json(dir / "out/figure.pc2.wobble-job.json");
  EXPECT_TRUE(sidecar["depends_on"]["files"].contains("RiggedFigure0.bin")) << sidecar.dump();
  EXPECT_EQ(sidecar["depends_on"]["settings"], cases[7].settings);
}

TEST_F(BatchTest, ResumesAndRedoesOnlyWhatChanged) {
  run_batch("", 1);
  std::map<std::string, fs::file_time_type> written;
  for (const Case& c : cases) {
    if (fs::exists(output_of(c))) written[name_of(c)] = fs::last_write_time(output_of(c));
  }

  // A second run skips every finished job (the broken one is tried again and fails again).
  std::map<std::string, std::string> expected;
  for (const Case& c : cases) expected[name_of(c)] = "skipped";
  expected["out/broken.pc2"] = "failed";
  EXPECT_EQ(statuses(run_batch("", 1)), expected);

  // A settings file and a .gltf input change: only the jobs that read them are redone.
  write_json(dir / "dyn.json", {{"dynamic", {{"frequency", 4}}}});
  std::ofstream(dir / "chars/RiggedFigure.gltf", std::ios::app) << "\n";
  auto changed = expected;
  changed["out/clonk_walk_dlbs.gltf"] = changed["out/figure.pc2"] = changed["out/figure_ddm.glb"] = "done";
  EXPECT_EQ(statuses(run_batch("", 1)), changed);
  for (const Case& c : cases) {
    const std::string name = name_of(c);
    if (changed[name] == "skipped") {
      EXPECT_EQ(fs::last_write_time(output_of(c)), written[name]) << name;
    }
  }
  // The redone job used the new settings: its sidecar says so.
  EXPECT_EQ(
      read_json(dir / "out/clonk_walk_dlbs.gltf.wobble-job.json")["depends_on"]["settings"]["dynamic"]["frequency"], 4);

  // --force redoes everything.
  auto forced = expected;
  for (auto& [name, status] : forced) status = name == "out/broken.pc2" ? "failed" : "done";
  EXPECT_EQ(statuses(run_batch("--force", 1)), forced);
}

TEST_F(BatchTest, CsvManifestGivesTheSameBytes) {
  // Jobs 2, 3 and 5 of the JSON manifest as CSV rows: a quoted stack, a settings file and inline
  // settings with doubled quotes. No defaults in CSV: fps, end and the amplitude are columns.
  const fs::path csv = dir / "batch.csv";
  const std::string clonk = wobble::test::bundled_asset("clonk.glb").string();
  const std::string wipf = wobble::test::shared_asset("characters/wipf.glb").string();
  wobble::test::write_bytes(
      csv, "input,clip,deformer,fps,end,settings,output\r\n" + clonk +
               ",JumpDive,\"lbs,dynamic\",10,0.6,\"{\"\"dynamic\"\": {\"\"amplitude\"\": 0.4, \"\"drag\"\": "
               "0.2}}\",csv/jump.pc2\r\n" +
               clonk + ",Walk,\"dlbs,dynamic\",10,3/5,settings3.json,csv/walk.gltf\r\n" + wipf +
               ",1,\"lbs,dynamic\",1e1,0.6,\"{\"\"dynamic\"\": {\"\"amplitude\"\": 0.4}}\",csv/wipf.glb\r\n");
  write_json(dir / "settings3.json", cases[3].settings);
  const auto result = run_wobble("batch " + in_quotes(csv) + " --jobs 2 --quiet");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const std::pair<std::size_t, const char*> pairs[] = {{2, "csv/jump.pc2"}, {3, "csv/walk.gltf"}, {5, "csv/wipf.glb"}};
  for (const auto& [i, output] : pairs) {
    ASSERT_EQ(bake_alone(i).exit_code, 0);
    EXPECT_EQ(output_bytes(dir / output), output_bytes(reference_of(i))) << output;
  }
}

TEST(BatchHelperBones, AJobWithHelperBonesGivesTheSingleBakesBytes) {
  ScratchDir dir;
  const std::string clonk = wobble::test::bundled_asset("clonk.glb").string();
  const json job = {{"input", clonk},
                    {"clip", "Walk"},
                    {"deformer", "lbs,dynamic"},
                    {"fps", 20},
                    {"end", 0.5},
                    {"helper_bones", 3},
                    {"helper_influences", 6},
                    {"helper_iterations", 8},
                    {"helper_smoothness", 0.001},
                    {"output", "helpers.glb"}};
  write_json(dir / "batch.json", {{"jobs", {job}}});
  const auto batch = run_wobble("batch " + in_quotes(dir / "batch.json") + " --jobs 1 --quiet 2>&1");
  ASSERT_EQ(batch.exit_code, 0) << batch.output;
  const auto alone =
      run_wobble("bake " + in_quotes(clonk) +
                 " --clip Walk --deformer lbs,dynamic --fps 20 --end 0.5 "
                 "--helper-bones 3 --helper-influences 6 --helper-iterations 8 --helper-smoothness 0.001 -q -o " +
                 in_quotes(dir / "alone.glb") + " 2>&1");
  ASSERT_EQ(alone.exit_code, 0) << alone.output;
  EXPECT_EQ(output_bytes(dir / "helpers.glb"), output_bytes(dir / "alone.glb"));
  EXPECT_GT(wobble::read_gltf(dir / "helpers.glb").rig.joint_count(), wobble::read_gltf(clonk).rig.joint_count());
}

TEST(BatchManifest, ErrorsNameTheManifestAndTheElement) {
  ScratchDir dir;
  const std::string clonk = wobble::test::bundled_asset("clonk.glb").string();
  const json good = {{"input", clonk}, {"output", "a.pc2"}};
  struct Bad {
    json manifest;
    std::string expected;
  };
  const Bad cases[] = {
      {{{"jobs", {good, good, good, {{"input", clonk}, {"output", "b.pc2"}, {"fps", "30fps"}}}}},
       "batch.json: jobs[3].fps: expected a number, got \"30fps\""},
      {{{"jobs", {{{"input", clonk}, {"output", "b.pc2"}, {"fsp", 30}}}}},
       "batch.json: jobs[0]: unknown key 'fsp' (the closest valid key is 'fps')"},
      {{{"defaults", {{"deformr", "lbs"}}}, {"jobs", {good}}},
       "batch.json: defaults: unknown key 'deformr' (the closest valid key is 'deformer')"},
      {{{"jobs", {good}}, {"job", {}}}, "batch.json: unknown key 'job' (the closest valid key is 'jobs')"},
      {{{"jobs", {{{"input", clonk}, {"output", "b.pc2"}, {"amplitude", 0.4}}}}},
       "batch.json: jobs[0]: 'amplitude' is a deformer parameter: give it in \"settings\""},
      {{{"jobs", {{{"input", clonk}, {"output", "b.pc2"}, {"threads", -1}}}}},
       "batch.json: jobs[0].threads: -1 is out of range [1, 1024]"},
      {{{"jobs", {{{"input", clonk}, {"output", "b.pc2"}, {"fps", 1e300}}}}},
       "batch.json: jobs[0].fps: 1e+300 is out of range [0.001, 10000]"},
      {{{"jobs", {{{"input", clonk}, {"output", "b.glb"}, {"helper_bones", 0}}}}},
       "batch.json: jobs[0].helper_bones: 0 is out of range [1, 4096]"},
      {{{"jobs", {{{"input", clonk}, {"output", "b.glb"}, {"helper_bones", 2}, {"helper_tolerance", "small"}}}}},
       "batch.json: jobs[0].helper_tolerance: expected a number, got \"small\""},
      {{{"jobs", {{{"input", clonk}, {"output", "b.pc2"}, {"settings", 3}}}}},
       "batch.json: jobs[0].settings: expected an object"},
      {{{"jobs", {{{"input", clonk}}}}}, "batch.json: jobs[0]: no \"output\""},
      {{{"jobs", {{{"output", "b.pc2"}}}}}, "batch.json: jobs[0]: no \"input\""},
      {{{"jobs", {good, {{"input", clonk}, {"output", "./a.pc2"}}}}},
       "batch.json: jobs[1].output: the same output as jobs[0]"},
      {{{"defaults", {{"output", "x.pc2"}}}, {"jobs", {good}}},
       "batch.json: defaults: 'output' belongs to each job, not to the defaults"},
      {{{"jobs", json::array()}}, "batch.json: jobs: expected a non-empty list of jobs"},
  };
  for (const Bad& c : cases) {
    wobble::test::write_bytes(dir / "batch.json", c.manifest.dump());
    const auto here = run_wobble("batch " + in_quotes(dir / "batch.json") + " -q 2>&1");
    EXPECT_EQ(here.exit_code, 1) << c.manifest.dump();
    const std::string expected = "wobble: error: " + (dir / c.expected).string();
    EXPECT_EQ(here.output.rfind(expected, 0), 0u) << "got: " << here.output << "expected: " << expected;
    EXPECT_EQ(wobble::test::count_lines(here.output), 1u) << here.output;
  }
  EXPECT_FALSE(fs::exists(dir / "a.pc2"));

  wobble::test::write_bytes(dir / "batch.csv", "input,output,fps\n" + clonk + ",a.pc2,30\n" + clonk + ",b.pc2,30fps\n");
  const auto csv = run_wobble("batch " + in_quotes(dir / "batch.csv") + " -q 2>&1");
  EXPECT_EQ(csv.exit_code, 1);
  EXPECT_EQ(csv.output, "wobble: error: " + (dir / "batch.csv").string() + ": line 3: fps: '30fps' is not a number\n");
  EXPECT_FALSE(fs::exists(dir / "a.pc2"));  // a bad manifest runs nothing

  wobble::test::write_bytes(dir / "open.csv", "input,output,deformer\n" + clonk + ",a.pc2,\"lbs,dynamic\n");
  const auto open = run_wobble("batch " + in_quotes(dir / "open.csv") + " -q 2>&1");
  EXPECT_EQ(open.output, "wobble: error: " + (dir / "open.csv").string() + ": line 2: a quoted cell is not closed\n");
}

}  // namespace
