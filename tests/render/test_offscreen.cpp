// Off-screen pictures: non-blank, textured, framed, changed by the effect; camera and picking.
#include <gtest/gtest.h>

#include <wobble/offline/bake.hpp>
#include <wobble/deformer.hpp>
#include <wobble/io/files.hpp>
#include <wobble/render/framing.hpp>
#include <wobble/render/offscreen.hpp>
#include <wobble/render/renderer.hpp>
#include <wobble/render/scalar_fields.hpp>

#include "render_test_context.hpp"
#include "test_util.hpp"

namespace wobble::test {
namespace {

const Character& clonk() {
  static const Character character = load_character(bundled_asset("clonk.glb"));
  return character;
}

// Renders frame `t` of the Walk clip with `stack` (played from the clip start at 30 fps so that
// the effect has history), CPU path.
RgbaImage render_walk(const std::string& stack, double t, const render::DrawOptions& options = {}) {
  require_gl();
  const Character& c = clonk();
  const std::size_t walk = c.require_clip("Walk");
  const Clip& clip = c.clips[walk];
  DeformerStack deformers = DeformerStack::parse(stack);
  deformers.bind(c);
  Pose pose;
  std::vector<Vec3f> positions, normals;
  for (double time : frame_times(clip.start(), clip.start() + t, 30)) {
    evaluate_pose(c.rig, &clip, static_cast<float>(time), pose);
    deformers.evaluate(FrameInput{c, pose, time, clip_sampler(c.rig, clip)}, positions, normals);
  }
  render::Renderer renderer;
  renderer.set_mesh(c.mesh);
  renderer.set_positions(positions, normals);
  renderer.set_skeleton(c.rig, pose);
  render::OrbitCamera camera;
  camera.frame(c.mesh.bounds(), 4.0f / 3.0f);
  render::OffscreenTarget target(320, 240);
  target.bind();
  renderer.draw(camera, 320, 240, options);
  return target.read();
}

TEST(Offscreen, CharacterIsDrawnLitAndTextured) {
  const RgbaImage image = render_walk("lbs", 0.5);
  ASSERT_EQ(image.width, 320);
  ASSERT_EQ(image.height, 240);
  const std::size_t covered = non_background_pixels(image);
  EXPECT_GT(covered, 320u * 240u / 20) << "the character should cover a good part of a framed picture";
  EXPECT_LT(covered, 320u * 240u * 9 / 10);
  // Without the texture the picture changes (clonk has a base-colour texture).
  render::DrawOptions untextured;
  untextured.textures = false;
  EXPECT_GT(differing_pixels(image, render_walk("lbs", 0.5, untextured)), 320u * 240u / 50);
}

TEST(Offscreen, GridAndSkeletonAddLines) {
  render::DrawOptions bare;
  bare.grid = false;
  bare.mesh = false;
  const RgbaImage empty = render_walk("lbs", 0.2, bare);
  EXPECT_EQ(non_background_pixels(empty), 0u);
  render::DrawOptions grid = bare;
  grid.grid = true;
  EXPECT_GT(non_background_pixels(render_walk("lbs", 0.2, grid)), 500u);
  render::DrawOptions skeleton = bare;
  skeleton.skeleton = true;
  EXPECT_GT(non_background_pixels(render_walk("lbs", 0.2, skeleton)), 100u);
}

TEST(Offscreen, DynamicSkinningChangesThePicture) {
  const RgbaImage lbs = render_walk("lbs", 0.8);
  const RgbaImage dynamic = render_walk("lbs,dynamic", 0.8);
  const RgbaImage again = render_walk("lbs", 0.8);
  EXPECT_EQ(differing_pixels(lbs, again, 0), 0u) << "rendering is deterministic";
  EXPECT_GT(differing_pixels(lbs, dynamic), 200u);
}

TEST(Offscreen, HeatMapColoursBySkinWeight) {
  require_gl();
  const Character& c = clonk();
  render::Renderer renderer;
  renderer.set_mesh(c.mesh);
  const std::vector<float> field = render::skin_weight_field(c.skin, c.skin.joints[0]);
  renderer.set_scalars(field);
  render::OrbitCamera camera;
  camera.frame(c.mesh.bounds(), 1.0f);
  render::OffscreenTarget target(200, 200);
  render::DrawOptions options;
  options.heat_map = true;
  options.grid = false;
  target.bind();
  renderer.draw(camera, 200, 200, options);
  const RgbaImage heat = target.read();
  options.heat_map = false;
  target.bind();
  renderer.draw(camera, 200, 200, options);
  EXPECT_GT(differing_pixels(heat, target.read()), 1000u);
}

TEST(Camera, FramingKeepsTheBoxInView) {
  const Eigen::AlignedBox3f box(Vec3f(-1, 0, -0.5f), Vec3f(1, 3, 0.5f));
  for (float yaw : {0.0f, 1.0f, 2.5f}) {
    render::OrbitCamera camera;
    camera.yaw = yaw;
    camera.frame(box, 16.0f / 9.0f);
    const Mat4f vp = camera.view_projection(16.0f / 9.0f);
    for (int corner = 0; corner < 8; ++corner) {
      const render::ScreenPoint p =
          render::project(vp, box.corner(static_cast<Eigen::AlignedBox3f::CornerType>(corner)), 1600, 900);
      ASSERT_TRUE(p.in_front);
      EXPECT_GE(p.pixel.x(), 0);
      EXPECT_LE(p.pixel.x(), 1600);
      EXPECT_GE(p.pixel.y(), 0);
      EXPECT_LE(p.pixel.y(), 900);
    }
    // The target projects to the centre.
    const render::ScreenPoint centre = render::project(vp, box.center(), 1600, 900);
    EXPECT_NEAR(centre.pixel.x(), 800, 1e-2);
    EXPECT_NEAR(centre.pixel.y(), 450, 1e-2);
  }
}

TEST(Camera, PickJointFindsTheNearestProjection) {
  render::OrbitCamera camera;
  camera.yaw = 0;
  camera.pitch = 0;
  camera.target = Vec3f::Zero();
  camera.distance = 5;
  const Mat4f vp = camera.view_projection(1.0f);
  const std::vector<Vec3f> joints = {Vec3f(0, 0, 0), Vec3f(1, 0, 0), Vec3f(0, 1, 0), Vec3f(0, 0, 10)};
  // Looking along -Z from +Z: +X is to the right, +Y up; the joint at z = 10 is behind the camera.
  const render::ScreenPoint right = render::project(vp, joints[1], 400, 400);
  EXPECT_GT(right.pixel.x(), 200);
  EXPECT_EQ(render::pick_joint(joints, vp, 400, 400, right.pixel + Vec2f(3, -2)), 1);
  EXPECT_EQ(render::pick_joint(joints, vp, 400, 400, Vec2f(200, 200)), 0);
  EXPECT_EQ(render::pick_joint(joints, vp, 400, 400, Vec2f(20, 380)), -1);
}

TEST(FollowFraming, TargetFollowsAndDistanceNeverShrinks) {
  render::OrbitCamera camera;
  render::FollowFraming framing;
  framing.update(Eigen::AlignedBox3f(Vec3f(-1, 0, -1), Vec3f(1, 2, 1)), 1.0f, camera);
  const float first = camera.distance;
  framing.update(Eigen::AlignedBox3f(Vec3f(4, 0, -0.5f), Vec3f(5, 1, 0.5f)), 1.0f, camera);
  EXPECT_NEAR(camera.target.x(), 4.5f, 1e-5);
  EXPECT_FLOAT_EQ(camera.distance, first);
}

TEST(Image, LabelsAndCompositionArePixelExact) {
  RgbaImage a(10, 8, 0xff0000ff), b(10, 8, 0x00ff00ff);
  const RgbaImage both = side_by_side({a, b});
  ASSERT_EQ(both.width, 20);
  EXPECT_EQ(both.at(9, 7)[0], 255);
  EXPECT_EQ(both.at(10, 0)[1], 255);
  EXPECT_EQ(both.at(10, 0)[0], 0);
  RgbaImage canvas(120, 40, 0x000000ff);
  canvas.draw_label("Hi", 10, 10, 2);
  std::size_t white = 0;
  for (std::size_t i = 0; i < canvas.pixels.size(); i += 4) white += canvas.pixels[i] == 255;
  EXPECT_GT(white, 20u);
  const Vec2f size = RgbaImage::label_size("Hi", 2);
  EXPECT_GT(size.x(), 4);
  const auto png = encode_png(canvas);
  const RgbaImage decoded = decode_image(png, "test");
  EXPECT_EQ(decoded.pixels, canvas.pixels);
}

}  // namespace
}  // namespace wobble::test
