// Deformer descriptions: checks, help lines, keyframes and the settings of one deformer.
#include <wobble/parameters.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <wobble/error.hpp>
#include <wobble/parse.hpp>

namespace wobble {

const char* to_string(DeformerStage stage) {
  switch (stage) {
    case DeformerStage::Base: return "base";
    case DeformerStage::Effect: return "effect";
    case DeformerStage::Post: return "post";
  }
  return "?";
}

const char* to_string(ParameterType type) {
  switch (type) {
    case ParameterType::Number: return "number";
    case ParameterType::Integer: return "integer";
    case ParameterType::Boolean: return "boolean";
    case ParameterType::Choice: return "choice";
    case ParameterType::Text: return "text";
    case ParameterType::VertexArray: return "vertex_array";
    case ParameterType::Vector3: return "vector3";
    case ParameterType::JointTable: return "joint_table";
  }
  return "?";
}

const char* to_string(Lifetime lifetime) { return lifetime == Lifetime::Bind ? "bind" : "live"; }

double Keys::at(double time) const {
  if (points.empty()) return 0;
  if (!(time > points.front()[0])) return points.front()[1];
  if (time >= points.back()[0]) return points.back()[1];
  const auto next = std::upper_bound(points.begin(), points.end(), time,
                                     [](double t, const std::array<double, 2>& key) { return t < key[0]; });
  const auto& [t1, v1] = *next;
  const auto& [t0, v0] = *(next - 1);
  if (step) return v0;
  const double s = (time - t0) / (t1 - t0);
  return s == 0 ? v0 : v0 + s * (v1 - v0);
}

bool JointEntry::operator==(const JointEntry& other) const { return joint == other.joint && values == other.values; }

// ---------------------------------------------------------------------------------------------
// One parameter.

namespace {

std::string range_text(const ParameterDescription& d) {
  const bool low = std::isfinite(d.minimum), high = std::isfinite(d.maximum);
  const std::string open_low = d.minimum_exclusive ? "above " : "",
                    open_high = d.maximum_exclusive ? " (excluded)" : "";
  if (low && high) return open_low + d.bound_text(d.minimum) + " to " + d.bound_text(d.maximum) + open_high;
  if (low) return (d.minimum_exclusive ? "> " : ">= ") + d.bound_text(d.minimum);
  if (high) return (d.maximum_exclusive ? "< " : "<= ") + d.bound_text(d.maximum);
  return {};
}

// A number as people write it: a long decimal that is exactly n/k for a small k as the fraction
// ("1/240"), which parse_real reads back to the same double.
std::string number_text(double x) {
  const std::string decimal = format_real(x);
  if (decimal.size() <= 8) return decimal;
  for (int k = 2; k <= 1000; ++k) {
    const double n = std::round(x * k);
    if (std::abs(n) < 1e6 && n / k == x) return format_real(n) + "/" + std::to_string(k);
  }
  return decimal;
}

}  // namespace

std::string ParameterDescription::default_text() const {
  const ParameterValue& v = default_value;
  if (const double* x = std::get_if<double>(&v)) return number_text(*x);
  if (const std::int64_t* i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
  if (const bool* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
  if (const std::string* s = std::get_if<std::string>(&v)) return s->empty() ? "none" : *s;
  if (const VertexValues* a = std::get_if<VertexValues>(&v)) return a->attribute.empty() ? "none" : a->attribute;
  if (const auto* p = std::get_if<std::array<double, 3>>(&v)) {
    std::string text = "(";  // appended, not "(" + ...: GCC 12 warns falsely (-Wrestrict) on that form
    text += format_real((*p)[0]) + ", " + format_real((*p)[1]) + ", " + format_real((*p)[2]) + ")";
    return text;
  }
  if (optional) return "the global value";
  return {};
}

namespace {

const char* value_kind(const ParameterValue& value) {
  static constexpr const char* kinds[] = {"no value",           "a number", "an integer",    "a boolean", "a text",
                                          "a per-vertex array", "a vector", "a joint table", "keys"};
  return kinds[value.index()];
}

const char* expected_kind(ParameterType type) {
  switch (type) {
    case ParameterType::Number: return "a number";
    case ParameterType::Integer: return "an integer";
    case ParameterType::Boolean: return "true or false";
    case ParameterType::Choice:
    case ParameterType::Text: return "a text";
    case ParameterType::VertexArray: return "an array of numbers, one per vertex";
    case ParameterType::Vector3: return "[x, y, z]";
    case ParameterType::JointTable: return "an object {\"joint name\": {...}}";
  }
  return "?";
}

// An integer parameter's value out of its range, written whole ("10000000", not "1e+07").
void check_integer(const ParameterDescription& d, std::int64_t x, std::string_view what) {
  if (static_cast<double>(x) < d.minimum || static_cast<double>(x) > d.maximum)
    throw Error(std::string(what) + ": " + std::to_string(x) + " is out of range [" + d.bound_text(d.minimum) + ", " +
                d.bound_text(d.maximum) + "]");
}

void check_number(const ParameterDescription& d, double x, std::string_view what) {
  if (!std::isfinite(x)) throw Error(std::string(what) + ": " + format_real(x) + " is not a finite number");
  if ((d.minimum_exclusive && !(x > d.minimum)) || (d.maximum_exclusive && !(x < d.maximum))) {
    throw Error(std::string(what) + ": " + format_real(x) + " is out of range " + (d.minimum_exclusive ? "(" : "[") +
                format_real(d.minimum) + ", " + format_real(d.maximum) + (d.maximum_exclusive ? ")" : "]"));
  }
  check_range(x, what, d.minimum, d.maximum);
}

void check_keys(const ParameterDescription& d, const Keys& keys, std::string_view what) {
  if (d.type != ParameterType::Number || d.lifetime != Lifetime::Live) {
    throw Error(std::string(what) + ": keys are only for live numbers ('" + d.key + "' is a " +
                (d.type == ParameterType::Number ? "bind" : to_string(d.type)) + " parameter)");
  }
  if (keys.points.empty()) throw Error(std::string(what) + ": keys: at least one key is needed");
  for (std::size_t k = 0; k < keys.points.size(); ++k) {
    const std::string where = std::string(what) + ".keys[" + std::to_string(k) + "]";
    const double t = keys.points[k][0];
    if (!std::isfinite(t)) throw Error(where + ": the time is not a finite number");
    if (k > 0 && !(t > keys.points[k - 1][0])) throw Error(where + ": key times must increase");
    check_number(d, keys.points[k][1], where);
  }
}

void check_table(const ParameterDescription& d, const JointTable& table, std::string_view what) {
  for (std::size_t e = 0; e < table.size(); ++e) {
    const JointEntry& entry = table[e];
    const std::string where = std::string(what) + "." + entry.joint;
    if (entry.joint.empty()) throw Error(std::string(what) + ": a joint name is empty");
    for (std::size_t f = 0; f < e; ++f) {
      if (table[f].joint == entry.joint) throw Error(where + ": the joint is listed twice");
    }
    for (const NamedValue& nv : entry.values) {
      const ParameterDescription* field = d.field(nv.key);
      if (!field) {
        std::vector<std::string> keys;
        for (const ParameterDescription& f : d.fields) keys.push_back(f.key);
        throw Error(where + ": unknown key '" + nv.key + "'" + did_you_mean(nv.key, keys));
      }
      field->check(nv.value, where + "." + nv.key);
    }
  }
}

}  // namespace

std::string ParameterDescription::bound_text(double bound) const {
  if (type == ParameterType::Integer && std::abs(bound) < 9e15 && bound == std::floor(bound))
    return std::to_string(static_cast<std::int64_t>(bound));
  return format_real(bound);
}

std::string ParameterDescription::describe() const {
  std::vector<std::string> parts;
  if (!unit.empty()) parts.push_back(unit);
  if (!choices.empty()) {
    std::string list = "one of ";
    for (std::size_t i = 0; i < choices.size(); ++i) list += (i ? ", " : "") + choices[i];
    parts.push_back(list);
  }
  if (const std::string d = default_text(); !d.empty()) parts.push_back("default " + d);
  if (const std::string r = range_text(*this); !r.empty()) parts.push_back(r);
  parts.push_back(to_string(lifetime));
  std::string text = help + " (";
  for (std::size_t i = 0; i < parts.size(); ++i) text += (i ? "; " : "") + parts[i];
  return text + ")";
}

void ParameterDescription::check(const ParameterValue& value, std::string_view what) const {
  if (const Keys* keys = std::get_if<Keys>(&value)) return check_keys(*this, *keys, what);
  if (std::holds_alternative<std::monostate>(value) && optional) return;
  const auto wrong = [&] {
    throw Error(std::string(what) + ": expected " + expected_kind(type) + ", got " + value_kind(value));
  };
  switch (type) {
    case ParameterType::Number:
      if (!std::holds_alternative<double>(value)) wrong();
      return check_number(*this, std::get<double>(value), what);
    case ParameterType::Integer: {
      if (!std::holds_alternative<std::int64_t>(value)) wrong();
      return check_integer(*this, std::get<std::int64_t>(value), what);
    }
    case ParameterType::Boolean:
      if (!std::holds_alternative<bool>(value)) wrong();
      return;
    case ParameterType::Choice: {
      if (!std::holds_alternative<std::string>(value)) wrong();
      const std::string& text = std::get<std::string>(value);
      if (std::find(choices.begin(), choices.end(), text) != choices.end()) return;
      std::string list;
      for (const std::string& c : choices) list += (list.empty() ? "" : ", ") + c;
      throw Error(std::string(what) + ": '" + text + "' is not one of " + list + did_you_mean(text, choices));
    }
    case ParameterType::Text:
      if (!std::holds_alternative<std::string>(value)) wrong();
      return;
    case ParameterType::VertexArray: {
      if (!std::holds_alternative<VertexValues>(value)) wrong();
      const VertexValues& array = std::get<VertexValues>(value);
      if (!array.attribute.empty() && !attribute_allowed) {
        throw Error(std::string(what) + ": expected an array of numbers, one per vertex (not an attribute name)");
      }
      for (std::size_t i = 0; i < array.values.size(); ++i) {
        check_number(*this, array.values[i], std::string(what) + "[" + std::to_string(i) + "]");
      }
      return;
    }
    case ParameterType::Vector3: {
      if (!std::holds_alternative<std::array<double, 3>>(value)) wrong();
      const auto& v = std::get<std::array<double, 3>>(value);
      for (int i = 0; i < 3; ++i) check_number(*this, v[i], std::string(what) + "[" + std::to_string(i) + "]");
      return;
    }
    case ParameterType::JointTable:
      if (!std::holds_alternative<JointTable>(value)) wrong();
      return check_table(*this, std::get<JointTable>(value), what);
  }
}

const ParameterDescription* ParameterDescription::field(std::string_view key) const {
  for (const ParameterDescription& f : fields) {
    if (f.key == key) return &f;
  }
  return nullptr;
}

double ParameterDescription::slider_minimum() const {
  if (std::isfinite(soft_minimum)) return soft_minimum;
  return std::isfinite(minimum) ? minimum : 0.0;
}

double ParameterDescription::slider_maximum() const {
  if (std::isfinite(soft_maximum)) return soft_maximum;
  if (std::isfinite(maximum)) return maximum;
  const double* d = std::get_if<double>(&default_value);
  return d && *d > 0 ? 4 * *d : 1.0;
}

const ParameterDescription* DeformerDescription::find(std::string_view key) const {
  for (const ParameterDescription& p : parameters) {
    if (p.key == key) return &p;
  }
  return nullptr;
}

const ParameterDescription& DeformerDescription::at(std::string_view key, std::string_view where) const {
  if (const ParameterDescription* p = find(key)) return *p;
  std::vector<std::string> keys;
  for (const ParameterDescription& p : parameters) keys.push_back(p.key);
  std::string known;
  for (const std::string& k : keys) known += (known.empty() ? "" : ", ") + k;
  throw Error(std::string(where) + ": unknown parameter '" + std::string(key) + "' for deformer '" + name + "'" +
              did_you_mean(key, keys) + " (known: " + (known.empty() ? "none" : known) + ")");
}

std::string DeformerDescription::problems(const void* object) const {
  try {
    for (const ParameterDescription& p : parameters) p.check(p.get(object), "'" + p.key + "'");
  } catch (const Error& error) {
    return error.what();
  }
  return check_together ? check_together(object) : std::string();
}

const DeformerDescription* find_deformer(std::string_view name) {
  for (const DeformerDescription* d : deformer_descriptions()) {
    if (d->name == name) return d;
  }
  return nullptr;
}

const DeformerDescription& deformer_at(std::string_view name, std::string_view where) {
  if (const DeformerDescription* d = find_deformer(name)) return *d;
  std::vector<std::string> names;
  std::string known;
  for (const DeformerDescription* d : deformer_descriptions()) {
    names.push_back(d->name);
    known += (known.empty() ? "" : ", ") + d->name;
  }
  throw Error(std::string(where) + ": unknown deformer '" + std::string(name) + "'" + did_you_mean(name, names) +
              " (known: " + known + ")");
}

std::optional<FlagTarget> find_flag(std::string_view flag) {
  for (const DeformerDescription* d : deformer_descriptions()) {
    for (const ParameterDescription& p : d->parameters) {
      if (!p.flag.empty() && p.flag == flag) return FlagTarget{d, &p};
    }
  }
  return std::nullopt;
}

FlagTarget flag_target(std::string_view flag) {
  if (const std::optional<FlagTarget> target = find_flag(flag)) return *target;
  throw Error("--" + std::string(flag) + ": not a deformer parameter");
}

}  // namespace wobble
