// The C API (include/wobble/wobble.h) over the C++ runtime: characters from an engine's arrays,
// deformer stacks, frames from joint world matrices. Exceptions stop here and become status codes
// plus a thread-local message (capi/guarded.hpp).
#include <wobble/wobble.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include <wobble/character.hpp>
#include <wobble/deformer.hpp>
#include <wobble/error.hpp>
#include <wobble/log.hpp>
#include <wobble/parallel.hpp>
#include <wobble/parameters.hpp>
#include <wobble/pose.hpp>

#include "capi/arrays.hpp"
#include "capi/frame_pose.hpp"
#include "capi/guarded.hpp"
#include "capi/host_motion.hpp"
#include "capi/stack_settings.hpp"
#include "core/fail.hpp"

struct wobble_stack {
  const wobble_character* owner = nullptr;
  wobble::DeformerStack stack;
  std::unique_ptr<wobble::ThreadPool> pool;
  wobble::capi::FramePose pose;
  wobble::capi::HostMotion motion;                // the host's pose sampler, if any
  std::vector<wobble::Vec3f> positions, normals;  // the stack's output, for callers' buffers with strides
  std::string settings_json;                      // wobble_stack_settings' text
  std::string rebound;                            // wobble_stack_update's answer
};

namespace wobble::capi {

std::string& last_error() {
  thread_local std::string message;
  return message;
}

}  // namespace wobble::capi

using wobble::capi::guarded;
using wobble::capi::require;

extern "C" {

const char* wobble_version(void) { return WOBBLE_VERSION; }

const char* wobble_last_error(void) { return wobble::capi::last_error().c_str(); }

wobble_status wobble_set_warning_callback(wobble_warning_callback callback, void* user_data) {
  return guarded(WOBBLE_FAILED, [&] {
    if (!callback) {
      wobble::set_warning_sink({});
      return;
    }
    wobble::set_warning_sink([callback, user_data](std::string_view message) {
      const std::string text(message);
      callback(text.c_str(), user_data);
    });
  });
}

wobble_status wobble_character_create(const wobble_skinned_mesh* mesh, wobble_character** character) {
  return guarded(WOBBLE_INVALID_ARGUMENT, [&] {
    require(character, "character (the result)");
    *character = nullptr;
    require(mesh, "mesh");
    auto created = std::make_unique<wobble_character>();
    created->character = wobble::capi::character_from_arrays(*mesh);
    *character = created.release();
  });
}

wobble_status wobble_character_destroy(wobble_character* character) {
  delete character;
  return WOBBLE_OK;
}

wobble_status wobble_character_counts(const wobble_character* character, uint32_t* vertex_count,
                                      uint32_t* joint_count) {
  return guarded(WOBBLE_INVALID_ARGUMENT, [&] {
    require(character, "character");
    if (vertex_count) *vertex_count = static_cast<uint32_t>(character->character.mesh.vertex_count());
    if (joint_count) *joint_count = static_cast<uint32_t>(character->character.rig.joint_count());
  });
}

wobble_status wobble_stack_create(const wobble_character* character, const char* stack, const char* settings_json,
                                  uint32_t threads, wobble_stack** out) {
  return guarded(WOBBLE_INVALID_ARGUMENT, [&] {
    require(out, "out (the result)");
    *out = nullptr;
    require(character, "character");
    require(stack, "stack");
    auto created = std::make_unique<wobble_stack>();
    created->owner = character;
    created->stack = wobble::capi::parse_stack(stack, settings_json);
    created->stack.bind(character->character);
    if (threads > 1) created->pool = std::make_unique<wobble::ThreadPool>(threads);
    created->pose.prepare(character->character.rig);
    *out = created.release();
  });
}

wobble_status wobble_stack_destroy(wobble_stack* stack) {
  delete stack;
  return WOBBLE_OK;
}

wobble_status wobble_stack_set_parameter(wobble_stack* stack, const char* deformer, const char* key, double value) {
  return guarded(WOBBLE_INVALID_ARGUMENT, [&] {
    require(stack, "stack");
    require(deformer, "deformer");
    require(key, "key");
    wobble::capi::set_live_parameter(stack->stack, deformer, key, value);
  });
}

wobble_status wobble_stack_set_parameter_json(wobble_stack* stack, const char* deformer, const char* key,
                                              const char* json) {
  return guarded(WOBBLE_INVALID_ARGUMENT, [&] {
    require(stack, "stack");
    require(deformer, "deformer");
    require(key, "key");
    require(json, "json");
    wobble::capi::set_live_parameter_json(stack->stack, deformer, key, json);
  });
}

wobble_status wobble_stack_settings(wobble_stack* stack, const char** json) {
  return guarded(WOBBLE_INVALID_ARGUMENT, [&] {
    require(json, "json (the result)");
    *json = nullptr;
    require(stack, "stack");
    stack->settings_json = stack->stack.settings().to_json();
    *json = stack->settings_json.c_str();
  });
}

wobble_status wobble_deformer_descriptions(const char** json) {
  return guarded(WOBBLE_INVALID_ARGUMENT, [&] {
    require(json, "json (the result)");
    static const std::string descriptions = wobble::deformer_descriptions_json();
    *json = descriptions.c_str();
  });
}

wobble_status wobble_stack_evaluate(wobble_stack* stack, const wobble_frame* frame, float* positions,
                                    size_t positions_stride, float* normals, size_t normals_stride) {
  return guarded(WOBBLE_INVALID_ARGUMENT, [&] {
    require(stack, "stack");
    require(frame, "frame");
    require(positions, "positions");
    const wobble::Character& character = stack->owner->character;
    const std::size_t position_step = wobble::capi::row_stride(positions_stride, "positions");
    const std::size_t normal_step = normals ? wobble::capi::row_stride(normals_stride, "normals") : 0;
    stack->pose.set(character.rig, *frame);
    const wobble::FrameInput input{character, stack->pose.pose, frame->time, stack->motion.sampler(character.rig),
                                   stack->pool.get()};
    const std::size_t n = character.mesh.vertex_count();
    if (position_step == sizeof(wobble::Vec3f) && (!normals || normal_step == sizeof(wobble::Vec3f))) {
      // Packed rows: straight into the caller's buffers.
      const std::span<wobble::Vec3f> out_normals(reinterpret_cast<wobble::Vec3f*>(normals), normals ? n : 0);
      stack->stack.evaluate(input, std::span<wobble::Vec3f>(reinterpret_cast<wobble::Vec3f*>(positions), n),
                            out_normals);
      return;
    }
    stack->positions.resize(n);
    stack->normals.resize(normals ? n : 0);
    stack->stack.evaluate(input, std::span<wobble::Vec3f>(stack->positions), std::span<wobble::Vec3f>(stack->normals));
    wobble::capi::copy_out(stack->positions, positions, position_step);
    if (normals) wobble::capi::copy_out(stack->normals, normals, normal_step);
  });
}

wobble_status wobble_stack_reset(wobble_stack* stack) {
  return guarded(WOBBLE_INVALID_ARGUMENT, [&] {
    require(stack, "stack");
    stack->stack.reset();
  });
}

wobble_status wobble_character_set_joint_names(wobble_character* character, const char* const* names, uint32_t count) {
  return guarded(WOBBLE_INVALID_ARGUMENT, [&] {
    require(character, "character");
    require(names, "names");
    wobble::Rig& rig = character->character.rig;
    if (count != rig.joint_count()) wobble::fail_plain("joint names: {} names for {} joints", count, rig.joint_count());
    std::vector<std::string> named;
    std::unordered_set<std::string_view> seen;
    for (uint32_t j = 0; j < count; ++j) {
      if (!names[j] || !*names[j]) wobble::fail_plain("joint names: the name of joint {} is empty", j);
      if (!seen.insert(names[j]).second) {
        wobble::fail_plain("joint names: '{}' names two joints (joint {} and an earlier one)", names[j], j);
      }
      named.emplace_back(names[j]);
    }
    rig.names = std::move(named);
  });
}

wobble_status wobble_stack_set_pose_sampler(wobble_stack* stack, wobble_pose_sampler sampler, void* user_data) {
  return guarded(WOBBLE_INVALID_ARGUMENT, [&] {
    require(stack, "stack");
    stack->motion.set(sampler, user_data, stack->owner->character.rig);
  });
}

wobble_status wobble_stack_start_periodic(wobble_stack* stack, double cycle_start, double period) {
  return guarded(WOBBLE_INVALID_ARGUMENT, [&] {
    require(stack, "stack");
    if (stack->motion.empty())
      wobble::fail_plain("start_periodic: the stack has no pose sampler (wobble_stack_set_pose_sampler)");
    if (!std::isfinite(cycle_start) || !(period > 0) || !std::isfinite(period)) {
      wobble::fail_plain("start_periodic: cycle_start {} and period {} s: both finite, the period positive",
                         cycle_start, period);
    }
    stack->stack.start_periodic(stack->motion.sampler(stack->owner->character.rig), cycle_start, period);
  });
}

wobble_status wobble_stack_update(wobble_stack* stack, const char* settings_json, const char** rebound) {
  return guarded(WOBBLE_INVALID_ARGUMENT, [&] {
    if (rebound) *rebound = nullptr;
    require(stack, "stack");
    stack->rebound = wobble::capi::update_settings(stack->stack, settings_json);
    if (rebound) *rebound = stack->rebound.c_str();
  });
}

}  // extern "C"
