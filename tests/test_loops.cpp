// Seamless loops: cycle detection (both conventions, a given period, force, the error for a clip
// that is no cycle), the cycle's pose repeated forever, Dynamic Skinning's exact periodic steady
// state against 50 cycles run by brute force, its periodicity and the seam it removes, and the
// physics loop (cycles until one repeats the one before).
#include <cmath>
#include <numbers>

#include <gtest/gtest.h>

#include <wobble/offline/bake.hpp>
#include <wobble/offline/bake_motion.hpp>
#include <wobble/offline/cycle.hpp>
#include <wobble/dynamic_skinning.hpp>
#include <wobble/error.hpp>
#include <wobble/io/files.hpp>
#include <wobble/physics/rig_loop.hpp>
#include <wobble/pose.hpp>
#include <wobble/offline/seam.hpp>

#include "synthetic_rigs.hpp"
#include "test_util.hpp"

using namespace wobble;
using namespace wobble::test;

namespace {

constexpr double kPi = std::numbers::pi;

// A 3-joint chain whose root swings about Z and whose middle joint about X, both with period T,
// keyed at 240 Hz over [0, duration].
Character swinging_chain(double period, double duration) {
  Character c = chain_character(3, 1.0f);
  add_rotation(c, 0, Vec3f::UnitZ(), static_cast<float>(duration),
               [=](double t) { return 0.6 * std::sin(2 * kPi * t / period); });
  add_rotation(c, 1, Vec3f::UnitX(), static_cast<float>(duration), [=](double t) {
    return 0.4 * std::sin(2 * kPi * t / period + 1.0) + 0.2 * std::sin(4 * kPi * t / period);
  });
  return c;
}

DynamicSkinningParameters lively() {
  return {.frequency = 2.0, .damping = 0.4, .amplitude = 0.5, .drag = 0.2, .joints = {}, .bend_weights = {}};
}

// The cycle repeated forever, and the clip as a bake without a loop sees it (first and last poses held).
PoseSampler cycle_sampler(const Character& c, const Cycle& cycle) {
  return [&c, cycle](double t, Pose& pose) { evaluate_cycle_pose(c.rig, c.clips[0], cycle, t, pose); };
}
PoseSampler clip_sampler(const Character& c) {
  return [&c](double t, Pose& pose) { evaluate_pose(c.rig, &c.clips[0], static_cast<float>(t), pose); };
}

// Offsets of Dynamic Skinning at each frame time (positions: the rest mesh, unchanged by the pose).
std::vector<std::vector<Vec3f>> offsets_at(DynamicSkinningState& state, const Character& c, const PoseSampler& sampler,
                                           const std::vector<double>& times) {
  std::vector<std::vector<Vec3f>> out;
  Pose pose;
  for (double t : times) {
    sampler(t, pose);
    std::vector<Vec3f> positions = c.mesh.positions;
    state.apply(lively(), pose, positions, t, sampler);
    for (std::size_t v = 0; v < positions.size(); ++v) positions[v] -= c.mesh.positions[v];
    out.push_back(std::move(positions));
  }
  return out;
}

double largest_jump(const std::vector<Vec3f>& a, const std::vector<Vec3f>& b) {
  double m = 0;
  for (std::size_t v = 0; v < a.size(); ++v) m = std::max<double>(m, (a[v] - b[v]).norm());
  return m;
}

std::vector<double> frames(double first, std::size_t count, double fps) {
  std::vector<double> t;
  for (std::size_t k = 0; k < count; ++k) t.push_back(first + static_cast<double>(k) / fps);
  return t;
}

}  // namespace

TEST(CycleDetection, FindsBothConventionsAGivenPeriodAndForce) {
  const Character repeats = swinging_chain(1.5, 1.5);
  const Cycle a = find_cycle(repeats.rig, repeats.clips[0]);
  EXPECT_EQ(a.kind, CycleKind::LastKeyRepeats);
  EXPECT_NEAR(a.period, 1.5, 1e-6);
  EXPECT_NE(a.describe().find("the last key repeats the first pose"), std::string::npos) << a.describe();

  // Keys up to one interval (1/240 s) before the first pose comes back.
  const Character early = swinging_chain(1.5, 1.5 - 1.0 / 240);
  const Cycle b = find_cycle(early.rig, early.clips[0]);
  EXPECT_EQ(b.kind, CycleKind::EndsOneKeyEarly);
  EXPECT_NEAR(b.period, 1.5, 1e-6);
  EXPECT_NE(b.describe().find("one key interval"), std::string::npos) << b.describe();

  // Not a cycle: three quarters of a period.
  const Character partial = swinging_chain(1.5, 1.125);
  try {
    find_cycle(partial.rig, partial.clips[0]);
    FAIL() << "a clip whose end is far from its start is no cycle";
  } catch (const Error& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("clip 'turn' is not a cycle"), std::string::npos) << message;
    EXPECT_NE(message.find("degrees"), std::string::npos) << message;
    EXPECT_NE(message.find("--loop-period"), std::string::npos) << message;
    EXPECT_NE(message.find("--loop-force"), std::string::npos) << message;
  }
  CycleOptions force;
  force.force = true;
  EXPECT_EQ(find_cycle(partial.rig, partial.clips[0], force).kind, CycleKind::Forced);
  // The true period inside a longer clip.
  const Character two = swinging_chain(1.5, 3.0);
  CycleOptions given;
  given.period = 1.5;
  const Cycle g = find_cycle(two.rig, two.clips[0], given);
  EXPECT_EQ(g.kind, CycleKind::GivenPeriod);
  EXPECT_LT(g.mismatch_degrees, 0.01);
}

TEST(CycleDetection, TheCycleRepeatsBeforeAndAfterTheClip) {
  const Character early = swinging_chain(1.5, 1.5 - 1.0 / 240);
  const Cycle cycle = find_cycle(early.rig, early.clips[0]);
  Pose a, b, c;
  for (double t : {0.1, 0.7, 1.4, 1.499}) {
    evaluate_cycle_pose(early.rig, early.clips[0], cycle, t, a);
    evaluate_cycle_pose(early.rig, early.clips[0], cycle, t + 3 * 1.5, b);
    evaluate_cycle_pose(early.rig, early.clips[0], cycle, t - 1.5, c);
    for (std::size_t j = 0; j < a.local.size(); ++j) {
      EXPECT_NEAR(a.local[j].rotation.angularDistance(b.local[j].rotation), 0, 1e-5) << t;
      EXPECT_NEAR(a.local[j].rotation.angularDistance(c.local[j].rotation), 0, 1e-5) << t;
    }
  }
  // In the gap after the last key the pose runs on to the first: the swing's own value there.
  evaluate_cycle_pose(early.rig, early.clips[0], cycle, 1.5 - 0.5 / 240, a);
  const double expected = 0.6 * std::sin(2 * kPi * (1.5 - 0.5 / 240) / 1.5);
  EXPECT_NEAR(2 * std::asin(std::abs(a.local[0].rotation.z())), std::abs(expected), 1e-4);
}

// The exact steady state equals a cold start 50 cycles earlier, for a period that is a whole
// number of 60 Hz samples and for one that is not (the loop's grid is then T / round(60 T)).
TEST(DynamicSkinningLoop, ExactSteadyStateEqualsFiftyCyclesByBruteForce) {
  for (double period : {1.5, 1.0125}) {  // 90 samples of 1/60 s; 60.75 of them (61 of 1/60.25 s)
    const Character c = swinging_chain(period, period);
    const Cycle cycle = find_cycle(c.rig, c.clips[0]);
    ASSERT_EQ(cycle.kind, CycleKind::LastKeyRepeats);
    ASSERT_NEAR(cycle.period, period, 1e-6);
    const float size = c.mesh.size();
    const double fps = 30;
    const PoseSampler sampler = cycle_sampler(c, cycle);
    const std::vector<double> times = frames(0, static_cast<std::size_t>(2 * period * fps), fps);

    DynamicSkinningState exact;
    exact.initialize(c, lively());
    exact.start_periodic(lively(), sampler, cycle.start, cycle.period);
    EXPECT_NEAR(exact.sample_period() * std::round(cycle.period * 60), cycle.period, 1e-12);
    const auto steady = offsets_at(exact, c, sampler, times);

    DynamicSkinningState brute;
    brute.initialize(c, lively());
    brute.set_sample_grid(exact.sample_period(), cycle.start);
    // 50 cycles before, at the same frame rate (frames every 1/30 s: no restart), then the frames.
    std::vector<double> warm = frames(-50 * period, static_cast<std::size_t>(std::round(50 * period * fps)), fps);
    offsets_at(brute, c, sampler, warm);
    const auto cold = offsets_at(brute, c, sampler, times);

    double difference = 0, effect = 0;
    for (std::size_t k = 0; k < times.size(); ++k) {
      difference = std::max(difference, largest_jump(steady[k], cold[k]));
      for (const Vec3f& d : steady[k]) effect = std::max<double>(effect, d.norm());
    }
    EXPECT_GT(effect, 1e-2 * size) << "the effect is not vacuous";
    EXPECT_LE(difference, 1e-6 * size) << "period " << period;
  }
}

TEST(DynamicSkinningLoop, TwoCyclesRepeatAndTheSeamIsNoJump) {
  const double period = 1.5, fps = 60;
  const Character c = swinging_chain(period, period);
  const Cycle cycle = find_cycle(c.rig, c.clips[0]);
  const float size = c.mesh.size();
  const std::size_t n = static_cast<std::size_t>(period * fps);  // frames per cycle
  const std::vector<double> times = frames(0, 2 * n + 1, fps);
  const PoseSampler sampler = cycle_sampler(c, cycle);

  DynamicSkinningState looped;
  looped.initialize(c, lively());
  looped.start_periodic(lively(), sampler, cycle.start, cycle.period);
  const auto loop = offsets_at(looped, c, sampler, times);
  double inside = 0, repeat = 0;
  for (std::size_t k = 0; k + 1 < n; ++k) inside = std::max(inside, largest_jump(loop[k], loop[k + 1]));
  for (std::size_t k = 0; k <= n; ++k) repeat = std::max(repeat, largest_jump(loop[k], loop[k + n]));
  EXPECT_LE(repeat, 1e-6 * size) << "the second cycle repeats the first";
  const double loop_seam = largest_jump(loop[n - 1], loop[n]);
  EXPECT_LE(loop_seam, inside);

  // Without the loop: the bake of the clip (its first pose held before it), played as a loop,
  // jumps at the seam.
  DynamicSkinningState plain;
  plain.initialize(c, lively());
  const auto once = offsets_at(plain, c, clip_sampler(c), frames(0, n, fps));
  const double plain_seam = largest_jump(once[n - 1], once[0]);
  EXPECT_GT(plain_seam, inside) << "without --loop the seam jumps more than any frame inside";
  std::printf("loop test: seam jump %.3g (loop) vs %.3g (no loop), at most %.3g between frames inside, of size %.3g\n",
              loop_seam, plain_seam, inside, size);
}

// simulate --rig --loop: no closed form for the physics; cycles until one repeats the one before.
TEST(RigLoop, PlaysCyclesUntilOneRepeatsTheOneBefore) {
  const Character c = load_character(shared_asset("characters/RiggedSimple/RiggedSimple.gltf"));
  ASSERT_FALSE(c.clips.empty());
  physics::RigComplementaryOptions options;
  options.handles = 6;
  options.points = 300;
  options.sample_grid = 16;
  options.field_grid = 12;
  options.material.youngs_modulus = 5e3;  // soft: it swings for a few cycles
  CycleOptions force;
  force.force = true;
  const Cycle cycle = find_cycle(c.rig, c.clips[0], force);
  const double size = c.mesh.size();
  physics::RigLoopOptions loop_options;
  loop_options.fps = 30;
  loop_options.substeps = 2;
  loop_options.tolerance = 1e-4;
  physics::RigComplementary sim(c, options);
  const physics::RigLoop loop = physics::simulate_rig_loop(sim, c, c.clips[0], cycle, loop_options);
  EXPECT_TRUE(loop.converged);
  EXPECT_LE(loop.residual, 1e-4);
  const std::size_t frames = static_cast<std::size_t>(std::lround(cycle.period * 30));
  ASSERT_EQ(loop.frames.positions.size(), frames + 1);
  EXPECT_NEAR(loop.frames.times.back() - loop.frames.times.front(), cycle.period, 1e-5);
  // The output's ends are the ends of two successive cycles: their gap is within the residual.
  EXPECT_LE(largest_jump(loop.frames.positions.front(), loop.frames.positions.back()),
            loop.residual * size * (1 + 1e-6));
  // Fewer cycles leave a larger residual: the cycles converge.
  physics::RigComplementary fresh(c, options);
  loop_options.tolerance = 0;
  loop_options.max_cycles = 2;
  const physics::RigLoop two = physics::simulate_rig_loop(fresh, c, c.clips[0], cycle, loop_options);
  EXPECT_EQ(two.cycles, 2);
  EXPECT_GE(two.residual, loop.residual);
  std::printf("rig loop: %d cycles to a residual of %.3g of the size (after 2 cycles: %.3g)\n", loop.cycles,
              loop.residual, two.residual);
}

TEST(BakeMotion, HoldPreRollAndLoopSeeTheClipAsDocumented) {
  const Character c = swinging_chain(1.5, 1.5);
  const Clip& clip = c.clips[0];
  Pose got, want;
  auto same = [&](double t, double clip_time) {
    evaluate_pose(c.rig, &clip, static_cast<float>(clip_time), want);
    for (std::size_t j = 0; j < got.local.size(); ++j) {
      if (got.local[j].rotation.angularDistance(want.local[j].rotation) > 1e-5) return false;
    }
    return true;
  };
  // hold: before the first frame (0.6 s), its pose.
  MotionOptions hold;
  const BakeMotion held(c, clip, hold, 0.6);
  held.pose(0.2, got);
  EXPECT_TRUE(same(0.2, 0.6));
  held.pose(0.9, got);
  EXPECT_TRUE(same(0.9, 0.9));
  EXPECT_TRUE(held.pre_roll_times(30).empty());
  // pre-roll 1 s from 0.3 s: the cycle's end before its start, its first pose before that.
  MotionOptions pre;
  pre.pre_roll = PreRoll::parse("1");
  const BakeMotion rolled(c, clip, pre, 0.3);
  ASSERT_TRUE(rolled.cycle().has_value());
  rolled.pose(-0.2, got);
  EXPECT_TRUE(same(-0.2, 1.3));
  rolled.pose(-0.9, got);  // before the history began (-0.7 s): held
  EXPECT_TRUE(same(-0.9, 0.8));
  const std::vector<double> times = rolled.pre_roll_times(10);
  ASSERT_EQ(times.size(), 10u);
  EXPECT_NEAR(times.front(), -0.7, 1e-12);
  EXPECT_NEAR(times.back(), 0.2, 1e-12);
  // loop: the cycle forever; a first frame inside the cycle is reached from the cycle's start.
  MotionOptions loop;
  loop.loop = true;
  const BakeMotion looped(c, clip, loop, 2.0);
  EXPECT_TRUE(looped.periodic());
  EXPECT_NEAR(looped.cycle_start(), 1.5, 1e-12);
  looped.pose(2.0, got);
  EXPECT_TRUE(same(2.0, 0.5));
  EXPECT_EQ(looped.pre_roll_times(30).size(), 15u);
  EXPECT_NE(looped.describe().find("loop: a cycle of 1.5 s"), std::string::npos) << looped.describe();
  // Bad pre-roll values name the flag.
  for (const char* bad : {"holdd", "-1", "2abc", "nan", ""}) {
    try {
      PreRoll::parse(bad);
      ADD_FAILURE() << bad;
    } catch (const Error& error) {
      EXPECT_NE(std::string(error.what()).find("--pre-roll: '"), std::string::npos) << error.what();
    }
  }
}

TEST(SeamJump, MeasuresTheEffectAtTheSeamAndInside) {
  // One vertex; base moving by 1 per frame, effect 0, 0.1, 0.3, 0.6 along y: a cycle of 3 frames
  // whose frame 3 (the next cycle's frame 0) is 0.6 from frame 0.
  BakedFrames base, stack;
  const float effect[] = {0, 0.1f, 0.3f, 0.6f};
  for (int k = 0; k < 4; ++k) {
    base.times.push_back(static_cast<float>(k));
    stack.times.push_back(static_cast<float>(k));
    base.positions.push_back({Vec3f(static_cast<float>(k), 0, 0)});
    stack.positions.push_back({Vec3f(static_cast<float>(k), effect[k], 0)});
  }
  const SeamJump jump = seam_jump(stack, base, 3);
  EXPECT_NEAR(jump.seam, 0.6, 1e-6);    // frame 3 back to frame 0
  EXPECT_NEAR(jump.inside, 0.3, 1e-6);  // frame 2 to 3
  EXPECT_THROW(seam_jump(stack, base, 4), Error);
  EXPECT_NE(jump.describe(6).find("(10% of the size)"), std::string::npos) << jump.describe(6);
}

// ---------------------------------------------------------------------------------------------
// Bakes of clonk's Walk (2.4 s, its last key repeats the first pose) at 30 fps.

namespace {

const Character& clonk() {
  static const Character c = load_character(bundled_asset("clonk.glb"));
  return c;
}

BakeOptions walk_options(const std::string& stack, const std::string& settings = "{}") {
  BakeOptions options;
  options.clip = clonk().require_clip("Walk");
  options.fps = 30;
  options.stack = StackDescription::parse(stack);
  options.settings = StackSettings::from_json(settings, "test settings");
  return options;
}

double largest_frame_difference(const BakedFrames& a, std::size_t fa, const BakedFrames& b, std::size_t fb) {
  return largest_jump(a.positions[fa], b.positions[fb]);
}

// The largest difference of frame k of `a` and frame k + offset of `b`, over a's frames.
double largest_difference(const BakedFrames& a, const BakedFrames& b, std::size_t offset = 0) {
  double difference = 0;
  for (std::size_t k = 0; k < a.positions.size(); ++k)
    difference = std::max(difference, largest_frame_difference(a, k, b, k + offset));
  return difference;
}

// Two cycles of a loop (frames 0..2n) and their seam, for a stack and settings.
struct TwoCycles {
  BakedFrames frames;
  SeamJump seam;
  std::string summary;
};

TwoCycles two_looped_cycles(const std::string& stack, const std::string& settings = "{}") {
  BakeOptions looped = walk_options(stack, settings);
  looped.motion.loop = true;
  looped.end = 2 * 2.4;  // two cycles, both ends
  TwoCycles two;
  two.frames = bake(clonk(), looped, &two.summary);
  BakeOptions base = looped;
  base.stack = StackDescription::parse("lbs");
  two.seam = seam_jump(two.frames, bake(clonk(), base), 72);
  return two;
}

// Amplitude keyed over the Walk: it rises to 0.8 mid-cycle and is back at 0.2 at the cycle's end;
// the key at 3 s lies beyond the cycle and is never reached (it only bends the last segment).
constexpr const char* kKeyedAmplitude =
    R"({"dynamic": {"amplitude": {"keys": [[0, 0.2], [1.2, 0.8], [2.4, 0.2], [3, 5]]}}})";

}  // namespace

TEST(LoopBake, ClonkWalkTwoCyclesRepeatAndTheSeamIsGone) {
  const Character& c = clonk();
  const double size = c.mesh.size();
  const std::size_t n = 72;  // 2.4 s at 30 fps
  const TwoCycles two = two_looped_cycles("lbs,dynamic");
  ASSERT_EQ(two.frames.positions.size(), 2 * n + 1);
  double repeat = 0;
  for (std::size_t k = 0; k <= n; ++k)
    repeat = std::max(repeat, largest_frame_difference(two.frames, k, two.frames, k + n));
  EXPECT_LE(repeat, 1e-6 * size) << "the second cycle repeats the first";
  EXPECT_LE(two.seam.seam, two.seam.inside);
  EXPECT_EQ(two.summary.find("keyed"), std::string::npos) << two.summary;  // no keys: nothing settled

  const BakedFrames plain = bake(c, walk_options("lbs,dynamic"));  // one cycle, both ends, no loop
  const SeamJump plain_seam = seam_jump(plain, bake(c, walk_options("lbs")), n);
  EXPECT_GT(plain_seam.seam, plain_seam.inside) << "without --loop the seam jumps more than any frame inside";
  std::printf("clonk Walk at 30 fps: without --loop %s\n  with --loop %s\n", plain_seam.describe(size).c_str(),
              two.seam.describe(size).c_str());
}

TEST(LoopBake, ClonkWalkExactSteadyStateEqualsFiftyCyclesOfPreRoll) {
  const Character& c = clonk();
  BakeOptions looped = walk_options("lbs,dynamic");
  looped.motion.loop = true;
  BakeOptions brute = walk_options("lbs,dynamic");
  brute.motion.pre_roll = PreRoll::parse("120");  // 50 cycles of the Walk, wrapped, run before the first frame
  const BakedFrames exact = bake(c, looped), cold = bake(c, brute);
  ASSERT_EQ(exact.positions.size(), cold.positions.size());
  EXPECT_LE(largest_difference(exact, cold), 1e-6 * c.mesh.size());
}

// Keyed parameters in a loop follow the clip time wrapped into the cycle: the keys repeat every
// cycle, and the history settles over cycles run before the first frame.
TEST(LoopBake, KeyedLoopRepeatsItsKeysAndEqualsFiftyCyclesOfPreRoll) {
  const Character& c = clonk();
  const double size = c.mesh.size();
  const std::size_t n = 72;
  const TwoCycles keyed = two_looped_cycles("lbs,dynamic", kKeyedAmplitude);
  double repeat = 0;
  for (std::size_t k = 0; k <= n; ++k)
    repeat = std::max(repeat, largest_frame_difference(keyed.frames, k, keyed.frames, k + n));
  EXPECT_LE(repeat, 1e-6 * size) << "the keyed loop's second cycle repeats the first";
  EXPECT_LE(keyed.seam.seam, keyed.seam.inside) << keyed.seam.describe(size);
  EXPECT_NE(keyed.summary.find("keyed parameters: "), std::string::npos) << keyed.summary;
  // The keys change the effect: against the same loop with the amplitude constant at 0.2.
  const TwoCycles constant = two_looped_cycles("lbs,dynamic", R"({"dynamic": {"amplitude": 0.2}})");
  EXPECT_GT(largest_frame_difference(keyed.frames, 36, constant.frames, 36), 1e-3 * size);

  // Independent: no loop, 50 cycles of pre-roll over the cycle (clip times wrapped, keys too).
  BakeOptions brute = walk_options("lbs,dynamic", kKeyedAmplitude);
  brute.motion.pre_roll = PreRoll::parse("120");
  const BakedFrames cold = bake(c, brute);
  ASSERT_EQ(cold.positions.size(), n + 1);
  double difference = 0;
  for (std::size_t k = 0; k <= n; ++k)
    difference = std::max(difference, largest_frame_difference(keyed.frames, k, cold, k));
  EXPECT_LE(difference, 1e-6 * size);
}

TEST(PreRollBake, HoldStartsFromRestAndSecondsEqualAnEarlierBakeSliced) {
  const Character& c = clonk();
  // hold (the default): a bake from the clip's first key, which starts from rest, starts with no effect.
  const BakedFrames held = bake(c, walk_options("lbs,dynamic"));
  const BakedFrames lbs = bake(c, walk_options("lbs"));
  EXPECT_EQ(held.positions[0], lbs.positions[0]);
  EXPECT_GT(largest_frame_difference(held, 20, lbs, 20), 1e-3 * c.mesh.size());
  // S: the bake from 1.0 s with 0.5 s of pre-roll equals the bake from 0.5 s, sliced at 1.0 s.
  BakeOptions rolled = walk_options("lbs,dynamic");
  rolled.start = 1.0;
  rolled.end = 1.5;
  rolled.motion.pre_roll = PreRoll::parse("0.5");
  BakeOptions earlier = walk_options("lbs,dynamic");
  earlier.start = 0.5;
  earlier.end = 1.5;
  const BakedFrames a = bake(c, rolled), b = bake(c, earlier);
  ASSERT_EQ(a.positions.size() + 15, b.positions.size());
  EXPECT_LE(largest_difference(a, b, 15), 1e-6 * c.mesh.size());
  // ... and differs from starting there with the pose held.
  BakeOptions hold_there = rolled;
  hold_there.motion.pre_roll = PreRoll{};
  EXPECT_GT(largest_frame_difference(bake(c, hold_there), 0, a, 0), 1e-3 * c.mesh.size());
}

TEST(LoopCli, LoopPreRollAndSeamFlags) {
  test::ScratchDir dir;
  const std::string clonk_file = bundled_asset("clonk.glb").string();
  const auto seam =
      test::run_wobble("bake '" + clonk_file + "' --clip Walk --fps 30 --deformer lbs,dynamic --loop --seam -o '" +
                       (dir / "loop.pc2").string() + "'");
  ASSERT_EQ(seam.exit_code, 0) << seam.output;
  EXPECT_NE(seam.output.find("seam (--loop; a cycle of 2.4 s: the last key repeats the first pose"), std::string::npos)
      << seam.output;
  EXPECT_NE(seam.output.find("loop: a cycle of 2.4 s"), std::string::npos) << seam.output;
  EXPECT_EQ(read_pc2(dir / "loop.pc2").size(), 73u);  // one cycle, both ends
  const auto not_cycle =
      test::run_wobble("bake '" + clonk_file + "' --clip BowJump --deformer lbs,dynamic --loop -q -o '" +
                       (dir / "jump.pc2").string() + "'");
  EXPECT_EQ(not_cycle.exit_code, 1);
  EXPECT_NE(not_cycle.output.find("clip 'BowJump' is not a cycle"), std::string::npos) << not_cycle.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "jump.pc2"));
  const auto forced =
      test::run_wobble("bake '" + clonk_file + "' --clip BowJump --deformer lbs,dynamic --loop-force -q -o '" +
                       (dir / "jump.pc2").string() + "'");
  EXPECT_EQ(forced.exit_code, 0) << forced.output;
  for (const char* bad : {"--pre-roll 2abc", "--pre-roll -1", "--loop-period 0", "--loop-period nan"}) {
    const auto refused = test::run_wobble("bake '" + clonk_file + "' --clip Walk --deformer lbs,dynamic " + bad +
                                          " -q -o '" + (dir / "bad.pc2").string() + "'");
    EXPECT_EQ(refused.exit_code, 1) << bad;
    EXPECT_NE(refused.output.find(std::string(bad).substr(0, std::string(bad).find(' ')) + ":"), std::string::npos)
        << bad << ": " << refused.output;
    EXPECT_FALSE(std::filesystem::exists(dir / "bad.pc2"));
  }
}
