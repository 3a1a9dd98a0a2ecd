// SkinningNetwork -> .wfield: the layers of encode() and fields() in the evaluator's terms, with
// the tensors they use (docs/neural.md, "The .wfield format").
#include "field_export.hpp"

#include <wobble/error.hpp>
#include <wobble/neural/field_export.hpp>
#include <wobble/fields/shape_sample.hpp>

#include "output_transform.hpp"
#include "core/fail.hpp"

namespace wobble::neural {

namespace {

using nlohmann::json;

// Collects the tensors the layers name, by their torch parameter names.
class TensorWriter {
 public:
  explicit TensorWriter(SkinningNetwork& network) {
    for (const auto& item : network->named_parameters()) parameters_[item.key()] = item.value();
  }
  // The parameter `name`, optionally reshaped; returns its name for the layer's JSON.
  std::string add(const std::string& name, std::vector<std::int64_t> shape = {}) {
    const auto found = parameters_.find(name);
    if (found == parameters_.end()) fail_plain("fields export: the network has no parameter '{}'", name);
    return add(name, shape.empty() ? found->second : found->second.reshape(shape));
  }
  std::string add(const std::string& name, const torch::Tensor& tensor) {
    const torch::Tensor t = tensor.detach().to(torch::kFloat32).contiguous();
    fields::FieldTensor& out = file.tensors[name];
    out.shape.assign(t.sizes().begin(), t.sizes().end());
    out.values.assign(t.data_ptr<float>(), t.data_ptr<float>() + t.numel());
    return name;
  }
  fields::FieldNetworkFile file;

 private:
  std::map<std::string, torch::Tensor> parameters_;
};

json linear(TensorWriter& w, const std::string& prefix) {
  return {{"op", "linear"}, {"weight", w.add(prefix + ".weight")}, {"bias", w.add(prefix + ".bias")}};
}

json layer_norm(TensorWriter& w, const std::string& prefix, const torch::nn::LayerNorm& norm) {
  return {{"op", "layer_norm"},
          {"weight", w.add(prefix + ".weight")},
          {"bias", w.add(prefix + ".bias")},
          {"eps", norm->options.eps()}};
}

json activation(const char* function) { return {{"op", "activation"}, {"function", function}}; }

// AttentionBlockImpl::forward: x = q + MHA(LN q, LN c, LN c); x + mlp_out(gelu(mlp_in(LN x))).
void attention_block(TensorWriter& w, json& layers, const std::string& prefix, AttentionBlockImpl& block,
                     const std::string& context, int heads) {
  const std::string a = prefix + ".attention.";
  json attention = {{"op", "attention"},
                    {"heads", heads},
                    {"context", context},
                    {"context_norm", layer_norm(w, prefix + ".norm_context", block.norm_context)},
                    {"in_proj_weight", w.add(a + "in_proj_weight")},
                    {"in_proj_bias", w.add(a + "in_proj_bias")},
                    {"out_proj_weight", w.add(a + "out_proj.weight")},
                    {"out_proj_bias", w.add(a + "out_proj.bias")}};
  attention["context_norm"].erase("op");
  layers.push_back(
      {{"op", "residual"}, {"layers", {layer_norm(w, prefix + ".norm_query", block.norm_query), attention}}});
  layers.push_back({{"op", "residual"},
                    {"layers",
                     {layer_norm(w, prefix + ".norm_mlp", block.norm_mlp), linear(w, prefix + ".mlp_in"),
                      activation("gelu"), linear(w, prefix + ".mlp_out")}}});
}

json positional_encoding(int octaves) { return {{"op", "positional_encoding"}, {"octaves", octaves}, {"columns", 3}}; }
json save(const char* name) { return {{"op", "save"}, {"register", name}}; }

// encode(): [gamma(p), n] -> point tokens; shape tokens attend to them, then self-attention
// layers, one more, and the handle tokens attend to the shape latents.
json encoder_layers(TensorWriter& w, SkinningNetworkImpl& net) {
  const NetworkConfig& c = net.config;
  json layers = json::array({positional_encoding(c.octaves),
                             linear(w, "point_embed"),
                             save("points"),
                             {{"op", "constant"}, {"tensor", w.add("shape_tokens", {c.latents, c.width})}}});
  attention_block(w, layers, "encoder_cross", *net.encoder_cross, "points", c.heads);
  for (std::size_t l = 0; l < net.encoder_self->size(); ++l) {
    layers.push_back(save("latents"));
    attention_block(w, layers, "encoder_self." + std::to_string(l), *net.encoder_self[l]->as<AttentionBlock>(),
                    "latents", c.heads);
  }
  layers.push_back(save("latents"));
  attention_block(w, layers, "decoder_self", *net.decoder_self, "latents", c.heads);
  layers.push_back(save("latents"));
  layers.push_back({{"op", "constant"}, {"tensor", w.add("handle_tokens", {c.output_fields(), c.width})}});
  attention_block(w, layers, "handle_cross", *net.handle_cross, "latents", c.heads);
  return layers;
}

// fields(): each point's encoding attends to the handle latents, joins gamma(X), then the ResNet
// MLP (ELU) and the (ONI-orthogonalised) output layer.
json field_layers(TensorWriter& w, SkinningNetworkImpl& net) {
  const NetworkConfig& c = net.config;
  json layers = json::array({positional_encoding(c.octaves), save("gamma"), linear(w, "query_embed")});
  attention_block(w, layers, "point_cross", *net.point_cross, "handle_latents", c.heads);
  layers.push_back({{"op", "concat"}, {"register", "gamma"}});
  layers.push_back(linear(w, "mlp_in"));
  for (std::size_t b = 0; b + 1 < net.mlp_blocks->size(); b += 2)
    layers.push_back({{"op", "residual"},
                      {"layers",
                       {activation("elu"), linear(w, "mlp_blocks." + std::to_string(b)), activation("elu"),
                        linear(w, "mlp_blocks." + std::to_string(b + 1))}}});
  layers.push_back(activation("elu"));
  torch::NoGradGuard no_grad;
  layers.push_back({{"op", "linear"}, {"weight", w.add("output_weight", net.output_weight())}});
  return layers;
}

// The output map of output_transform.cpp in the evaluator's terms (src/fields/field_output.hpp).
json output_normalization_json(const OutputOptions& output) {
  if (output.keep > 0) return {{"kind", "rayleigh_ritz"}, {"keep", output.keep}};
  if (output.normalization == ColumnNormalization::orthonormal) return {{"kind", "orthonormal"}};
  return {{"kind", "scale"}, {"target", "mean_square_one"}};
}

}  // namespace

fields::FieldNetworkFile export_field_network(SkinningNetwork& network, const json& metadata,
                                              const std::string& source_name) {
  TensorWriter writer(network);
  const NetworkConfig& c = network->config;
  const fields::ShapeSampleOptions sampling;  // what NeuralFieldModel::fields_for(mesh) samples, seed 1
  json description = {
      {"format", "wobble-field"},
      {"version", 1},
      {"source", source_name},
      {"handles", c.handles},
      {"network", c.to_json()},
      {"metadata", metadata},
      {"shape_sample",
       {{"surface_points", sampling.surface_points},
        {"cubature_points", sampling.cubature_points},
        {"grid_resolution", sampling.grid_resolution},
        {"seed", 1}}},
      {"output_normalization", output_normalization_json(output_options(c))},
      {"encoder", {{"input", "surface"}, {"output", "handle_latents"}, {"layers", encoder_layers(writer, *network)}}},
      {"field", {{"input", "points"}, {"layers", field_layers(writer, *network)}}}};
  writer.file.description = std::move(description);
  return std::move(writer.file);
}

fields::FieldNetworkFile export_field_network(const std::filesystem::path& model) {
  nlohmann::json metadata;
  SkinningNetwork network = load_network(model.string(), &metadata);
  return export_field_network(network, metadata, model.filename().string());
}

}  // namespace wobble::neural
