#include "viewer_options.hpp"

#include <cctype>
#include <cstdint>
#include <optional>

#include <wobble/error.hpp>
#include <wobble/parse.hpp>
#include <wobble/parameters.hpp>

#include "core/fail.hpp"

namespace wobble::viewer {
namespace {

void parse_size(const std::string& text, int& width, int& height) {
  const auto x = text.find('x');
  if (x == std::string::npos) fail_plain("--size expects WIDTHxHEIGHT, got '{}'", text);
  width = static_cast<int>(parse_integer(text.substr(0, x), "--size width", 16, 8192));
  height = static_cast<int>(parse_integer(text.substr(x + 1), "--size height", 16, 8192));
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
         "  --cylinder N    the procedural cylinder with about N vertices instead of FILE\n"
         "  --soak-log FILE  a JSON line a second: frames, resident memory, median frame time, finite\n"
         "  --soak-seconds S  exit after S seconds of wall time (soak runs; scripts/soak.py)\n" +
         physics_usage();
}

ViewerOptions parse_viewer_options(const std::vector<std::string>& arguments) {
  ViewerOptions options;
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    // --name=value or --name value; switches take an optional =value (true, false, yes, no, 1, 0).
    std::string a = arguments[i];
    std::optional<std::string> attached;
    if (const auto equals = a.find('='); a.rfind("--", 0) == 0 && equals != std::string::npos) {
      attached = a.substr(equals + 1);
      a = a.substr(0, equals);
    }
    auto value = [&]() -> const std::string& {
      if (attached) return *attached;
      if (i + 1 >= arguments.size()) fail_plain("{} needs a value", a);
      return arguments[++i];
    };
    auto is_on = [&]() { return attached ? parse_boolean(*attached, a) : true; };
    // A deformer parameter's text; a boolean one alone (no value follows) is "true", as in wobble bake.
    auto deformer_value = [&]() -> std::string {
      const bool alone = !attached && (i + 1 >= arguments.size() || arguments[i + 1].rfind("--", 0) == 0);
      if (alone && find_flag(a.substr(2))->parameter->type == ParameterType::Boolean) return "true";
      return value();
    };
    auto integer = [&](std::int64_t low, std::int64_t high) {
      return static_cast<int>(parse_integer(value(), a, low, high));
    };
    if (a == "--help" || a == "-h")
      options.help = is_on();
    else if (a == "--clip")
      options.clip = value();
    else if (a == "--deformer")
      options.deformer = value();
    else if (a == "--settings")
      options.settings = value();
    else if (a == "--gpu")
      options.gpu = is_on();
    else if (a == "--cpu")
      options.gpu = !is_on();
    else if (a == "--size")
      parse_size(value(), options.width, options.height);
    else if (a == "--no-ui")
      options.ui = !is_on();
    else if (a == "--skeleton")
      options.skeleton = is_on();
    else if (a == "--no-loop")
      options.loop = !is_on();
    else if (a == "--screenshot")
      options.screenshot = value();
    else if (a == "--record")
      options.record = value();
    else if (a == "--frame")
      options.frame = integer(1, 1'000'000);
    else if (a == "--benchmark-frames")
      options.benchmark_frames = integer(0, 1'000'000);
    else if (a == "--soak-log")
      options.soak_log = value();
    else if (a == "--soak-seconds")
      options.soak_seconds = parse_real(value(), a, 0, 1e7);
    else if (a == "--cylinder")
      options.cylinder_vertices = integer(0, 10'000'000);
    else if (a == "--timer")
      options.timer_loop = is_on();
    else if (parse_physics_option(a, value, is_on, options.physics))
      continue;
    else if (a.rfind("--", 0) == 0 && find_flag(a.substr(2)))
      options.parameters.emplace_back(a.substr(2), deformer_value());
    else if (a.rfind("--", 0) == 0)
      fail_plain("unknown option '{}' (see --help)", a);
    else if (options.file.empty())
      options.file = a;
    else
      fail_plain("more than one file given ('{}' and '{}')", options.file.string(), a);
  }
  return options;
}

std::vector<std::string> arguments_from_query(const std::string& query) {
  auto decode = [](const std::string& s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (s[i] == '+')
        out += ' ';
      else if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
               std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
        out += static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16));
        i += 2;
      } else
        out += s[i];
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
    // key=value stays one argument (--key=value), so that ?gpu=0 is the switch turned off.
    const auto equals = item.find('=');
    // Appended, not "=" + ...: GCC 12 warns falsely (-Wrestrict) on that form.
    std::string argument = "--";
    argument += decode(item.substr(0, equals));
    if (equals != std::string::npos) {
      argument += '=';
      argument += decode(item.substr(equals + 1));
    }
    arguments.push_back(argument);
  }
  return arguments;
}

}  // namespace wobble::viewer
