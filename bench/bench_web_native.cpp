// The native side of the npm package's benchmark (scripts/bench-web.sh): wobble_stack_evaluate
// through the C API on one thread, frame k at k / 60 s on the clip's poses, for the characters the
// browser side measures (bench/web_npm.mjs): what fx.update does, natively.
//   WOBBLE_WEB_BENCH_FILES=a.glb:b.glb wobble_bench_web_native [benchmark flags]
// (default: the bundled clonk.glb). Clip "Walk", else the first.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include <wobble/io/files.hpp>
#include <wobble/wobble.h>

#include "c_api_scene.hpp"

namespace {

using wobble::bench::Scene;

std::vector<std::string> bench_files() {
  const char* listed = std::getenv("WOBBLE_WEB_BENCH_FILES");
  std::vector<std::string> files;
  std::stringstream text(listed && *listed ? listed : std::string(WOBBLE_BUNDLED_ASSETS) + "/clonk.glb");
  for (std::string file; std::getline(text, file, ':');)
    if (!file.empty()) files.push_back(file);
  return files;
}

void frame_through_c_api(benchmark::State& state, const Scene* s, const char* stack_text) {
  const wobble_skinned_mesh mesh = s->arrays();
  wobble_character* character = nullptr;
  wobble_stack* stack = nullptr;
  if (wobble_character_create(&mesh, &character) != WOBBLE_OK ||
      wobble_stack_create(character, stack_text, nullptr, 1, &stack) != WOBBLE_OK) {
    state.SkipWithError(wobble_last_error());
    wobble_character_destroy(character);
    return;
  }
  std::vector<float> positions(s->positions.size()), normals(s->positions.size());
  std::size_t frame = 0;
  for (auto _ : state) {
    const wobble_frame input{static_cast<double>(frame) / 60.0, s->worlds[frame % wobble::bench::kScenePoses].data(),
                             static_cast<std::uint32_t>(s->parents.size()), nullptr};
    ++frame;
    if (wobble_stack_evaluate(stack, &input, positions.data(), 0, normals.data(), 0) != WOBBLE_OK) {
      state.SkipWithError(wobble_last_error());
      break;
    }
    benchmark::DoNotOptimize(positions.data());
  }
  state.counters["vertices"] = static_cast<double>(s->character.mesh.vertex_count());
  wobble_stack_destroy(stack);
  wobble_character_destroy(character);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::unique_ptr<Scene>> scenes;
  for (const std::string& file : bench_files()) {
    wobble::Character character = wobble::load_character(file);
    if (character.clips.empty()) {
      std::fprintf(stderr, "%s: no clip to play\n", file.c_str());
      return 1;
    }
    const std::string clip = character.find_clip("Walk") ? "Walk" : character.clips.at(0).name;
    scenes.push_back(std::make_unique<Scene>(std::move(character), clip));
    const std::string name = std::filesystem::path(file).filename().string();
    for (const char* stack : {"lbs,dynamic", "lbs,dynamic,deltamush"}) {
      benchmark::RegisterBenchmark(("BM_WebNative/" + name + "/" + stack).c_str(), frame_through_c_api,
                                   scenes.back().get(), stack)
          ->Unit(benchmark::kMicrosecond);
    }
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
