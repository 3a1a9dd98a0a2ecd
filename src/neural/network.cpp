// Network layers of the neural skinning fields (PhysSkin++ III-B; METHOD_NOTES §3).
#include "network.hpp"

#include <cmath>
#include <filesystem>
#include <numbers>

#include <wobble/error.hpp>
#include <wobble/io/atomic_file.hpp>
#include <wobble/io/output_file.hpp>

#include "core/fail.hpp"

namespace wobble::neural {

namespace {

template <typename T>
void read_key(const nlohmann::json& j, const char* key, T& value, const std::string& source) {
  if (!j.contains(key)) return;
  try {
    value = j.at(key).get<T>();
  } catch (const nlohmann::json::exception&) {
    fail(source, "network key '{}' has the wrong type", key);
  }
}

}  // namespace

nlohmann::json NetworkConfig::to_json() const {
  return {{"width", width},
          {"latents", latents},
          {"encoder_layers", encoder_layers},
          {"heads", heads},
          {"handles", handles},
          {"octaves", octaves},
          {"mlp_blocks", mlp_blocks},
          {"oni", oni},
          {"oni_iterations", oni_iterations},
          {"orthonormal_output", orthonormal_output},
          {"candidate_fields", candidate_fields}};
}

NetworkConfig NetworkConfig::from_json(const nlohmann::json& j, const std::string& source) {
  NetworkConfig c;
  if (!j.is_object()) fail(source, "'network' must be an object");
  for (const auto& [key, value] : j.items())
    if (!c.to_json().contains(key)) fail(source, "unknown network key '{}'", key);
  read_key(j, "width", c.width, source);
  read_key(j, "latents", c.latents, source);
  read_key(j, "encoder_layers", c.encoder_layers, source);
  read_key(j, "heads", c.heads, source);
  read_key(j, "handles", c.handles, source);
  read_key(j, "octaves", c.octaves, source);
  read_key(j, "mlp_blocks", c.mlp_blocks, source);
  read_key(j, "oni", c.oni, source);
  read_key(j, "oni_iterations", c.oni_iterations, source);
  read_key(j, "orthonormal_output", c.orthonormal_output, source);
  read_key(j, "candidate_fields", c.candidate_fields, source);
  if (c.width < 4 || c.width > 1024 || c.heads < 1 || c.width % c.heads != 0)
    fail(source, "network width must be in [4, 1024] and divisible by heads");
  if (c.latents < 1 || c.handles < 1 || c.handles > 256 || c.octaves < 0 || c.octaves > 16 || c.encoder_layers < 0 ||
      c.mlp_blocks < 0 || c.oni_iterations < 1)
    fail(source, "network sizes out of range (latents >= 1, 1 <= handles <= 256, 0 <= octaves <= 16)");
  if (c.candidate_fields != 0 && (c.candidate_fields <= c.handles || !c.orthonormal_output))
    fail(source, "candidate_fields ({}) must be 0, or above handles ({}) with orthonormal_output", c.candidate_fields,
         c.handles);
  if (c.output_fields() > c.width)
    fail(source, "the {} output fields cannot exceed width ({}) with orthonormal output rows", c.output_fields(),
         c.width);
  return c;
}

int positional_encoding_size(int octaves) { return 3 + 6 * octaves; }

torch::Tensor positional_encoding(const torch::Tensor& x, int octaves) {
  std::vector<torch::Tensor> parts{x};
  for (int k = 0; k < octaves; ++k) {
    const torch::Tensor scaled = x * (std::ldexp(1.0, k) * std::numbers::pi);
    parts.push_back(torch::sin(scaled));
    parts.push_back(torch::cos(scaled));
  }
  return torch::cat(parts, 1);
}

torch::Tensor oni(const torch::Tensor& V, int iterations) {
  const auto m = V.size(0);
  const torch::Tensor eye = torch::eye(m, V.options());
  torch::Tensor S = torch::mm(V, V.t()) + 1e-5 * eye;
  const torch::Tensor norm = S.norm();
  S = S / norm;
  torch::Tensor B = eye;
  for (int t = 0; t < iterations; ++t) B = 1.5 * B - 0.5 * torch::mm(torch::matrix_power(B, 3), S);
  return torch::mm(B, V) / torch::sqrt(norm);
}

AttentionBlockImpl::AttentionBlockImpl(int width, int heads) {
  norm_query = register_module("norm_query", torch::nn::LayerNorm(torch::nn::LayerNormOptions({width})));
  norm_context = register_module("norm_context", torch::nn::LayerNorm(torch::nn::LayerNormOptions({width})));
  norm_mlp = register_module("norm_mlp", torch::nn::LayerNorm(torch::nn::LayerNormOptions({width})));
  attention =
      register_module("attention", torch::nn::MultiheadAttention(torch::nn::MultiheadAttentionOptions(width, heads)));
  mlp_in = register_module("mlp_in", torch::nn::Linear(width, 2 * width));
  mlp_out = register_module("mlp_out", torch::nn::Linear(2 * width, width));
}

torch::Tensor AttentionBlockImpl::forward(const torch::Tensor& query, const torch::Tensor& context) {
  const torch::Tensor kv = norm_context(context);
  torch::Tensor x =
      query + std::get<0>(attention->forward(norm_query(query), kv, kv, torch::Tensor(), /*need_weights=*/false));
  return x + mlp_out(torch::gelu(mlp_in(norm_mlp(x))));
}

SkinningNetworkImpl::SkinningNetworkImpl(const NetworkConfig& c) : config(c) {
  const int d = c.width, pe = positional_encoding_size(c.octaves);
  point_embed = register_module("point_embed", torch::nn::Linear(pe + 3, d));
  query_embed = register_module("query_embed", torch::nn::Linear(pe, d));
  shape_tokens = register_parameter("shape_tokens", 0.5 * torch::randn({c.latents, 1, d}));
  handle_tokens = register_parameter("handle_tokens", 0.5 * torch::randn({c.output_fields(), 1, d}));
  encoder_cross = register_module("encoder_cross", AttentionBlock(d, c.heads));
  encoder_self = register_module("encoder_self", torch::nn::ModuleList());
  for (int l = 0; l < c.encoder_layers; ++l) encoder_self->push_back(AttentionBlock(d, c.heads));
  decoder_self = register_module("decoder_self", AttentionBlock(d, c.heads));
  handle_cross = register_module("handle_cross", AttentionBlock(d, c.heads));
  point_cross = register_module("point_cross", AttentionBlock(d, c.heads));
  mlp_in = register_module("mlp_in", torch::nn::Linear(d + pe, d));
  mlp_blocks = register_module("mlp_blocks", torch::nn::ModuleList());
  for (int b = 0; b < c.mlp_blocks; ++b) {
    mlp_blocks->push_back(torch::nn::Linear(d, d));
    mlp_blocks->push_back(torch::nn::Linear(d, d));
  }
  // Rows start orthonormal (a random orthogonal matrix), so ONI starts near its fixed point.
  output_raw = register_parameter(
      "output", std::get<0>(torch::linalg::qr(torch::randn({d, c.output_fields()}))).t().contiguous());
}

torch::Tensor SkinningNetworkImpl::encode(const torch::Tensor& surface) {
  const torch::Tensor positions = surface.slice(1, 0, 3), normals = surface.slice(1, 3, 6);
  const torch::Tensor points =
      point_embed(torch::cat({positional_encoding(positions, config.octaves), normals}, 1)).unsqueeze(1);
  torch::Tensor latents = encoder_cross(shape_tokens, points);
  for (const auto& layer : *encoder_self) latents = layer->as<AttentionBlock>()->forward(latents, latents);
  latents = decoder_self(latents, latents);
  return handle_cross(handle_tokens, latents);
}

torch::Tensor SkinningNetworkImpl::output_weight() {
  return config.oni ? oni(output_raw, config.oni_iterations) : output_raw;
}

torch::Tensor SkinningNetworkImpl::fields(const torch::Tensor& handle_latents, const torch::Tensor& points) {
  const torch::Tensor gamma = positional_encoding(points, config.octaves);
  // Each point is its own query of length 1 (batch = points), attending to the m handle latents.
  const auto n = points.size(0);
  const torch::Tensor query = query_embed(gamma).unsqueeze(0);  // 1 x N x d
  const torch::Tensor context = handle_latents.expand({handle_latents.size(0), n, config.width});
  const torch::Tensor feature = point_cross(query, context).squeeze(0);  // N x d
  torch::Tensor h = mlp_in(torch::cat({feature, gamma}, 1));
  for (std::size_t b = 0; b + 1 < mlp_blocks->size(); b += 2) {
    const torch::Tensor inner = mlp_blocks[b]->as<torch::nn::Linear>()->forward(torch::elu(h));
    h = h + mlp_blocks[b + 1]->as<torch::nn::Linear>()->forward(torch::elu(inner));
  }
  return torch::mm(torch::elu(h), output_weight().t());
}

PerObjectMlpImpl::PerObjectMlpImpl(int handles, int width, int layers) {
  body = register_module("body", torch::nn::Sequential());
  body->push_back(torch::nn::Linear(3, width));
  for (int l = 0; l < layers; ++l) {
    body->push_back(torch::nn::ELU());
    body->push_back(torch::nn::Linear(width, width));
  }
  body->push_back(torch::nn::ELU());
  body->push_back(torch::nn::Linear(width, handles));
}

torch::Tensor PerObjectMlpImpl::forward(const torch::Tensor& points) { return body->forward(points); }

void save_network(SkinningNetwork& network, const std::string& path, const nlohmann::json& metadata) {
  torch::serialize::OutputArchive archive;
  network->save(archive);
  nlohmann::json header = {{"format", "wobble-neural-fields"},
                           {"version", 1},
                           {"network", network->config.to_json()},
                           {"metadata", metadata}};
  archive.write("wobble_header", c10::IValue(header.dump()));
  save_archive(archive, path);
}

void save_archive(torch::serialize::OutputArchive& archive, const std::filesystem::path& path) {
  AtomicOutput output(path);
  OutputFile file(output.temporary(), output.target());
  try {
    // Every count is reported written: torch's writer (1.13) throws on a short count from its
    // destructor too, which terminates. After the first failure the rest is dropped, and the
    // reason stays with `file` for close() below.
    archive.save_to([&](const void* data, std::size_t size) {
      file.try_write(data, size);
      return size;
    });
  } catch (const c10::Error& error) {
    if (file.failed()) file.fail_with_reason();
    const std::string reason = error.what_without_backtrace();
    fail(path, "cannot write the torch archive: {}", reason.substr(0, reason.find('\n')));
  }
  file.close();
  output.commit();
}

SkinningNetwork load_network(const std::string& path, nlohmann::json* metadata) {
  if (!std::filesystem::is_regular_file(path)) fail(path, "model file not found");
  torch::serialize::InputArchive archive;
  try {
    archive.load_from(path);
  } catch (const c10::Error&) {
    fail(path, "not a torch archive (corrupt or not a wobble model)");
  }
  c10::IValue header_value;
  if (!archive.try_read("wobble_header", header_value) || !header_value.isString())
    fail(path, "not a wobble neural fields model (no header)");
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(header_value.toStringRef());
  } catch (const nlohmann::json::exception&) {
    fail(path, "model header is not valid JSON");
  }
  // Compared as JSON values, so that a header of the wrong shape is named, not a JSON type error.
  if (!header.is_object() || !header.contains("format") || header["format"] != "wobble-neural-fields")
    fail(path, "not a wobble neural fields model");
  if (!header.contains("network") || !header["network"].is_object()) fail(path, "model header has no 'network' object");
  SkinningNetwork network(NetworkConfig::from_json(header["network"], path));
  try {
    network->load(archive);
  } catch (const c10::Error&) {
    fail(path, "model parameters do not match its configuration");
  }
  network->eval();
  if (metadata)
    *metadata =
        header.contains("metadata") && header["metadata"].is_object() ? header["metadata"] : nlohmann::json::object();
  return network;
}

std::int64_t parameter_count(const torch::nn::Module& module) {
  std::int64_t count = 0;
  for (const auto& p : module.parameters()) count += p.numel();
  return count;
}

}  // namespace wobble::neural
