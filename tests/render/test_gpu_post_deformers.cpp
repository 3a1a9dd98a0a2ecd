// GPU Delta Mush and Direct Delta Mush (the renderer's post-deformer kernels, render/
// gpu_kernel.hpp) against the CPU deformer stack, on both kernel backends: compute shaders
// (OpenGL 4.3, Mesa llvmpipe has 4.5) and transform feedback (the WebGL 2 path).
#include <gtest/gtest.h>

#include <cstdio>
#include <random>

#include <nlohmann/json.hpp>

#include <wobble/offline/bake.hpp>
#include <wobble/deformer.hpp>
#include <wobble/direct_delta_mush.hpp>
#include <wobble/io/files.hpp>
#include <wobble/render/gpu_skinning.hpp>
#include <wobble/render/offscreen.hpp>
#include <wobble/render/renderer.hpp>

#include "render/data_texture.hpp"
#include "render/gpu_kernel.hpp"
#include "render/kernel_shaders.hpp"
#include "render_test_context.hpp"
#include "test_util.hpp"

namespace wobble::test {
namespace {

const Character& clonk() {
  static const Character character = load_character(bundled_asset("clonk.glb"));
  return character;
}

struct Parity {
  double gpu_vs_cpu = 0;  // max |GPU - CPU(stack)|
  double effect = 0;      // max |CPU(stack) - CPU(lbs)|: the post-deformer really acts
  std::string kernels;    // what ran them
};

// Plays the Walk clip at 30 fps through the GPU path and the CPU stack; compares at `checked` frames.
Parity compare(const std::string& stack_text, const nlohmann::json& settings_json, render::GpuKernels kernels,
               const std::vector<std::size_t>& checked = {3, 12, 20}) {
  require_gl();
  const Character& c = clonk();
  const Clip& clip = c.clips[c.require_clip("Walk")];
  const StackSettings settings = StackSettings::from_json(settings_json.dump(), "test");
  const StackDescription stack = StackDescription::parse(stack_text);
  DeformerStack cpu(stack, settings);
  cpu.bind(c);
  DeformerStack lbs = DeformerStack::parse("lbs");
  lbs.bind(c);
  render::Renderer renderer;
  renderer.set_gpu_kernels(kernels);
  renderer.set_mesh(c.mesh);
  render::GpuSkinning gpu;
  gpu.bind(renderer, c, stack, settings);
  Parity result;
  result.kernels = renderer.gpu_kernels_in_use();
  Pose pose;
  std::vector<Vec3f> positions, normals, base, base_normals;
  const std::vector<double> times = frame_times(clip.start(), clip.start() + 0.7, 30);
  for (std::size_t k = 0; k < times.size(); ++k) {
    evaluate_pose(c.rig, &clip, static_cast<float>(times[k]), pose);
    const FrameInput frame{c, pose, times[k], clip_sampler(c.rig, clip)};
    cpu.evaluate(frame, positions, normals);
    gpu.update(renderer, pose, times[k], frame.pose_at);
    if (std::find(checked.begin(), checked.end(), k) == checked.end()) continue;
    lbs.evaluate(frame, base, base_normals);
    const std::vector<Vec3f> on_gpu = renderer.gpu_positions();
    EXPECT_EQ(on_gpu.size(), positions.size());
    for (std::size_t v = 0; v < on_gpu.size() && v < positions.size(); ++v) {
      result.gpu_vs_cpu = std::max(result.gpu_vs_cpu, double((on_gpu[v] - positions[v]).norm()));
      result.effect = std::max(result.effect, double((positions[v] - base[v]).norm()));
    }
  }
  return result;
}

void expect_parity(const std::string& stack, const nlohmann::json& settings, render::GpuKernels kernels) {
  const Parity p = compare(stack, settings, kernels);
  const double size = clonk().mesh.size();
  std::printf("%s %s (%s): GPU - CPU max %.3g of the size, effect %.3g of the size\n", stack.c_str(),
              settings.dump().c_str(), p.kernels.c_str(), p.gpu_vs_cpu / size, p.effect / size);
  EXPECT_NE(p.kernels, "vertex shader");
  EXPECT_GT(p.effect, 1e-3 * size) << "the post-deformer must move vertices for the parity to mean anything";
  EXPECT_LE(p.gpu_vs_cpu, 1e-4 * size) << stack << ": GPU deviates by " << p.gpu_vs_cpu / size << " of the size";
}

constexpr render::GpuKernels kBest = render::GpuKernels::Automatic;
constexpr render::GpuKernels kFeedback = render::GpuKernels::TransformFeedback;

TEST(GpuPostDeformers, BestKernelsAreComputeShadersOnOpenGl43) {
  require_gl();
  const Parity p = compare("lbs,deltamush", nlohmann::json::object(), kBest, {});
  EXPECT_EQ(p.kernels, epoxy_gl_version() >= 43 ? "compute shaders" : "transform feedback");
  EXPECT_EQ(compare("lbs,deltamush", nlohmann::json::object(), kFeedback, {}).kernels, "transform feedback");
}

TEST(GpuPostDeformers, DeltaMushMatchesCpu) {
  for (auto kernels : {kBest, kFeedback}) expect_parity("lbs,deltamush", nlohmann::json::object(), kernels);
}

TEST(GpuPostDeformers, DeltaMushAfterDynamicSkinningMatchesCpu) {
  const nlohmann::json settings = {{"dynamic", {{"frequency", 3}, {"amplitude", 0.6}, {"drag", 0.2}}},
                                   {"deltamush", {{"iterations", 6}, {"smoothing", "cotangent"}}}};
  for (auto kernels : {kBest, kFeedback}) expect_parity("lbs,dynamic,deltamush", settings, kernels);
}

TEST(GpuPostDeformers, DeltaMushScaleAndSmoothOnlyMatchCpu) {
  expect_parity("lbs,deltamush", {{"deltamush", {{"scale", 0.5}, {"step", 0.3}}}}, kBest);
  expect_parity("lbs,deltamush", {{"deltamush", {{"smooth_only", true}, {"iterations", 4}}}}, kFeedback);
}

TEST(GpuPostDeformers, DirectDeltaMushEveryVariantMatchesCpu) {
  for (const char* variant : {"v0", "v3"}) {
    for (auto kernels : {kBest, kFeedback}) expect_parity("lbs,ddm", {{"ddm", {{"variant", variant}}}}, kernels);
  }
  for (const char* variant : {"v1", "v2"}) expect_parity("lbs,ddm", {{"ddm", {{"variant", variant}}}}, kBest);
}

TEST(GpuPostDeformers, LiveScaleChangeKeepsParity) {
  require_gl();
  const Character& c = clonk();
  const Clip& clip = c.clips[c.require_clip("Walk")];
  StackSettings settings;
  const StackDescription stack = StackDescription::parse("lbs,deltamush");
  render::Renderer renderer;
  renderer.set_mesh(c.mesh);
  render::GpuSkinning gpu;
  gpu.bind(renderer, c, stack, settings);
  settings.set_flag("mush-scale", "0.25");
  gpu.update_settings(settings);
  DeformerStack cpu(stack, settings);
  cpu.bind(c);
  Pose pose;
  const double t = clip.start() + 0.4;
  evaluate_pose(c.rig, &clip, static_cast<float>(t), pose);
  std::vector<Vec3f> positions, normals;
  cpu.evaluate(FrameInput{c, pose, t, {}}, positions, normals);
  gpu.update(renderer, pose, t, {});
  const std::vector<Vec3f> on_gpu = renderer.gpu_positions();
  double worst = 0;
  for (std::size_t v = 0; v < on_gpu.size(); ++v) worst = std::max(worst, double((on_gpu[v] - positions[v]).norm()));
  EXPECT_LE(worst, 1e-4 * c.mesh.size());
}

TEST(GpuPostDeformers, BlenderModeIsRefusedWithTheReason) {
  const StackSettings settings = StackSettings::from_json(R"({"deltamush": {"mode": "blender"}})", "test");
  const std::string reason =
      render::GpuSkinning::unsupported_reason(StackDescription::parse("lbs,deltamush"), settings);
  EXPECT_NE(reason.find("'blender'"), std::string::npos) << reason;
  EXPECT_FALSE(render::GpuSkinning::supports(StackDescription::parse("lbs,dynamic,ddm")));
  EXPECT_FALSE(render::GpuSkinning::supports(StackDescription::parse("dqs,deltamush")));
  EXPECT_TRUE(render::GpuSkinning::supports(StackDescription::parse("lbs,dynamic,deltamush")));
}

// The picture (positions and the kernels' normals, lit) equals the CPU path's.
TEST(GpuPostDeformers, PictureEqualsTheCpuPath) {
  require_gl();
  const Character& c = clonk();
  const Clip& clip = c.clips[c.require_clip("Walk")];
  const double t = clip.start() + 0.5;
  Pose pose;
  evaluate_pose(c.rig, &clip, static_cast<float>(t), pose);
  render::OrbitCamera camera;
  camera.frame(c.mesh.bounds(), 4.0f / 3.0f);
  for (const char* stack_text : {"lbs,deltamush", "lbs,ddm"}) {
    const StackDescription stack = StackDescription::parse(stack_text);
    DeformerStack cpu(stack, StackSettings{});
    cpu.bind(c);
    std::vector<Vec3f> positions, normals;
    cpu.evaluate(FrameInput{c, pose, t, {}}, positions, normals);
    render::Renderer renderer;
    renderer.set_mesh(c.mesh);
    render::OffscreenTarget target(320, 240);
    renderer.set_positions(positions, normals);
    target.bind();
    renderer.draw(camera, 320, 240);
    const RgbaImage on_cpu = target.read();
    render::GpuSkinning gpu;
    gpu.bind(renderer, c, stack, StackSettings{});
    gpu.update(renderer, pose, t, {});
    target.bind();
    renderer.draw(camera, 320, 240);
    const RgbaImage on_gpu = target.read();
    const std::size_t covered = non_background_pixels(on_cpu), differing = differing_pixels(on_cpu, on_gpu, 12);
    std::printf("%s: %zu pixels of the character, %zu differ between the paths\n", stack_text, covered, differing);
    EXPECT_GT(covered, 320u * 240u / 20);
    EXPECT_LT(differing, covered / 200) << stack_text;
  }
}

// The kernels' rotation fit against the CPU's nearest_rotation(): rotations times a stretch,
// reflections and rank-2 matrices (those go to Horn's eigenvector), on both backends.
TEST(GpuPostDeformers, RotationFitMatchesTheCpuOnReflectionsAndSingularMatrices) {
  require_gl();
  std::mt19937 random(7);
  std::normal_distribution<float> normal;
  std::vector<Mat3f> matrices;
  for (int k = 0; k < 96; ++k) {
    Mat3f m;
    for (int e = 0; e < 9; ++e) m(e / 3, e % 3) = normal(random);
    if (k % 3 == 1) m.col(2) = 0.3f * m.col(0) - 0.7f * m.col(1);  // rank 2
    if (k % 3 == 2 && m.determinant() > 0) m.col(0) = -m.col(0);   // a reflection
    if (k % 3 == 0 && m.determinant() < 0) m.col(0) = -m.col(0);   // det > 0: Newton
    matrices.push_back(m);
  }
  std::vector<float> table;  // per matrix 3 texels (columns)
  for (const Mat3f& m : matrices) {
    for (int col = 0; col < 3; ++col) table.insert(table.end(), {m(0, col), m(1, col), m(2, col), 0.0f});
  }
  const std::string source = std::string(render::shaders::kRotationFunctions) + R"GLSL(
uniform sampler2D u_m;
vec4 kernel(int i) {
  int m = i / 3;
  mat3 a = mat3(fetch(u_m, 3 * m).xyz, fetch(u_m, 3 * m + 1).xyz, fetch(u_m, 3 * m + 2).xyz);
  return vec4(nearest_rotation(a)[i % 3], 0.0);
}
)GLSL";
  for (auto backend : {render::best_kernel_backend(), render::KernelBackend::TransformFeedback}) {
    render::KernelContext context(backend);
    GLuint texture = 0;
    render::upload_data_texture(texture, table.data(), table.size() / 4, 4);
    render::Kernel kernel(context, "rotation test", "", source.c_str(), {"u_m"}, {});
    render::FrameTable out;
    out.allocate(3 * matrices.size(), backend, false);
    const GLuint tables[] = {texture};
    kernel.run(context, tables, {}, out);
    const std::vector<float> columns = out.read_xyz();
    double worst[3] = {0, 0, 0};
    for (std::size_t k = 0; k < matrices.size(); ++k) {
      const Mat3f expected = nearest_rotation(matrices[k]);
      Mat3f got;
      for (int col = 0; col < 3; ++col) got.col(col) = Vec3f(&columns[9 * k + 3 * col]);
      worst[k % 3] = std::max(worst[k % 3], double((got - expected).norm()));
      EXPECT_NEAR(got.determinant(), 1.0f, 1e-4f);
    }
    std::printf("%s: rotation fit - CPU max %.2g (det > 0), %.2g (rank 2), %.2g (reflections)\n",
                render::to_string(backend), worst[0], worst[1], worst[2]);
    EXPECT_LE(worst[0], 1e-5);
    EXPECT_LE(worst[1], 1e-4);
    EXPECT_LE(worst[2], 1e-4);
    glDeleteTextures(1, &texture);
  }
}

}  // namespace
}  // namespace wobble::test
