// The torch-free neural fields network: the two stages of a .wfield description built into layer
// lists, the per-shape encoding, and the field stage over many points in fixed chunks on a pool.
#include <wobble/fields/field_network.hpp>

#include <wobble/error.hpp>
#include <wobble/parallel.hpp>

#include "field_layers.hpp"
#include "field_output.hpp"
#include "core/fail.hpp"

namespace wobble::fields {

namespace {

using nlohmann::json;
using namespace field_layers;

constexpr std::size_t kChunkPoints = 128;  // points per task: the stacked activations stay in cache
constexpr int kSurfaceWidth = 6, kPointWidth = 3;

const json& section(const json& description, const char* key, const std::string& source) {
  if (!description.contains(key) || !description[key].is_object())
    fail(source, "the description needs an object '{}'", key);
  return description[key];
}

int count_key(const json& j, const char* key, int low, int high, const std::string& source, const std::string& where) {
  if (!j.contains(key) || !j[key].is_number_integer() || j[key].get<std::int64_t>() < low ||
      j[key].get<std::int64_t>() > high)
    fail(source, "{}: '{}' must be an integer in [{}, {}]", where, key, low, high);
  return j[key].get<int>();
}

}  // namespace

struct FieldNetwork::Program {
  Layers layers;
  std::vector<const Attention*> constant_attention;  // field stage: contexts from the encoder
  std::string output;                                // encoder stage: the register it leaves
};

struct FieldNetwork::Shape {
  ShapeConstants constants;
};

FieldNetwork::FieldNetwork(const FieldNetworkFile& file, std::string source, std::size_t threads)
    : source_(std::move(source)), description_(file.description) {
  handles_ = count_key(description_, "handles", 1, 4096, source_, "description");
  const json& sampling = section(description_, "shape_sample", source_);
  sample_options_.surface_points = count_key(sampling, "surface_points", 1, 1 << 20, source_, "shape_sample");
  sample_options_.cubature_points = count_key(sampling, "cubature_points", 1, 1 << 20, source_, "shape_sample");
  sample_options_.grid_resolution = count_key(sampling, "grid_resolution", 2, 256, source_, "shape_sample");
  sample_seed_ = static_cast<std::uint64_t>(count_key(sampling, "seed", 0, 1 << 30, source_, "shape_sample"));

  const json& encoder = section(description_, "encoder", source_);
  encoder_ = std::make_unique<Program>();
  Builder encoder_builder(file, source_, /*field_stage=*/false);
  int width = kSurfaceWidth;
  encoder_->layers = encoder_builder.build(encoder.contains("layers") ? encoder["layers"] : json(), width, "encoder");
  if (!encoder.contains("output") || !encoder["output"].is_string()) fail(source_, "encoder: needs a string 'output'");
  encoder_->output = encoder["output"].get<std::string>();
  std::map<std::string, int> encoder_registers = encoder_builder.register_widths();
  encoder_registers[encoder_->output] = width;

  field_ = std::make_unique<Program>();
  Builder field_builder(file, source_, /*field_stage=*/true, encoder_registers);
  width = kPointWidth;
  const json& field = section(description_, "field", source_);
  field_->layers = field_builder.build(field.contains("layers") ? field["layers"] : json(), width, "field");
  raw_fields_ = width;
  output_ = std::make_unique<FieldOutputOptions>(FieldOutputOptions::from_json(
      description_.contains("output_normalization") ? description_["output_normalization"] : json(), raw_fields_,
      handles_, source_));
  field_->constant_attention = field_builder.constant_attention();
  for (const auto& [name, tensor] : file.tensors) parameters_ += static_cast<std::int64_t>(tensor.values.size());
  pool_ = std::make_unique<ThreadPool>(threads);
}

FieldNetwork::~FieldNetwork() = default;

std::shared_ptr<const FieldNetwork> FieldNetwork::load(const std::filesystem::path& path, std::size_t threads) {
  return std::make_shared<const FieldNetwork>(read_field_network_file(path), path.string(), threads);
}

std::shared_ptr<const FieldNetwork::Shape> FieldNetwork::encode(const Eigen::MatrixXf& surface) const {
  if (surface.cols() != kSurfaceWidth || surface.rows() < 1)
    fail(source_, "the shape encoder takes N x {} surface points (position, normal), got {} x {}", kSurfaceWidth,
         surface.rows(), surface.cols());
  Dual x{surface, surface.rows(), 1};
  auto shape = std::make_shared<Shape>();
  Registers& registers = shape->constants.registers;
  run(encoder_->layers, x, registers, nullptr);
  registers[encoder_->output] = std::move(x);
  for (const Attention* attention : field_->constant_attention)
    shape->constants.attention.push_back(attention_keys(*attention, registers));
  return shape;
}

void FieldNetwork::raw_fields(const Shape& shape, std::span<const Vec3d> points, Eigen::MatrixXd& W,
                              std::array<Eigen::MatrixXd, 3>* gradient) const {
  const auto n = static_cast<Eigen::Index>(points.size());
  W.resize(n, raw_fields_);
  if (gradient)
    for (Eigen::MatrixXd& d : *gradient) d.resize(n, raw_fields_);
  auto chunk = [&](std::size_t begin, std::size_t end) {
    const auto count = static_cast<Eigen::Index>(end - begin), first = static_cast<Eigen::Index>(begin);
    Dual x;
    x.n = count;
    x.parts = gradient ? 4 : 1;
    x.data = Rows::Zero(x.parts * count, kPointWidth);
    for (Eigen::Index p = 0; p < count; ++p) {
      x.data.row(p) = points[begin + static_cast<std::size_t>(p)].cast<float>().transpose();
      for (int c = 0; c + 1 < x.parts; ++c) x.data((c + 1) * count + p, c) = 1;  // d x / d x_c = e_c
    }
    Registers registers;
    run(field_->layers, x, registers, &shape.constants);
    W.middleRows(first, count) = x.data.topRows(count).cast<double>();
    if (gradient)
      for (int c = 0; c < 3; ++c)
        (*gradient)[c].middleRows(first, count) = x.data.middleRows((c + 1) * count, count).cast<double>();
  };
  std::lock_guard lock(pool_mutex_);
  pool_->parallel_for(points.size(), kChunkPoints, chunk);
}

}  // namespace wobble::fields
