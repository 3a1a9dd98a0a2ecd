// 3D Gaussian splatting PLY files, as `wobble simulate splats.ply` reads them.
#include <cmath>

#include <wobble/physics/gaussians.hpp>

#include "../fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = wobble::fuzz::input_file("input.ply", data, size);
  wobble::fuzz::expect_clean(
      [&] {
        if (!wobble::physics::is_gaussian_ply(path)) return;
        const wobble::physics::GaussianCloud cloud = wobble::physics::read_gaussian_ply(path);
        for (std::size_t i = 0; i < cloud.count(); ++i) {
          if (!cloud.center(i).allFinite()) wobble::fuzz::finding("a Gaussian centre that is not finite");
        }
      },
      path.string());
  return 0;
}
