// Torch-free neural field models (.wfield, `--neural-model`, the viewer's physics mode): the
// container (parse_field_network_file), then the layer program built from its description and
// checked against the tensors (FieldNetwork), then one small shape encoded and four points
// evaluated with gradients. The input is the whole file.
#include <array>
#include <span>

#include <wobble/fields/field_network.hpp>

#include "../fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string source = "model.wfield";
  wobble::fuzz::expect_clean(
      [&] {
        const wobble::fields::FieldNetworkFile file = wobble::fields::parse_field_network_file({data, size}, source);
        const wobble::fields::FieldNetwork network(file, source, 1);
        Eigen::MatrixXf surface(8, 6);
        for (int i = 0; i < 8; ++i)  // a cube's corners with outward normals
          surface.row(i) << (i & 1 ? 1.f : -1.f), (i & 2 ? 1.f : -1.f), (i & 4 ? 1.f : -1.f), (i & 1 ? .577f : -.577f),
              (i & 2 ? .577f : -.577f), (i & 4 ? .577f : -.577f);
        const auto shape = network.encode(surface);
        const std::array<wobble::Vec3d, 4> points{wobble::Vec3d(0, 0, 0), wobble::Vec3d(0.5, 0, 0),
                                                  wobble::Vec3d(0, -0.5, 0.25), wobble::Vec3d(1, 1, 1)};
        Eigen::MatrixXd W;
        std::array<Eigen::MatrixXd, 3> gradient;
        network.raw_fields(*shape, points, W, &gradient);
      },
      source);
  return 0;
}
