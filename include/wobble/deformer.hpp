#pragma once
// Deformers and the deformer stack. Every deformer reads positions and writes positions; a
// stack applies them in order: one base skinning first (lbs, dqs, ...), then additive effects,
// then post-deformers. Stateful deformers own their state and restart on reset().
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <wobble/character.hpp>
#include <wobble/pose.hpp>

namespace wobble {

class ThreadPool;

// Everything a deformer may read for one frame.
struct FrameInput {
  const Character& character;
  const Pose& pose;          // the pose of this frame (local, world, skinning matrices)
  double time = 0.0;         // animation time, seconds
  // Evaluates the animation at any other time (for deformers that sample at their own rate,
  // or delay joints). Empty when the motion does not come from a clip (interactive posing).
  std::function<void(double time, Pose& pose)> pose_at;
  ThreadPool* pool = nullptr;  // null: single-threaded
};

enum class DeformerStage { Base, Effect, Post };

class Deformer {
 public:
  virtual ~Deformer() = default;
  virtual std::string_view name() const = 0;
  // Caches what depends only on the rest state; called once, before the first evaluate().
  virtual void bind(const Character& character) {}
  // Before bind(), the stack names the deformer that runs directly before this one (null: none).
  virtual void set_upstream(const Deformer* upstream) {}
  // Forgets history (a jump in time: scrubbing back, a looping clip). Next frame starts afresh.
  virtual void reset() {}
  // Base deformers overwrite positions and normals from the rest mesh; the others modify them.
  // normals may be empty (then they are neither read nor written).
  virtual void evaluate(const FrameInput& frame, std::span<Vec3f> positions, std::span<Vec3f> normals) = 0;
};

// One parameter a deformer accepts: a key in its settings section and a command-line flag.
struct ParameterSpec {
  enum class Type { Number, Integer, Boolean, Text };
  std::string flag;   // command-line flag without dashes, unique over all deformers
  std::string key;    // key in the deformer's section of the settings JSON
  Type type = Type::Number;
  std::string help;   // one line, with the unit (the default and choices go below, not here)
  std::string default_value = {};         // as typed on the command line ("10", "1/240", "uniform"); empty: none
  std::vector<std::string> choices = {};  // a Text parameter's accepted values, when they are a fixed set
};
// The help line with the choices and the default, as the command line and tooltips show it.
std::string describe(const ParameterSpec& spec);
// The default of a Number or Integer parameter as a number ("1/240" included); NaN when it has none.
double default_number(const ParameterSpec& spec);

struct DeformerType {
  std::string name;
  DeformerStage stage;
  std::string summary;
  std::vector<ParameterSpec> parameters;
  // Creates the deformer from its settings section (an object; missing keys take defaults).
  std::function<std::unique_ptr<Deformer>(const nlohmann::json& section)> create;
};

// Every deformer wobble knows, in a fixed order. New deformers add themselves in registry.cpp.
std::span<const DeformerType> deformer_types();
const DeformerType* find_deformer_type(std::string_view name);

class DeformerStack {
 public:
  // Parses "lbs,dqs,..." with settings {"<deformer>": {...}}. Throws Error for an unknown
  // deformer, an unknown settings key, a settings section for a deformer not in the stack, or a
  // base deformer that is not first.
  static DeformerStack parse(std::string_view spec, const nlohmann::json& settings = nlohmann::json::object());

  void bind(const Character& character);
  void reset();
  // Runs the stack: positions and normals are resized to the mesh and filled. Without a base
  // deformer they start from the rest mesh.
  void evaluate(const FrameInput& frame, std::vector<Vec3f>& positions, std::vector<Vec3f>& normals);
  // The same into the caller's buffers (an engine's, the C API's): positions has the mesh's
  // vertex count; normals too, or is empty (then normals are neither read nor written).
  void evaluate(const FrameInput& frame, std::span<Vec3f> positions, std::span<Vec3f> normals);

  std::string spec() const;
  const std::vector<std::unique_ptr<Deformer>>& deformers() const { return deformers_; }

 private:
  std::vector<std::unique_ptr<Deformer>> deformers_;
  bool has_base_ = false;
  const Character* bound_ = nullptr;
};

}  // namespace wobble
