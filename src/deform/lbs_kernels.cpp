// Linear blend skinning on the SIMD layer, compiled once per instruction set. The blended matrix
// is kept as four columns in two eight-lane registers (columns 0-1, columns 2-3) read straight
// from the column-major Mat4f palette.
#include "deform/lbs_kernels.hpp"

#include "simd/simd.hpp"

namespace wobble::lbs_kernels::WOBBLE_SIMD_ISA {

using namespace wobble::simd::WOBBLE_SIMD_ISA;

namespace {

template <std::uint32_t kWidth>
void run_width(const LbsJob& job, std::size_t begin, std::size_t end) {
  const std::uint32_t width = kWidth ? kWidth : job.skin->width;
  const float* palette = job.skinning_matrices.data()->data();
  const std::uint16_t* joints = job.skin->joints.data();
  const float* weights = job.skin->weights.data();
  const float* in_p = job.in_positions.data()->data();
  float* out_p = job.out_positions.data()->data();
  const bool with_normals = !job.in_normals.empty();
  const float* in_n = with_normals ? job.in_normals.data()->data() : nullptr;
  float* out_n = with_normals ? job.out_normals.data()->data() : nullptr;
  const bool normalize = job.normalize_normals;

  for (std::size_t v = begin; v < end; ++v) {
    f32x8 c01 = f32x8::zero(), c23 = f32x8::zero();
    for (std::uint32_t k = 0; k < width; ++k) {
      const f32x8 w = f32x8::splat(weights[v * width + k]);
      const float* m = palette + 16 * joints[v * width + k];
      c01 = fma(w, f32x8::load(m), c01);
      c23 = fma(w, f32x8::load(m + 8), c23);
    }
    const f32x4 c0 = c01.low(), c1 = c01.high(), c2 = c23.low(), c3 = c23.high();
    const float* p = in_p + 3 * v;
    const f32x4 r = fma(c2, f32x4::splat(p[2]), fma(c1, f32x4::splat(p[1]), fma(c0, f32x4::splat(p[0]), c3)));
    f32x4 rn = f32x4::zero();
    if (with_normals) {
      const float* n = in_n + 3 * v;
      rn = fma(c2, f32x4::splat(n[2]), fma(c1, f32x4::splat(n[1]), c0 * f32x4::splat(n[0])));
      if (normalize) {
        const f32x4 length = sqrt(dot3(rn, rn));
        rn = select(length > f32x4::zero(), rn / length, rn);
      }
    }
    if (v + 1 < end) {
      // A 4-wide store writes one float into the next vertex, which the next iteration rewrites.
      r.store(out_p + 3 * v);
      if (with_normals) rn.store(out_n + 3 * v);
    } else {
      // The range's last vertex: never touch memory past it (it may belong to another thread).
      r.store3(out_p + 3 * v);
      if (with_normals) rn.store3(out_n + 3 * v);
    }
  }
}

void run(const LbsJob& job, std::size_t begin, std::size_t end) {
  switch (job.skin->width) {
    case 1: return run_width<1>(job, begin, end);
    case 2: return run_width<2>(job, begin, end);
    case 3: return run_width<3>(job, begin, end);
    case 4: return run_width<4>(job, begin, end);
    case 6: return run_width<6>(job, begin, end);  // delayed LBS: three influences at two delay classes
    case 8: return run_width<8>(job, begin, end);
    default: return run_width<0>(job, begin, end);
  }
}

}  // namespace

extern const Table table = {run};

}  // namespace wobble::lbs_kernels::WOBBLE_SIMD_ISA
