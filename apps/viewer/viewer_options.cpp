#include "viewer_options.hpp"

#include <cctype>
#include <charconv>

#include <wobble/error.hpp>
#include <wobble/parameters.hpp>

#include "core/fail.hpp"

namespace wobble::viewer {
namespace {

template <typename T>
T parse_number(const std::string& option, const std::string& text) {
  T value{};
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size())
    fail_plain("wobble-viewer: {} expects a number, got '{}'", option, text);
  return value;
}

void parse_size(const std::string& text, int& width, int& height) {
  const auto x = text.find('x');
  if (x == std::string::npos) fail_plain("wobble-viewer: --size expects WIDTHxHEIGHT, got '{}'", text);
  width = parse_number<int>("--size", text.substr(0, x));
  height = parse_number<int>("--size", text.substr(x + 1));
  if (width < 16 || height < 16 || width > 8192 || height > 8192)
    fail_plain("wobble-viewer: --size {} is out of range (16 to 8192 pixels a side)", text);
}

}  // namespace

std::string viewer_usage() {
  return "usage: wobble-viewer [FILE] [--clip NAME|INDEX] [--deformer STACK] [--settings FILE] [--gpu]\n"
         "                     [--size WxH] [--no-ui] [--skeleton] [--no-loop] [--cylinder VERTICES]\n"
         "                     [--screenshot OUT.png [--frame N]] [--benchmark-frames N]\n"
         "  FILE            a character (.glb .gltf, and on the desktop anything wobble reads);\n"
         "                  default: the first bundled character (also: drag a file onto the window)\n"
         "  --deformer      stack, as for wobble bake (default lbs,dynamic)\n"
         "  --no-loop       play the clip once (default: loop it; a cycle loops in its periodic steady state)\n"
         "  --FLAG VALUE    any deformer parameter, as for wobble bake (--frequency 3; ?frequency=3 in the browser)\n"
         "  --screenshot    render N frames (default 60, 1/60 s of animation each), save a PNG, exit\n"
         "  --record OUT.pc2  render N frames (--frame), write the CPU path's positions as PC2, exit\n"
         "  --benchmark-frames N  render N frames, print the median frame time, exit\n"
         "  --cylinder N    the procedural cylinder with about N vertices instead of FILE\n" +
         physics_usage();
}

ViewerOptions parse_viewer_options(const std::vector<std::string>& arguments) {
  ViewerOptions options;
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    const std::string& a = arguments[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= arguments.size()) fail_plain("wobble-viewer: {} needs a value", a);
      return arguments[++i];
    };
    if (a == "--help" || a == "-h") options.help = true;
    else if (a == "--clip") options.clip = value();
    else if (a == "--deformer") options.deformer = value();
    else if (a == "--settings") options.settings = value();
    else if (a == "--gpu") options.gpu = true;
    else if (a == "--cpu") options.gpu = false;
    else if (a == "--size") parse_size(value(), options.width, options.height);
    else if (a == "--no-ui") options.ui = false;
    else if (a == "--skeleton") options.skeleton = true;
    else if (a == "--no-loop") options.loop = false;
    else if (a == "--screenshot") options.screenshot = value();
    else if (a == "--record") options.record = value();
    else if (a == "--frame") options.frame = parse_number<int>(a, value());
    else if (a == "--benchmark-frames") options.benchmark_frames = parse_number<int>(a, value());
    else if (a == "--cylinder") options.cylinder_vertices = parse_number<long>(a, value());
    else if (a == "--timer") options.timer_loop = true;
    else if (parse_physics_option(a, value, options.physics)) continue;
    else if (a.rfind("--", 0) == 0 && find_flag(a.substr(2))) options.parameters.emplace_back(a.substr(2), value());
    else if (a.rfind("--", 0) == 0) fail_plain("wobble-viewer: unknown option '{}' (see --help)", a);
    else if (options.file.empty()) options.file = a;
    else fail_plain("wobble-viewer: more than one file given ('{}' and '{}')", options.file.string(), a);
  }
  if (options.frame < 1) fail_plain("wobble-viewer: --frame must be at least 1");
  if (options.benchmark_frames < 0) fail_plain("wobble-viewer: --benchmark-frames must not be negative");
  if (options.cylinder_vertices < 0) fail_plain("wobble-viewer: --cylinder must not be negative");
  return options;
}

std::vector<std::string> arguments_from_query(const std::string& query) {
  auto decode = [](const std::string& s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (s[i] == '+') out += ' ';
      else if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
               std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
        out += static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16));
        i += 2;
      } else out += s[i];
    }
    return out;
  };
  std::vector<std::string> arguments;
  std::size_t begin = query.empty() || query[0] != '?' ? 0 : 1;
  while (begin < query.size()) {
    std::size_t end = query.find('&', begin);
    if (end == std::string::npos) end = query.size();
    const std::string item = query.substr(begin, end - begin);
    begin = end + 1;
    if (item.empty()) continue;
    const auto equals = item.find('=');
    arguments.push_back("--" + decode(item.substr(0, equals)));
    if (equals != std::string::npos) arguments.push_back(decode(item.substr(equals + 1)));
  }
  return arguments;
}

}  // namespace wobble::viewer
