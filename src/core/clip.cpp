#include <wobble/clip.hpp>

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

namespace wobble {

const char* to_string(Interpolation interpolation) {
  switch (interpolation) {
    case Interpolation::Step: return "STEP";
    case Interpolation::Linear: return "LINEAR";
    case Interpolation::CubicSpline: return "CUBICSPLINE";
  }
  return "?";
}

const char* to_string(ChannelPath path) {
  switch (path) {
    case ChannelPath::Translation: return "translation";
    case ChannelPath::Rotation: return "rotation";
    case ChannelPath::Scale: return "scale";
  }
  return "?";
}

namespace {

// Value of key k (for CUBICSPLINE, the middle of its in-tangent/value/out-tangent triple).
const float* key_value(const Channel& c, std::size_t k) {
  const int n = c.components();
  return c.interpolation == Interpolation::CubicSpline ? &c.values[(3 * k + 1) * n] : &c.values[k * n];
}

void normalize_quaternion(float* q) {
  const float length = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (length > 0) {
    for (int i = 0; i < 4; ++i) q[i] /= length;
  }
}

}  // namespace

void Channel::sample(float t, float* out) const {
  const int n = components();
  const std::size_t keys = times.size();
  if (keys == 0) return;
  if (t <= times.front() || keys == 1) {
    std::copy_n(key_value(*this, 0), n, out);
    return;
  }
  if (t >= times.back()) {
    std::copy_n(key_value(*this, keys - 1), n, out);
    return;
  }
  // Key interval [k, k+1] containing t.
  const std::size_t k = static_cast<std::size_t>(std::upper_bound(times.begin(), times.end(), t) - times.begin()) - 1;
  const float t0 = times[k], t1 = times[k + 1];
  const float td = t1 - t0;
  const float u = (t - t0) / td;
  switch (interpolation) {
    case Interpolation::Step: std::copy_n(key_value(*this, k), n, out); return;
    case Interpolation::Linear: {
      const float* a = key_value(*this, k);
      const float* b = key_value(*this, k + 1);
      if (path == ChannelPath::Rotation) {
        const Quatf q = slerp_shortest(Quatf(a[3], a[0], a[1], a[2]), Quatf(b[3], b[0], b[1], b[2]), u);
        out[0] = q.x(), out[1] = q.y(), out[2] = q.z(), out[3] = q.w();
      } else {
        for (int i = 0; i < n; ++i) out[i] = a[i] + u * (b[i] - a[i]);
      }
      return;
    }
    case Interpolation::CubicSpline: {
      // glTF 2.0, Appendix C: p(u) = (2u^3 - 3u^2 + 1) v_k + td (u^3 - 2u^2 + u) b_k
      //                             + (-2u^3 + 3u^2) v_k+1 + td (u^3 - u^2) a_k+1
      const float* v0 = &values[(3 * k + 1) * n];
      const float* b0 = &values[(3 * k + 2) * n];    // out-tangent of key k
      const float* a1 = &values[(3 * (k + 1)) * n];  // in-tangent of key k+1
      const float* v1 = &values[(3 * (k + 1) + 1) * n];
      const float u2 = u * u, u3 = u2 * u;
      const float h00 = 2 * u3 - 3 * u2 + 1, h10 = td * (u3 - 2 * u2 + u);
      const float h01 = -2 * u3 + 3 * u2, h11 = td * (u3 - u2);
      for (int i = 0; i < n; ++i) out[i] = h00 * v0[i] + h10 * b0[i] + h01 * v1[i] + h11 * a1[i];
      if (path == ChannelPath::Rotation) normalize_quaternion(out);
      return;
    }
  }
}

namespace {
// The earliest and latest key times of any channel ({0, 0} when there are none).
std::pair<float, float> key_time_span(const std::vector<Channel>& channels) {
  std::pair<float, float> span{0.0f, 0.0f};
  bool any = false;
  for (const Channel& c : channels) {
    if (c.times.empty()) continue;
    span.first = any ? std::min(span.first, c.times.front()) : c.times.front();
    span.second = any ? std::max(span.second, c.times.back()) : c.times.back();
    any = true;
  }
  return span;
}
}  // namespace

float Clip::start() const { return key_time_span(channels).first; }

float Clip::end() const { return key_time_span(channels).second; }

std::size_t Clip::key_count() const {
  std::size_t result = 0;
  for (const Channel& c : channels) result += c.times.size();
  return result;
}

}  // namespace wobble
