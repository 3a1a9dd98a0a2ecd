// The deformer registry's parameter descriptions (what --help, the viewer and Python show) against
// the deformers themselves.
#include <gtest/gtest.h>

#include <cmath>

#include <wobble/bake.hpp>
#include <wobble/deformer.hpp>

#include "synthetic_rigs.hpp"

namespace wobble {
namespace {

// The synthetic chain with its rings joined into a closed-ended tube, bending at joint 1.
Character bending_tube() {
  Character c = test::chain_character(3, 1.0f, 4);
  const auto rings = static_cast<std::uint32_t>(c.mesh.positions.size() / 4);
  // Ring vertices are +x, -x, +z, -z: around the ring that is +x, +z, -x, -z.
  const std::uint32_t around[4] = {0, 2, 1, 3};
  for (std::uint32_t r = 0; r + 1 < rings; ++r)
    for (int k = 0; k < 4; ++k) {
      const std::uint32_t a = 4 * r + around[k], b = 4 * r + around[(k + 1) % 4];
      c.mesh.triangles.push_back({a, b, b + 4});
      c.mesh.triangles.push_back({a, b + 4, a + 4});
    }
  test::add_rotation(c, 1, Vec3f(0, 0, 1), 0.5f, [](double t) { return 2.0 * t; });
  return c;
}

std::string stack_for(const DeformerType& type) { return type.stage == DeformerStage::Base ? type.name : "lbs," + type.name; }

TEST(DeformerRegistry, DescriptionsAreComplete) {
  for (const DeformerType& type : deformer_types())
    for (const ParameterSpec& p : type.parameters) {
      SCOPED_TRACE(p.flag);
      EXPECT_FALSE(p.help.empty());
      EXPECT_EQ(p.help.find("(default"), std::string::npos) << "the default belongs in default_value";
      if (!p.choices.empty()) {
        EXPECT_EQ(p.type, ParameterSpec::Type::Text);
        EXPECT_NE(std::find(p.choices.begin(), p.choices.end(), p.default_value), p.choices.end());
        EXPECT_NE(describe(p).find("one of " + p.choices.front()), std::string::npos) << describe(p);
      }
      if ((p.type == ParameterSpec::Type::Number || p.type == ParameterSpec::Type::Integer) && !p.default_value.empty())
        EXPECT_FALSE(std::isnan(default_number(p))) << "a number's default is a number";
    }
}

// Setting every documented default explicitly gives exactly the output of not setting it: the
// help and the viewer show the values the deformers really use.
TEST(DeformerRegistry, DocumentedDefaultsAreTheDeformersDefaults) {
  const Character tube = bending_tube();
  int checked = 0;
  for (const DeformerType& type : deformer_types()) {
    const BakedFrames reference = test::bake_stack(tube, stack_for(type), nlohmann::json::object(), 30, 0.4);
    for (const ParameterSpec& p : type.parameters) {
      if (p.default_value.empty()) continue;
      SCOPED_TRACE(type.name + " --" + p.flag + " " + p.default_value);
      nlohmann::json value;
      if (p.type == ParameterSpec::Type::Text) value = p.default_value;
      else if (p.type == ParameterSpec::Type::Integer) value = static_cast<int>(default_number(p));
      else value = default_number(p);
      const BakedFrames explicit_default = test::bake_stack(tube, stack_for(type), nlohmann::json{{type.name, {{p.key, value}}}}, 30, 0.4);
      ASSERT_EQ(explicit_default.positions.size(), reference.positions.size());
      for (std::size_t f = 0; f < reference.positions.size(); ++f)
        for (std::size_t v = 0; v < reference.positions[f].size(); ++v)
          ASSERT_EQ(explicit_default.positions[f][v], reference.positions[f][v]) << "frame " << f << " vertex " << v;
      ++checked;
    }
  }
  EXPECT_GE(checked, 15);
}

}  // namespace
}  // namespace wobble
