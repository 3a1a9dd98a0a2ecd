#pragma once
// Deformer parameters, declared once. Each deformer describes its parameters next to its code
// (key, flag, type, unit, default, range or choices, help, lifetime); the settings file, the
// command-line flags and their help, the viewer's widgets, the Python keyword checks, the Blender
// properties, the C API's setters and docs/parameters.md all derive from those descriptions.
//
//   lifetime  bind: changes what the deformer precomputes (a rebind follows a change);
//             live: may change between any two frames, the deformer keeps its state.
//   keys      any live number may be given as keyframes instead of a constant:
//             {"keys": [[t0, v0], [t1, v1], ...], "interpolation": "linear" | "step"}, t in
//             seconds of clip time; constant before the first key and after the last.
//
// Values are validated when they are set (type, range, choices), never per frame.
#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <typeindex>
#include <variant>
#include <vector>

namespace wobble {

enum class DeformerStage { Base, Effect, Post };
enum class ParameterType { Number, Integer, Boolean, Choice, Text, VertexArray, Vector3, JointTable };
enum class Lifetime { Bind, Live };

const char* to_string(DeformerStage stage);  // "base", "effect", "post"
const char* to_string(ParameterType type);   // "number", "integer", ..., "joint_table"
const char* to_string(Lifetime lifetime);    // "bind", "live"

// Keyframes of a live number: piecewise linear (or step) in clip time, held beyond the ends.
struct Keys {
  std::vector<std::array<double, 2>> points;  // (time s, value), times strictly increasing
  bool step = false;                          // true: each key's value holds until the next key
  double at(double time) const;
  bool operator==(const Keys&) const = default;
};

// A per-vertex array (bend weights, masks): explicit values, or the name of a per-vertex
// attribute of the mesh (empty values and empty name: none).
struct VertexValues {
  std::vector<float> values;
  std::string attribute;
  bool operator==(const VertexValues&) const = default;
};

struct JointEntry;
// Per-joint overrides: joint name -> the nested parameters that are set for it (in order).
using JointTable = std::vector<JointEntry>;

// A parameter's value as the settings file and the front ends exchange it.
// std::monostate: no value (an optional per-joint field left to the global value).
using ParameterValue = std::variant<std::monostate, double, std::int64_t, bool, std::string, VertexValues,
                                    std::array<double, 3>, JointTable, Keys>;

struct NamedValue;
struct JointEntry {
  std::string joint;
  std::vector<NamedValue> values;  // nested keys that are set, in the order given
  bool operator==(const JointEntry&) const;
};
struct NamedValue {
  std::string key;
  ParameterValue value;
  bool operator==(const NamedValue&) const = default;
};

// One parameter. `get` and `set` reach the field of the deformer's own parameters struct (type
// erased: the struct is the one named by DeformerDescription::parameters_type); set() receives
// a value already checked against this description.
struct ParameterDescription {
  std::string key;   // settings key ("frequency"); nested keys for joint tables
  std::string flag;  // command-line flag without dashes ("frequency"); empty: none
  ParameterType type = ParameterType::Number;
  std::string unit;  // "Hz", "s", "degrees", "character sizes/s", ... (empty: none)
  std::string help;  // one line, without default, range or unit
  Lifetime lifetime = Lifetime::Live;
  double minimum = -std::numeric_limits<double>::infinity();  // allowed range, inclusive
  double maximum = std::numeric_limits<double>::infinity();
  bool minimum_exclusive = false;  // true: the range is open at that end
  bool maximum_exclusive = false;
  double soft_minimum = std::numeric_limits<double>::quiet_NaN();  // slider range (NaN: the allowed range)
  double soft_maximum = std::numeric_limits<double>::quiet_NaN();
  std::vector<std::string> choices;          // Choice: the accepted texts
  bool optional = false;                     // a joint field that may be left unset (the global value)
  bool attribute_allowed = false;            // VertexArray: may name a per-vertex attribute instead
  std::vector<ParameterDescription> fields;  // JointTable: the description of one joint's entry
  ParameterValue default_value;              // read from a default-constructed struct
  std::function<ParameterValue(const void* parameters)> get;
  std::function<void(void* parameters, const ParameterValue& value)> set;

  // "oscillation frequency f (Hz; default 2.5; 0 to 30; live)": the line --help and tooltips show.
  std::string describe() const;
  // A range bound as people write it: an integer parameter's whole ("10000000", not "1e+07").
  std::string bound_text(double bound) const;
  // The default as people write it ("2.5", "1/240", "uniform", "none", "the global value").
  std::string default_text() const;
  // Checks a value for this parameter; throws Error("WHAT: ...") naming the problem.
  void check(const ParameterValue& value, std::string_view what) const;
  // JointTable: the field of one joint's entry named `key`, or null.
  const ParameterDescription* field(std::string_view key) const;
  // The slider range: the soft range, else the allowed range where finite.
  double slider_minimum() const;
  double slider_maximum() const;
};

class Deformer;
class DeformerSettings;

struct DeformerDescription {
  std::string name;
  DeformerStage stage = DeformerStage::Effect;
  std::string summary;
  std::vector<ParameterDescription> parameters;
  // Stack properties (see stack.hpp): the output is a linear blend of the joints' skinning
  // matrices applied to the rest mesh (plain LBS); the deformer can fold such an input into
  // its bind (Delta Mush).
  bool linear_blend_output = false;
  bool folds_linear_blend_input = false;

  // The parameters struct, type erased: its type, a default-constructed one, a copy.
  std::type_index parameters_type = typeid(void);
  std::function<std::shared_ptr<void>()> make_parameters;
  std::function<std::shared_ptr<void>(const void*)> copy_parameters;
  // Checks that span several parameters (empty: fine), after each has passed its own check.
  std::function<std::string(const void*)> check_together;
  std::function<std::unique_ptr<Deformer>(const DeformerSettings&)> create;

  const ParameterDescription* find(std::string_view key) const;
  // The first problem of a parameters struct of this deformer ("'step': -1 is out of range ..."),
  // or empty: what the structs' validate() functions return.
  std::string problems(const void* parameters) const;
  // Throws Error("WHERE: unknown parameter 'K' (did you mean 'X'?)") unless `key` exists.
  const ParameterDescription& at(std::string_view key, std::string_view where) const;
};

// Every deformer wobble knows, in a fixed order (registry.cpp).
std::span<const DeformerDescription* const> deformer_descriptions();
const DeformerDescription* find_deformer(std::string_view name);
// Throws Error("WHERE: unknown deformer 'N' (known: ...; did you mean 'X'?)").
const DeformerDescription& deformer_at(std::string_view name, std::string_view where);

// A key of a live number whose value follows keyframes; `joint` set for a joint table's field.
struct KeyedParameter {
  std::string key;
  std::string joint;
  std::string field;
  Keys keys;
  bool operator==(const KeyedParameter&) const = default;
};

// The settings of one deformer: its typed parameters struct, checked on every set, plus the
// keyframed live numbers. Copies are deep.
class DeformerSettings {
 public:
  explicit DeformerSettings(const DeformerDescription& description);
  DeformerSettings(const DeformerSettings& other);
  DeformerSettings& operator=(const DeformerSettings& other);
  DeformerSettings(DeformerSettings&&) noexcept = default;
  DeformerSettings& operator=(DeformerSettings&&) noexcept = default;

  const DeformerDescription& description() const { return *description_; }
  // Sets one parameter; `where` names the source in errors ("settings.json: dynamic.frequency",
  // "--frequency"). Keys are accepted for live numbers, and for a joint table's live numbers.
  void set(std::string_view key, const ParameterValue& value, std::string_view where);
  // The value (for a keyed number: its value at the time last given to advance_to).
  ParameterValue get(std::string_view key) const;
  // The value as given: Keys for a keyed number, a joint table with its keyed fields as Keys.
  ParameterValue given(std::string_view key) const;
  // The keyframed parameters, and the keys of one (null when it is constant).
  const std::vector<KeyedParameter>& keyed() const { return keyed_; }
  const Keys* keys(std::string_view key) const;
  // Puts every keyed number at its value at `time`; true when any value changed.
  bool advance_to(double time);
  // True when a bind parameter differs (rebind needed); live ones may differ.
  bool bind_differs(const DeformerSettings& other) const;
  // Keys that differ from the default (or are keyed), in description order.
  std::vector<std::string> changed_keys() const;
  bool operator==(const DeformerSettings& other) const;

  // The typed struct (throws std::logic_error for another type).
  template <typename Parameters>
  const Parameters& as() const {
    check_type(typeid(Parameters));
    return *static_cast<const Parameters*>(parameters_.get());
  }

 private:
  void check_type(std::type_index type) const;
  const DeformerDescription* description_;
  std::shared_ptr<void> parameters_;
  std::vector<KeyedParameter> keyed_;
};

// A parameter reached by its command-line flag, over all deformers.
struct FlagTarget {
  const DeformerDescription* deformer;
  const ParameterDescription* parameter;
};
std::optional<FlagTarget> find_flag(std::string_view flag);
// find_flag's target, or an Error "--FLAG: not a deformer parameter".
FlagTarget flag_target(std::string_view flag);

// The settings of every deformer, by name (a deformer not mentioned has its defaults). The JSON
// form is the `--settings` file: {"dynamic": {"frequency": 2}, "deltamush": {...}}.
class StackSettings {
 public:
  // Parses a settings file's text; errors name `source` and the key path
  // ("settings.json: dynamic.frequency: expected a number, got \"2\"").
  static StackSettings from_json(std::string_view text, std::string_view source);
  static StackSettings from_file(const std::string& path);
  // The JSON text: only what differs from the defaults, keys in description order.
  std::string to_json(int indent = 2) const;

  DeformerSettings& section(std::string_view deformer);  // created with defaults on first use
  const DeformerSettings* find(std::string_view deformer) const;
  // The section, or the defaults when there is none.
  DeformerSettings get(std::string_view deformer) const;
  // Sets from a command-line flag's text (the flag names the deformer and the parameter).
  void set_flag(std::string_view flag, std::string_view text);
  // The same for a flag already looked up with find_flag.
  void set_flag(std::string_view flag, const FlagTarget& target, std::string_view text);
  // Merges `other` over this: its changed keys replace ours.
  void merge(const StackSettings& other);
  std::vector<std::string> deformers() const;  // names with a section, in registry order
  bool operator==(const StackSettings& other) const = default;

 private:
  std::map<std::string, DeformerSettings, std::less<>> sections_;
};

// Reads a command-line value for a parameter: numbers whole (parse.hpp), booleans from the
// fixed set, choices exactly, JSON for arrays, tables and keys ('{"keys": ...}'); `what` is the
// flag ("--frequency").
ParameterValue parse_parameter_text(const ParameterDescription& parameter, std::string_view text,
                                    std::string_view what);

// One value as JSON text, both ways (Python, the C API): checked as in a settings file.
ParameterValue parameter_from_json(const ParameterDescription& parameter, std::string_view json, std::string_view what);
std::string parameter_to_json(const ParameterValue& value);

// Every deformer with its stage and parameters, as JSON (`wobble deformers --json`, Python's
// wobble.deformers()), and as the Markdown of docs/parameters.md.
std::string deformer_descriptions_json(int indent = 2);
std::string deformer_descriptions_markdown();

}  // namespace wobble
