// Strict value parsing: whole texts or a named error, never a prefix or a silent default.
#include <gtest/gtest.h>

#include <wobble/error.hpp>
#include <wobble/parse.hpp>

#include "error_of.hpp"

namespace wobble {
namespace {

using test::error_of;

TEST(Parse, RealsAreReadWhole) {
  EXPECT_EQ(parse_real("0.25", "--x"), 0.25);
  EXPECT_EQ(parse_real("-3", "--x"), -3.0);
  EXPECT_EQ(parse_real("+2", "--x"), 2.0);
  EXPECT_EQ(parse_real("1e-4", "--x"), 1e-4);
  EXPECT_EQ(parse_real(".5", "--x"), 0.5);
  // A fraction is exact: the same double as the division written in C++.
  EXPECT_EQ(parse_real("1/240", "--delay-step"), 1.0 / 240.0);
  EXPECT_EQ(parse_real("-3/4", "--x"), -0.75);
}

TEST(Parse, RealsRefuseJunkNonFiniteAndOverflow) {
  for (const char* bad : {"2abc", "", " 2", "2 ", "nan", "NaN", "inf", "-inf", "infinity", "1e400", "0x10", "abc",
                          "1/0", "1/", "/2", "1/2/3", "1/nan", "--1", "1,5"}) {
    const std::string message = error_of([&] { parse_real(bad, "--frequency"); });
    EXPECT_EQ(message.rfind("--frequency: '" + std::string(bad) + "' is not a number", 0), 0u)
        << bad << ": " << message;
  }
}

TEST(Parse, RealRangeIsNamed) {
  EXPECT_EQ(parse_real("30", "--frequency", 0, 30), 30.0);
  EXPECT_EQ(error_of([] { parse_real("31", "--frequency", 0, 30); }), "--frequency: 31 is out of range [0, 30]");
  EXPECT_EQ(error_of([] { check_range(-0.5, "dynamic.damping", 0, 1e6); }),
            "dynamic.damping: -0.5 is out of range [0, 1e+06]");
}

TEST(Parse, IntegersAreDigitsOnly) {
  EXPECT_EQ(parse_integer("10", "--n"), 10);
  EXPECT_EQ(parse_integer("-7", "--n"), -7);
  EXPECT_EQ(parse_integer("+7", "--n"), 7);
  for (const char* bad : {"1.5", "1e3", "1e400", "0x10", "", "10abc", "abc", "99999999999999999999", " 1"}) {
    EXPECT_EQ(error_of([&] { parse_integer(bad, "--mush-iterations"); }),
              "--mush-iterations: '" + std::string(bad) + "' is not an integer")
        << bad;
  }
  EXPECT_EQ(error_of([] { parse_integer("-1", "--threads", 1, 1024); }), "--threads: -1 is out of range [1, 1024]");
  EXPECT_EQ(error_of([] { parse_integer("4294967296", "--threads", 1, 1024); }),
            "--threads: 4294967296 is out of range [1, 1024]");
}

TEST(Parse, BooleansAreAFixedSet) {
  for (const char* yes : {"true", "TRUE", "Yes", "on", "1"}) EXPECT_TRUE(parse_boolean(yes, "--b")) << yes;
  for (const char* no : {"false", "False", "NO", "off", "0"}) EXPECT_FALSE(parse_boolean(no, "--b")) << no;
  for (const char* bad : {"maybe", "2", "", "t"}) {
    EXPECT_EQ(error_of([&] { parse_boolean(bad, "--mush-pin-boundary"); }),
              "--mush-pin-boundary: '" + std::string(bad) + "' is not a boolean (true or false)")
        << bad;
  }
}

// The fuzzer's first finding: a text holding a newline made a two-line message.
TEST(Parse, TheTextIsShownOnOneLine) {
  EXPECT_EQ(error_of([] { parse_real("-3\n2", "--x"); }), "--x: '-3\\x0a2' is not a number");
  EXPECT_EQ(error_of([] { parse_boolean("\xff", "--b"); }), "--b: '\\xff' is not a boolean (true or false)");
  const std::string long_text(100, '7');
  EXPECT_EQ(error_of([&] { parse_integer(long_text + "x", "--n"); }),
            "--n: '" + std::string(60, '7') + "...' is not an integer");
}

TEST(Parse, FormatRealRoundTrips) {
  for (double value : {0.25, 1.0 / 240.0, 60.0, 1e-5, -2.5e300}) {
    EXPECT_EQ(parse_real(format_real(value), "x"), value);
  }
  EXPECT_EQ(format_real(60.0), "60");
  EXPECT_EQ(format_real(0.5), "0.5");
}

TEST(Parse, DidYouMeanSuggestsOnlyLikelyTypos) {
  const std::vector<std::string> keys = {"frequency", "damping", "amplitude", "drag"};
  EXPECT_EQ(did_you_mean("frequncy", keys), " (did you mean 'frequency'?)");
  EXPECT_EQ(did_you_mean("dampnig", keys), " (did you mean 'damping'?)");
  EXPECT_EQ(did_you_mean("colour", keys), "");
  EXPECT_EQ(did_you_mean("x", keys), "");
}

}  // namespace
}  // namespace wobble
