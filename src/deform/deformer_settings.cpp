// The settings of one deformer: its typed parameters struct behind its description, checked on
// every set, with keyframed live numbers.
#include <wobble/parameters.hpp>

#include <algorithm>
#include <stdexcept>
#include <tuple>

#include <wobble/error.hpp>
#include <wobble/parse.hpp>

namespace wobble {

namespace {

// The entry of `joint` in a table (appended when missing) and its value of `field`.
ParameterValue& table_field(JointTable& table, const std::string& joint, const std::string& field) {
  auto entry = std::find_if(table.begin(), table.end(), [&](const JointEntry& e) { return e.joint == joint; });
  if (entry == table.end()) entry = table.insert(table.end(), JointEntry{joint, {}});
  auto value =
      std::find_if(entry->values.begin(), entry->values.end(), [&](const NamedValue& v) { return v.key == field; });
  if (value == entry->values.end()) value = entry->values.insert(entry->values.end(), NamedValue{field, {}});
  return value->value;
}

// A table's bind fields only, by joint name (what a rebind depends on).
std::vector<std::pair<std::string, std::vector<NamedValue>>> bind_part(const ParameterDescription& p,
                                                                       const JointTable& table) {
  std::vector<std::pair<std::string, std::vector<NamedValue>>> part;
  for (const JointEntry& entry : table) {
    std::vector<NamedValue> values;
    for (const NamedValue& nv : entry.values) {
      const ParameterDescription* field = p.field(nv.key);
      if (field && field->lifetime == Lifetime::Bind) values.push_back(nv);
    }
    if (!values.empty()) part.emplace_back(entry.joint, std::move(values));
  }
  std::sort(part.begin(), part.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return part;
}

}  // namespace

DeformerSettings::DeformerSettings(const DeformerDescription& description)
    : description_(&description), parameters_(description.make_parameters()) {}

DeformerSettings::DeformerSettings(const DeformerSettings& other)
    : description_(other.description_),
      parameters_(other.description_->copy_parameters(other.parameters_.get())),
      keyed_(other.keyed_) {}

DeformerSettings& DeformerSettings::operator=(const DeformerSettings& other) {
  if (this != &other) {
    DeformerSettings copy(other);
    *this = std::move(copy);
  }
  return *this;
}

void DeformerSettings::set(std::string_view key, const ParameterValue& value, std::string_view where) {
  const ParameterDescription& p = description_->at(key, where);  // throws, naming the known keys
  std::vector<KeyedParameter> keyed = keyed_;
  std::erase_if(keyed, [&](const KeyedParameter& k) { return k.key == key; });
  ParameterValue now = value;
  if (const Keys* keys = std::get_if<Keys>(&value)) {
    p.check(value, where);
    keyed.push_back({p.key, {}, {}, *keys});
    now = keys->points.front()[1];
  } else if (JointTable* table = std::get_if<JointTable>(&now)) {
    for (JointEntry& entry : *table) {
      for (NamedValue& nv : entry.values) {
        const Keys* nested = std::get_if<Keys>(&nv.value);
        if (!nested) continue;
        if (const ParameterDescription* field = p.field(nv.key))
          field->check(nv.value, std::string(where) + "." + entry.joint + "." + nv.key);
        keyed.push_back({p.key, entry.joint, nv.key, *nested});
        const double first = nested->points.front()[1];  // a copy: the assignment destroys the keys
        nv.value = first;
      }
    }
    p.check(now, where);
  } else {
    p.check(now, where);
  }
  std::shared_ptr<void> updated = description_->copy_parameters(parameters_.get());
  p.set(updated.get(), now);
  if (description_->check_together) {
    if (const std::string problem = description_->check_together(updated.get()); !problem.empty()) {
      throw Error(std::string(where) + ": " + problem);
    }
  }
  const auto position = [&](const KeyedParameter& k) {
    return description_->find(k.key) - description_->parameters.data();
  };
  std::sort(keyed.begin(), keyed.end(), [&](const KeyedParameter& a, const KeyedParameter& b) {
    return std::tuple(position(a), a.joint, a.field) < std::tuple(position(b), b.joint, b.field);
  });
  parameters_ = std::move(updated);
  keyed_ = std::move(keyed);
}

ParameterValue DeformerSettings::get(std::string_view key) const {
  return description_->at(key, "settings").get(parameters_.get());
}

ParameterValue DeformerSettings::given(std::string_view key) const {
  ParameterValue value = get(key);
  for (const KeyedParameter& k : keyed_) {
    if (k.key != key) continue;
    if (k.joint.empty()) return k.keys;
    table_field(std::get<JointTable>(value), k.joint, k.field) = k.keys;
  }
  return value;
}

const Keys* DeformerSettings::keys(std::string_view key) const {
  for (const KeyedParameter& k : keyed_) {
    if (k.key == key && k.joint.empty()) return &k.keys;
  }
  return nullptr;
}

bool DeformerSettings::advance_to(double time) {
  bool changed = false;
  for (const KeyedParameter& k : keyed_) {
    const ParameterDescription& p = *description_->find(k.key);
    const double value = k.keys.at(time);
    ParameterValue current = p.get(parameters_.get());
    if (k.joint.empty()) {
      if (std::get<double>(current) == value) continue;
      p.set(parameters_.get(), value);
    } else {
      ParameterValue& field = table_field(std::get<JointTable>(current), k.joint, k.field);
      if (std::holds_alternative<double>(field) && std::get<double>(field) == value) continue;
      field = value;
      p.set(parameters_.get(), current);
    }
    changed = true;
  }
  if (changed && description_->check_together) {
    if (const std::string problem = description_->check_together(parameters_.get()); !problem.empty()) {
      throw Error(description_->name + ": at time " + format_real(time) + " s the keyed values give: " + problem);
    }
  }
  return changed;
}

bool DeformerSettings::bind_differs(const DeformerSettings& other) const {
  if (description_ != other.description_) return true;
  for (const ParameterDescription& p : description_->parameters) {
    const ParameterValue a = p.get(parameters_.get()), b = p.get(other.parameters_.get());
    if (p.lifetime == Lifetime::Bind) {
      if (!(a == b)) return true;
    } else if (p.type == ParameterType::JointTable) {
      if (bind_part(p, std::get<JointTable>(a)) != bind_part(p, std::get<JointTable>(b))) return true;
    }
  }
  return false;
}

std::vector<std::string> DeformerSettings::changed_keys() const {
  std::vector<std::string> keys;
  for (const ParameterDescription& p : description_->parameters) {
    const bool keyed =
        std::any_of(keyed_.begin(), keyed_.end(), [&](const KeyedParameter& k) { return k.key == p.key; });
    if (keyed || !(p.get(parameters_.get()) == p.default_value)) keys.push_back(p.key);
  }
  return keys;
}

bool DeformerSettings::operator==(const DeformerSettings& other) const {
  if (description_ != other.description_ || keyed_ != other.keyed_) return false;
  return std::all_of(description_->parameters.begin(), description_->parameters.end(),
                     [&](const auto& p) { return p.get(parameters_.get()) == p.get(other.parameters_.get()); });
}

void DeformerSettings::check_type(std::type_index type) const {
  if (type != description_->parameters_type) {
    throw std::logic_error("DeformerSettings::as: '" + description_->name + "' has another parameters type");
  }
}

}  // namespace wobble
