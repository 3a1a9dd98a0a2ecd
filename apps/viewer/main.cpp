// wobble-viewer: the desktop program (GLFW window, Dear ImGui) and, compiled with Emscripten,
// the browser page's program (WebGL 2 canvas; options from the URL query).
#include <chrono>
#include <cstdio>
#include <memory>

#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <wobble/error.hpp>
#include <wobble/io/image.hpp>

#include "gl.hpp"
#include "soak_log.hpp"
#include "viewer.hpp"
#include "viewer_options.hpp"
#include "window.hpp"

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#endif

namespace wobble::viewer {
namespace {

using Clock = std::chrono::steady_clock;

// The default framebuffer's picture (before the swap), top row first.
RgbaImage read_framebuffer(int width, int height) {
  RgbaImage image(width, height);
  std::vector<std::uint8_t> rows(image.pixels.size());
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, rows.data());
  const std::size_t stride = 4 * static_cast<std::size_t>(width);
  for (int y = 0; y < height; ++y)
    std::copy_n(rows.data() + stride * static_cast<std::size_t>(height - 1 - y), stride,
                image.pixels.data() + stride * y);
  for (std::size_t i = 3; i < image.pixels.size(); i += 4) image.pixels[i] = 255;
  return image;
}

// Everything one running viewer owns, in construction order.
struct Application {
  ViewerOptions options;
  Window window;
  std::unique_ptr<Viewer> viewer;
  std::unique_ptr<SoakLog> soak;
  FrameStatistics benchmark{1u << 20}, benchmark_deform{1u << 20};
  Clock::time_point last = Clock::now();
  int frames = 0;
  bool done = false;

  explicit Application(const ViewerOptions& o) : options(o), window(o.width, o.height, "wobble-viewer") {
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGui::GetIO().IniFilename = nullptr;
    ImGui_ImplGlfw_InitForOpenGL(window.handle(), true);
#ifdef __EMSCRIPTEN__
    ImGui_ImplOpenGL3_Init("#version 300 es");
#else
    ImGui_ImplOpenGL3_Init("#version 330 core");
#endif
    viewer = std::make_unique<Viewer>(options);
    if (!options.record.empty()) viewer->start_recording();
    if (!options.soak_log.empty()) soak = std::make_unique<SoakLog>(options.soak_log);
  }
  ~Application() {
    viewer.reset();
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
  }

  // One frame; sets `done` when an automation run has finished.
  void frame() {
    glfwPollEvents();
    for (const std::string& file : window.take_dropped_files()) viewer->open(file);
    const auto start = Clock::now();
    double dt = options.fixed_step() ? 1.0 / 60.0 : std::min(std::chrono::duration<double>(start - last).count(), 0.1);
    last = start;
    if (options.physics.stop_frame > 0 && frames >= options.physics.stop_frame) {
      dt = 0;  // the picture holds still (browser tests)
      if (frames == options.physics.stop_frame) std::printf("wobble-viewer: stopped at frame %d\n", frames);
    }
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
    int width = 0, height = 0;
    window.framebuffer_size(width, height);
    viewer->frame(dt, width, height);
    ImGui::Render();
    if (options.ui) ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    ++frames;
    if (soak)
      soak->frame(std::chrono::duration<double, std::milli>(Clock::now() - start).count(), viewer->shown_positions());
    if (options.soak_seconds > 0 && soak && soak->seconds() >= options.soak_seconds) {
      done = true;
      return;
    }
    if (options.benchmark_frames > 0) {
      glFinish();  // the GPU's share of the frame counts too
      benchmark.add(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
      benchmark_deform.add(viewer->last_deform_ms());
      if (frames >= options.benchmark_frames) {
        report_benchmark();
        done = true;
        return;
      }
    }
    if (!options.record.empty() && frames >= options.frame) {
      viewer->write_recording(options.record, 60.0);
      std::printf("wobble-viewer: wrote %s (%d frames)\n", options.record.string().c_str(), frames);
      if (options.screenshot.empty()) {
        done = true;
        return;
      }
    }
    if (!options.screenshot.empty() && frames >= options.frame) {
      glFinish();
      write_png(options.screenshot, read_framebuffer(width, height));
      std::printf("wobble-viewer: wrote %s (frame %d, %dx%d)\n", options.screenshot.string().c_str(), frames, width,
                  height);
      done = true;
      return;
    }
    window.swap_buffers();
    viewer->frame_times().add(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  }

  void report_benchmark() const {
    const Character& c = viewer->character();
    std::printf(
        "wobble-viewer: %d frames of %s (%zu vertices), %s path: median frame %.2f ms (%.1f fps), median deform %.2f "
        "ms\n",
        frames, c.source.string().c_str(), c.mesh.vertex_count(), viewer->gpu_path() ? "GPU" : "CPU",
        benchmark.median(), 1000.0 / benchmark.median(), benchmark_deform.median());
    if (const std::string physics = viewer->physics_summary(); !physics.empty())
      std::printf("wobble-viewer: %s\n", physics.c_str());
  }
};

}  // namespace
}  // namespace wobble::viewer

#ifdef __EMSCRIPTEN__
namespace {
wobble::viewer::Application* web_application = nullptr;

void web_frame() {
  try {
    web_application->frame();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "wobble-viewer: error: %s\n", e.what());
    emscripten_cancel_main_loop();
  }
}
}  // namespace
#endif

int main(int argc, char** argv) {
  using namespace wobble::viewer;
  try {
    std::vector<std::string> arguments(argv + 1, argv + argc);
#ifdef __EMSCRIPTEN__
    arguments = arguments_from_query(emscripten_run_script_string("window.location.search"));
#endif
    const ViewerOptions options = parse_viewer_options(arguments);
    if (options.help) {
      std::printf("%s", viewer_usage().c_str());
      return 0;
    }
#ifdef __EMSCRIPTEN__
    web_application = new Application(options);
    // requestAnimationFrame normally; a timer (60 Hz) with ?timer, which headless browsers under
    // virtual time run reliably.
    emscripten_set_main_loop(web_frame, options.timer_loop ? 60 : 0, false);
    std::printf("wobble-viewer: running (%s)\n", options.timer_loop ? "timer loop" : "animation frames");
    return 0;
#else
    Application application(options);
    while (!application.done && !application.window.should_close()) application.frame();
    return 0;
#endif
  } catch (const std::exception& e) {
    std::fprintf(stderr, "wobble-viewer: error: %s\n", e.what());
    return 1;
  }
}
