// The command line's deformer parameters, made from the descriptions: values read whole or
// refused by name (exit 1, one line, no output), fractions exact, keyed settings files, and
// docs/parameters.md kept equal to `wobble deformers --markdown`.
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "test_util.hpp"

using namespace wobble;
using wobble::test::count_lines;
using wobble::test::run_wobble;
using wobble::test::ScratchDir;
using wobble::test::shell_quoted;

namespace {

std::string bake_walk(const std::string& flags, const std::filesystem::path& out) {
  return "bake " + shell_quoted(test::bundled_asset("clonk.glb")) + " --clip Walk --fps 30 --end 0.5 -q " + flags +
         " -o " + shell_quoted(out);
}

}  // namespace

TEST(CliParameters, BadValuesAreRefusedByName) {
  ScratchDir dir;
  const auto out = dir / "out.pc2";
  std::ofstream(dir / "types.json") << R"({"dynamic": {"frequency": "2"}})";
  std::ofstream(dir / "unknown.json") << R"({"dynamic": {"frequncy": 2}})";
  std::ofstream(dir / "integer.json") << R"({"deltamush": {"iterations": 1.5}})";
  struct Case {
    std::string flags, expected;
  };
  const Case cases[] = {
      {"--deformer lbs,dynamic --frequency 2abc", "--frequency: '2abc' is not a number"},
      {"--deformer lbs,dynamic --frequency nan", "--frequency: 'nan' is not a number"},
      {"--deformer lbs,dynamic --frequency inf", "--frequency: 'inf' is not a number"},
      {"--deformer lbs,dynamic --frequency 1e400", "--frequency: '1e400' is not a number"},
      {"--deformer lbs,dynamic --frequency ''", "--frequency: '' is not a number"},
      {"--deformer lbs,dynamic --frequency 31", "--frequency: 31 is out of range [0, 30]"},
      {"--deformer lbs,dynamic --damping -1", "--damping: -1 is out of range [0, 1e+06]"},
      {"--deformer lbs,deltamush --mush-iterations 1.5", "--mush-iterations: '1.5' is not an integer"},
      {"--deformer lbs,deltamush --mush-iterations 0x10", "--mush-iterations: '0x10' is not an integer"},
      {"--deformer lbs,deltamush --mush-pin-boundary maybe", "--mush-pin-boundary: 'maybe' is not a boolean"},
      {"--deformer lbs,deltamush --mush-smoothing bilateral", "--mush-smoothing: 'bilateral' is not one of"},
      {"--deformer dlbs --delay-step 1/0", "--delay-step: '1/0' is not a number"},
      {"--deformer lbs --frequency 2", "--frequency sets a parameter of deformer 'dynamic', which is not in the stack"},
      {"--deformer lbs,dynamic --settings " + shell_quoted(dir / "types.json"),
       "types.json: dynamic.frequency: expected a number, got \"2\""},
      {"--deformer lbs,dynamic --settings " + shell_quoted(dir / "unknown.json"),
       "unknown.json: dynamic: unknown parameter 'frequncy' for deformer 'dynamic' (did you mean 'frequency'?)"},
      {"--deformer lbs,deltamush --settings " + shell_quoted(dir / "integer.json"),
       "integer.json: deltamush.iterations: expected an integer, got 1.5"},
  };
  for (const Case& c : cases) {
    const auto result = run_wobble(bake_walk(c.flags, out) + " 2>&1 >/dev/null");
    EXPECT_EQ(result.exit_code, 1) << c.flags << "\n" << result.output;
    EXPECT_NE(result.output.find(c.expected), std::string::npos) << c.flags << "\n" << result.output;
    EXPECT_EQ(count_lines(result.output), 1u) << c.flags << "\n" << result.output;
    EXPECT_FALSE(std::filesystem::exists(out)) << c.flags;
  }
}

// `wobble measure --against` reads the same settings for both stacks: a section or a flag for a
// deformer of the --against stack alone is used, not warned of or refused; one for a deformer of
// neither stack is, naming both.
TEST(CliParameters, MeasureAgainstReadsTheSettingsForBothStacks) {
  ScratchDir dir;
  std::ofstream(dir / "settings.json") << R"({"deltamush": {"iterations": 3}, "dynamic": {"frequency": 2}})";
  auto measure = [&](const std::string& flags) {
    std::ostringstream command;
    command << "measure " << shell_quoted(test::bundled_asset("clonk.glb")) << " --clip Walk --fps 10 --end 0.3 "
            << flags << " 2>&1";
    return run_wobble(command.str());
  };
  const std::string settings = " --settings " + shell_quoted(dir / "settings.json");
  const auto both = measure("--deformer lbs,dynamic --against lbs,deltamush --mush-step 0.4" + settings);
  EXPECT_EQ(both.exit_code, 0) << both.output;
  EXPECT_EQ(both.output.find("ignored"), std::string::npos) << both.output;
  const auto alone = measure("--deformer lbs,dynamic" + settings);
  EXPECT_EQ(alone.exit_code, 0) << alone.output;
  EXPECT_NE(alone.output.find("section 'deltamush' is ignored: that deformer is not in the stack 'lbs,dynamic'"),
            std::string::npos)
      << alone.output;
  const auto neither = measure("--deformer lbs --against dqs --frequency 2");
  EXPECT_EQ(neither.exit_code, 1) << neither.output;
  EXPECT_NE(neither.output.find(
                "--frequency sets a parameter of deformer 'dynamic', which is in none of the stacks 'lbs', 'dqs'"),
            std::string::npos)
      << neither.output;
}

// The documented default's own spelling, 1/240, is read exactly: the same bytes as the default.
TEST(CliParameters, FractionsAreExact) {
  ScratchDir dir;
  ASSERT_EQ(run_wobble(bake_walk("--deformer dlbs", dir / "default.pc2")).exit_code, 0);
  ASSERT_EQ(run_wobble(bake_walk("--deformer dlbs --delay-step 1/240", dir / "fraction.pc2")).exit_code, 0);
  EXPECT_EQ(test::read_bytes(dir / "default.pc2"), test::read_bytes(dir / "fraction.pc2"));
  ASSERT_EQ(run_wobble(bake_walk("--deformer dlbs --delay-step 1", dir / "one.pc2")).exit_code, 0);
  EXPECT_NE(test::read_bytes(dir / "default.pc2"), test::read_bytes(dir / "one.pc2"));
}

// Keys in a settings file: constant keys bake the constant's bytes; a flag overrides the file.
TEST(CliParameters, KeyedSettingsFilesBake) {
  ScratchDir dir;
  std::ofstream(dir / "constant.json") << R"({"dynamic": {"amplitude": 0.4}})";
  std::ofstream(dir / "keys.json") << R"({"dynamic": {"amplitude": {"keys": [[0, 0.4], [9, 0.4]]}}})";
  std::ofstream(dir / "falling.json") << R"({"dynamic": {"amplitude": {"keys": [[0, 0.4], [0.5, 0]]}}})";
  for (const char* name : {"constant", "keys", "falling"}) {
    const auto result =
        run_wobble(bake_walk("--deformer lbs,dynamic --settings " + shell_quoted(dir / (std::string(name) + ".json")),
                             dir / (std::string(name) + ".pc2")));
    ASSERT_EQ(result.exit_code, 0) << result.output;
  }
  EXPECT_EQ(test::read_bytes(dir / "constant.pc2"), test::read_bytes(dir / "keys.pc2"));
  EXPECT_NE(test::read_bytes(dir / "constant.pc2"), test::read_bytes(dir / "falling.pc2"));
  ASSERT_EQ(run_wobble(bake_walk("--deformer lbs,dynamic --settings " + shell_quoted(dir / "falling.json") +
                                     " --amplitude 0.4",
                                 dir / "flag.pc2"))
                .exit_code,
            0);
  EXPECT_EQ(test::read_bytes(dir / "constant.pc2"), test::read_bytes(dir / "flag.pc2"));
}

// A generated doc equals the output of the command that generates it.
void expect_doc_is_output(const std::string& doc, const std::string& command) {
  const auto result = run_wobble(command);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  std::ifstream in(std::filesystem::path(WOBBLE_SOURCE_DIR) / doc);
  std::stringstream committed;
  committed << in.rdbuf();
  EXPECT_EQ(committed.str(), result.output)
      << doc << " is stale: regenerate it with `build/wobble " << command << " > " << doc << "`";
}

TEST(CliParameters, DocsParametersMdIsTheGeneratedDescription) {
  expect_doc_is_output("docs/parameters.md", "deformers --markdown");
}

TEST(CliParameters, DocsPhysicsParametersMdIsTheGeneratedDescription) {
  expect_doc_is_output("docs/physics-parameters.md", "simulate --describe --markdown");
}

// Every described setting that applies to a single shape is a `simulate` flag with the
// description's help line (unit, default, range), and --describe --json lists them all.
TEST(CliParameters, SimulateFlagsAreThePhysicsDescription) {
  const auto help = run_wobble("simulate --help");
  const auto json = run_wobble("simulate --describe --json");
  ASSERT_EQ(json.exit_code, 0) << json.output;
  const nlohmann::json described = nlohmann::json::parse(json.output);
  ASSERT_EQ(described["name"], "physics");
  std::size_t flags = 0;
  for (const nlohmann::json& p : described["parameters"]) {
    const std::string key = p["key"], flag = "--" + p["flag"].get<std::string>();
    const bool scene_only = key.rfind("contact", 0) == 0 || key.rfind("drag_", 0) == 0;
    EXPECT_EQ(help.output.find(flag + " ") != std::string::npos || help.output.find(flag + "\n") != std::string::npos,
              !scene_only)
        << flag;
    flags += scene_only ? 0 : 1;
  }
  EXPECT_GE(flags, 17u);
  EXPECT_NE(help.output.find("Poisson ratio (0.5 would be incompressible) (default 0.45; 0 to 0.4999; bind)"),
            std::string::npos)
      << help.output;
}

TEST(CliParameters, HelpShowsUnitsDefaultsAndLifetimes) {
  const auto result = run_wobble("bake --help");
  EXPECT_NE(result.output.find("--frequency"), std::string::npos);
  EXPECT_NE(result.output.find("Hz; default 2.5; 0 to 30; live"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("default 1/240"), std::string::npos);
  EXPECT_NE(result.output.find("--skip-below"), std::string::npos);
}
