#pragma once
// Building a deformer's description next to its parameters struct (private to the library):
//
//   describe::Fields<DynamicSkinningParameters> f;
//   f.number("frequency", [](auto& p) -> auto& { return p.frequency; })
//       .unit("Hz").range(0, 30).help("oscillation frequency f");
//   DeformerDescription d = f.deformer("dynamic", DeformerStage::Effect, "summary", make);
//
// The accessor is the one place that names the struct's field; the default is read from a
// default-constructed struct, so it is declared once, where the field is.
#include <cmath>
#include <memory>
#include <stdexcept>
#include <utility>

#include <wobble/math.hpp>
#include <wobble/parameters.hpp>

namespace wobble::describe {

// The parameters of a deformer that has none.
struct NoParameters {};

// Field type <-> ParameterValue.
template <typename T>
struct Convert;
template <>
struct Convert<double> {
  static ParameterValue to(double v) { return v; }
  static double from(const ParameterValue& v) { return std::get<double>(v); }
};
template <>
struct Convert<float> {
  static ParameterValue to(float v) { return static_cast<double>(v); }
  static float from(const ParameterValue& v) { return static_cast<float>(std::get<double>(v)); }
};
template <>
struct Convert<int> {
  static ParameterValue to(int v) { return static_cast<std::int64_t>(v); }
  static int from(const ParameterValue& v) { return static_cast<int>(std::get<std::int64_t>(v)); }
};
template <>
struct Convert<bool> {
  static ParameterValue to(bool v) { return v; }
  static bool from(const ParameterValue& v) { return std::get<bool>(v); }
};
template <>
struct Convert<std::string> {
  static ParameterValue to(const std::string& v) { return v; }
  static std::string from(const ParameterValue& v) { return std::get<std::string>(v); }
};
template <>
struct Convert<std::optional<double>> {
  static ParameterValue to(const std::optional<double>& v) { return v ? ParameterValue(*v) : ParameterValue(); }
  static std::optional<double> from(const ParameterValue& v) {
    return std::holds_alternative<double>(v) ? std::optional<double>(std::get<double>(v)) : std::nullopt;
  }
};
template <>
struct Convert<std::vector<float>> {
  static ParameterValue to(const std::vector<float>& v) { return VertexValues{v, {}}; }
  static std::vector<float> from(const ParameterValue& v) { return std::get<VertexValues>(v).values; }
};
template <>
struct Convert<VertexValues> {
  static ParameterValue to(const VertexValues& v) { return v; }
  static VertexValues from(const ParameterValue& v) { return std::get<VertexValues>(v); }
};
template <>
struct Convert<Vec3f> {
  static ParameterValue to(const Vec3f& v) { return std::array<double, 3>{v.x(), v.y(), v.z()}; }
  static Vec3f from(const ParameterValue& v) {
    const auto& a = std::get<std::array<double, 3>>(v);
    return Vec3f(static_cast<float>(a[0]), static_cast<float>(a[1]), static_cast<float>(a[2]));
  }
};

template <>
struct Convert<Vec3d> {
  static ParameterValue to(const Vec3d& v) { return std::array<double, 3>{v.x(), v.y(), v.z()}; }
  static Vec3d from(const ParameterValue& v) {
    const auto& a = std::get<std::array<double, 3>>(v);
    return Vec3d(a[0], a[1], a[2]);
  }
};

// A struct value in the settings' unit (radians -> degrees), rounded to 12 significant digits so
// that a value typed in the settings unit reads back as typed (60 degrees, not 59.99999999999999).
inline double in_settings_unit(double value, double scale) {
  const double converted = value / scale;
  if (converted == 0 || !std::isfinite(converted)) return converted;
  const double magnitude = std::pow(10.0, 11 - std::floor(std::log10(std::abs(converted))));
  return std::round(converted * magnitude) / magnitude;
}

// A parameter under construction: chained setters for the optional parts.
class Parameter {
 public:
  explicit Parameter(ParameterDescription& d) : d_(&d) {}
  Parameter& flag(std::string flag) { return d_->flag = std::move(flag), *this; }
  Parameter& unit(std::string unit) { return d_->unit = std::move(unit), *this; }
  Parameter& help(std::string help) { return d_->help = std::move(help), *this; }
  Parameter& bind() { return d_->lifetime = Lifetime::Bind, *this; }
  Parameter& range(double low, double high) { return d_->minimum = low, d_->maximum = high, *this; }
  Parameter& above(double low, double high) { return range(low, high), d_->minimum_exclusive = true, *this; }
  Parameter& below(double low, double high) { return range(low, high), d_->maximum_exclusive = true, *this; }
  Parameter& soft(double low, double high) { return d_->soft_minimum = low, d_->soft_maximum = high, *this; }
  Parameter& optional() { return d_->optional = true, *this; }
  Parameter& attribute_allowed() { return d_->attribute_allowed = true, *this; }

 private:
  ParameterDescription* d_;
};

// The parameters of struct P (the deformer's, or a joint table's entry).
template <typename P>
class Fields {
 public:
  // A field reached by `access(P&) -> T&`, stored as ParameterValue type `type`; `scale` maps the
  // settings unit to the struct's (degrees -> radians: pi / 180).
  template <typename Access>
  Parameter field(std::string key, ParameterType type, Access access, double scale = 1.0) {
    using T = std::remove_reference_t<decltype(access(std::declval<P&>()))>;
    ParameterDescription& d = add(std::move(key), type);
    d.get = [access, scale](const void* object) {
      const T& value = access(*const_cast<P*>(static_cast<const P*>(object)));
      ParameterValue v = Convert<T>::to(value);
      if (scale != 1.0 && std::holds_alternative<double>(v)) v = in_settings_unit(std::get<double>(v), scale);
      return v;
    };
    d.set = [access, scale](void* object, const ParameterValue& value) {
      ParameterValue v = value;
      if (scale != 1.0 && std::holds_alternative<double>(v)) v = std::get<double>(v) * scale;
      access(*static_cast<P*>(object)) = Convert<T>::from(v);
    };
    d.default_value = d.get(&defaults_);
    return Parameter(d);
  }
  template <typename Access>
  Parameter number(std::string key, Access access, double scale = 1.0) {
    return field(std::move(key), ParameterType::Number, access, scale);
  }
  template <typename Access>
  Parameter integer(std::string key, Access access) {
    return field(std::move(key), ParameterType::Integer, access);
  }
  template <typename Access>
  Parameter boolean(std::string key, Access access) {
    return field(std::move(key), ParameterType::Boolean, access);
  }
  template <typename Access>
  Parameter text(std::string key, Access access) {
    return field(std::move(key), ParameterType::Text, access);
  }
  template <typename Access>
  Parameter vertex_array(std::string key, Access access) {
    return field(std::move(key), ParameterType::VertexArray, access);
  }
  template <typename Access>
  Parameter vector3(std::string key, Access access) {
    return field(std::move(key), ParameterType::Vector3, access);
  }
  // An enum field with its texts, in the order the help lists them.
  template <typename Access, typename Enum>
  Parameter choice(std::string key, Access access, std::vector<std::pair<std::string, Enum>> names) {
    ParameterDescription& d = add(std::move(key), ParameterType::Choice);
    for (const auto& [text, value] : names) d.choices.push_back(text);
    d.get = [access, names](const void* object) -> ParameterValue {
      const Enum value = access(*const_cast<P*>(static_cast<const P*>(object)));
      for (const auto& [text, e] : names) {
        if (e == value) return text;
      }
      throw std::logic_error("describe: enum value without a name");
    };
    d.set = [access, names](void* object, const ParameterValue& value) {
      for (const auto& [text, e] : names) {
        if (text == std::get<std::string>(value)) access(*static_cast<P*>(object)) = e;
      }
    };
    d.default_value = d.get(&defaults_);
    return Parameter(d);
  }
  // A per-joint table: `access(P&) -> std::vector<Entry>&`, the entry's joint name reached by
  // `name(Entry&) -> std::string&`, its other fields described by `entry`.
  template <typename Entry, typename Access, typename Name>
  Parameter joint_table(std::string key, Access access, Name name, const Fields<Entry>& entry) {
    ParameterDescription& d = add(std::move(key), ParameterType::JointTable);
    d.fields = entry.list();
    for (ParameterDescription& f : d.fields) f.flag.clear();  // nested fields have no flags of their own
    const std::vector<ParameterDescription> fields = d.fields;
    d.get = [access, name, fields](const void* object) -> ParameterValue {
      JointTable table;
      for (const Entry& e : access(*const_cast<P*>(static_cast<const P*>(object)))) {
        JointEntry out{name(const_cast<Entry&>(e)), {}};
        for (const ParameterDescription& f : fields) {
          ParameterValue v = f.get(&e);
          if (!(v == f.default_value)) out.values.push_back({f.key, std::move(v)});
        }
        table.push_back(std::move(out));
      }
      return table;
    };
    d.set = [access, name, fields](void* object, const ParameterValue& value) {
      std::vector<Entry>& entries = access(*static_cast<P*>(object));
      entries.clear();
      for (const JointEntry& in : std::get<JointTable>(value)) {
        Entry e{};
        name(e) = in.joint;
        for (const NamedValue& nv : in.values) {
          for (const ParameterDescription& f : fields) {
            if (f.key == nv.key) f.set(&e, nv.value);
          }
        }
        entries.push_back(std::move(e));
      }
    };
    d.default_value = d.get(&defaults_);
    return Parameter(d);
  }

  const std::vector<ParameterDescription>& list() const { return list_; }

  // The deformer's description, with P as its parameters struct.
  DeformerDescription deformer(std::string name, DeformerStage stage, std::string summary,
                               std::function<std::unique_ptr<Deformer>(const DeformerSettings&)> create) const {
    DeformerDescription d;
    d.name = std::move(name);
    d.stage = stage;
    d.summary = std::move(summary);
    d.parameters = list_;
    d.parameters_type = typeid(P);
    d.make_parameters = [] { return std::shared_ptr<void>(std::make_shared<P>()); };
    d.copy_parameters = [](const void* p) {
      return std::shared_ptr<void>(std::make_shared<P>(*static_cast<const P*>(p)));
    };
    d.create = std::move(create);
    return d;
  }

 private:
  ParameterDescription& add(std::string key, ParameterType type) {
    ParameterDescription& d = list_.emplace_back();
    d.flag = d.key = std::move(key);
    for (char& c : d.flag) c = c == '_' ? '-' : c;
    d.type = type;
    return d;
  }
  P defaults_{};
  std::vector<ParameterDescription> list_;
};

}  // namespace wobble::describe
