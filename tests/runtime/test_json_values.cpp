// JSON values from files people wrote, read by type and range, with errors that name the file
// and the JSON path of the key (core/json_values.hpp: the settings and scene readers share it).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/json_values.hpp"
#include "error_of.hpp"

using namespace wobble;
using nlohmann::json;
using wobble::test::error_of;

TEST(JsonValues, ValuesAreReadByTypeAndRangeWithTheirPath) {
  const json document = json::parse(R"({"n": 3, "x": 0.5, "flag": true, "word": "a", "big": 1e300, "half": 1.5,
                                         "whole": 4.0, "list": [1, true], "inner": {"k": "v"}})");
  const JsonObject top(document, "s.json");
  EXPECT_EQ(top.integer("n", 0, 0, 10), 3);
  EXPECT_EQ(top.integer("absent", 7, 0, 10), 7);
  EXPECT_EQ(top.real("x", 0, 0, 1), 0.5);
  EXPECT_TRUE(top.boolean("flag", false));
  EXPECT_EQ(top.text("word", ""), "a");
  EXPECT_EQ(error_of([&] { top.integer("half", 0, 0, 10); }), "s.json: half: expected an integer, got 1.5");
  // As on the command line, an integer is written as one: 4.0 is a real number.
  EXPECT_EQ(error_of([&] { top.integer("whole", 0, 0, 10); }), "s.json: whole: expected an integer, got 4.0");
  EXPECT_EQ(error_of([&] { top.integer("n", 0, 5, 10); }), "s.json: n: 3 is out of range [5, 10]");
  EXPECT_EQ(error_of([&] { top.real("big", 0, -1e6, 1e6); }), "s.json: big: 1e+300 is out of range [-1e+06, 1e+06]");
  EXPECT_EQ(error_of([&] { top.real("flag", 0, 0, 1); }), "s.json: flag: expected a number, got true");
  EXPECT_EQ(error_of([&] { top.boolean("n", false); }), "s.json: n: expected true or false, got 3");
  EXPECT_EQ(error_of([&] { top.text("list", ""); }), "s.json: list: expected a string, got [1,true]");
  EXPECT_EQ(error_of([&] { top.reals<2>("list", {0, 0}, 0, 9); }), "s.json: list[1]: expected a number, got true");
  EXPECT_EQ(error_of([&] {
              top.reals<3>("list", {0, 0, 0}, 0, 9);
            }),
            "s.json: list: expected an array of 3 numbers, got [1,true]");
  EXPECT_EQ(error_of([&] { top.object("inner").boolean("k", false); }),
            "s.json: inner.k: expected true or false, got \"v\"");
  EXPECT_EQ(error_of([&] { top.allow_only({"n", "x"}); }).rfind("s.json: unknown key 'big' (known: n, x)", 0), 0u);
  EXPECT_EQ(error_of([&] { top.objects("list"); }), "s.json: list[0]: expected an object, got 1");
}
