#pragma once
// The neural skinning fields autoencoder (PhysSkin++ III-B), sized for a CPU, and the
// Simplicits-style per-object MLP used as a baseline. Internal: includes LibTorch.
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

namespace wobble::neural {

struct NetworkConfig {
  int width = 64;          // d: token and MLP width
  int latents = 32;        // M shape latent tokens
  int encoder_layers = 2;  // self-attention layers of the shape encoder
  int heads = 4;
  int handles = 8;     // m learned fields (the constant column comes on top)
  int octaves = 6;     // positional encoding frequencies 2^0 .. 2^(octaves-1)
  int mlp_blocks = 2;  // ResNet blocks (ELU) of the field decoder
  bool oni = true;     // orthogonalise the last layer by Newton's iteration
  int oni_iterations = 5;
  // The output columns [1, W] orthonormalised over the points (the batch in training, the shape's
  // cubature points at inference) instead of only scaled: see ColumnNormalization in losses.hpp.
  bool orthonormal_output = false;
  // 0, or more raw fields than handles (needs orthonormal_output): all of them are trained, and
  // each shape keeps the `handles` smoothest directions of their span (Rayleigh-Ritz over its
  // cubature points, output_transform.hpp).
  int candidate_fields = 0;
  int output_fields() const { return candidate_fields > 0 ? candidate_fields : handles; }  // raw fields

  nlohmann::json to_json() const;
  // Unknown keys and out-of-range sizes throw Error naming `source`.
  static NetworkConfig from_json(const nlohmann::json& j, const std::string& source);
};

// gamma(x) = [x, sin(2^k pi x), cos(2^k pi x)]_k for each coordinate: N x (3 + 6 K).
torch::Tensor positional_encoding(const torch::Tensor& x, int octaves);
int positional_encoding_size(int octaves);

// ONI (Huang et al. 2020): rows of V (m x n) made orthonormal by T Newton steps toward
// S^{-1/2}, S = V V^T / ||V V^T||_F: returns B_T V / sqrt(||V V^T||_F).
torch::Tensor oni(const torch::Tensor& V, int iterations);

// Pre-norm transformer block: q + MHA(LN q, LN kv), then + MLP(LN .). Sequence-first (L, 1, d).
struct AttentionBlockImpl : torch::nn::Module {
  AttentionBlockImpl(int width, int heads);
  torch::Tensor forward(const torch::Tensor& query, const torch::Tensor& context);
  torch::nn::LayerNorm norm_query{nullptr}, norm_context{nullptr}, norm_mlp{nullptr};
  torch::nn::MultiheadAttention attention{nullptr};
  torch::nn::Linear mlp_in{nullptr}, mlp_out{nullptr};
};
TORCH_MODULE(AttentionBlock);

// A field network maps query points X (N x 3, normalised frame) to raw fields (N x m).
struct SkinningNetworkImpl : torch::nn::Module {
  explicit SkinningNetworkImpl(const NetworkConfig& config);
  // Handle latents F_h (m x 1 x d) of a shape from its surface cloud (N x 6), eqs. 2-3.
  torch::Tensor encode(const torch::Tensor& surface);
  // W(X) (N x output_fields) given the handle latents, eqs. 4-5 and the ONI output layer.
  torch::Tensor fields(const torch::Tensor& handle_latents, const torch::Tensor& points);
  torch::Tensor output_weight();  // the (orthogonalised) output_fields x width last layer

  NetworkConfig config;
  torch::nn::Linear point_embed{nullptr}, query_embed{nullptr}, mlp_in{nullptr};
  torch::Tensor shape_tokens, handle_tokens, output_raw;
  AttentionBlock encoder_cross{nullptr}, decoder_self{nullptr}, handle_cross{nullptr}, point_cross{nullptr};
  torch::nn::ModuleList encoder_self{nullptr}, mlp_blocks{nullptr};
};
TORCH_MODULE(SkinningNetwork);

// Simplicits-style per-object MLP: 3 -> width x layers (ELU) -> m.
struct PerObjectMlpImpl : torch::nn::Module {
  PerObjectMlpImpl(int handles, int width = 64, int layers = 6);
  torch::Tensor forward(const torch::Tensor& points);
  torch::nn::Sequential body{nullptr};
};
TORCH_MODULE(PerObjectMlp);

// Model files: the configuration (JSON text) and the parameters in one torch archive, written
// whole or not at all (save_archive).
void save_network(SkinningNetwork& network, const std::string& path, const nlohmann::json& metadata = {});
// An archive as the file `path`, through a temporary sibling renamed into place; a failed write
// is an Error naming `path` and the system's reason ("No space left on device").
void save_archive(torch::serialize::OutputArchive& archive, const std::filesystem::path& path);
// Throws Error naming the file when it is missing or not a wobble model.
SkinningNetwork load_network(const std::string& path, nlohmann::json* metadata = nullptr);

std::int64_t parameter_count(const torch::nn::Module& module);

}  // namespace wobble::neural
