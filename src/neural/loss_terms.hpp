#pragma once
// The losses one training batch can have, declared once: their order in every row of values
// (the steps' sums, losses.csv, the per-loss gradient rows) and their names (losses.csv's columns,
// the report's keys).
#include <array>
#include <vector>

#include <torch/torch.h>

namespace wobble::neural {

enum LossTerm : int { kSmooth, kPotential, kOrthogonality, kComplementarity, kSpan, kCompliance, kLossTerms };

inline constexpr std::array<const char*, kLossTerms> kLossNames = {"smooth",          "potential",  "orthogonality",
                                                                   "complementarity", "eigen_span", "compliance"};

// The paper's three losses are shown for every run (zero when switched off); the others only
// when the run has them.
inline bool always_shown(LossTerm term) { return term <= kOrthogonality; }

// A batch's losses, each already weighted; undefined when switched off.
struct BatchLosses {
  std::array<torch::Tensor, kLossTerms> terms;

  std::vector<torch::Tensor> active() const {
    std::vector<torch::Tensor> out;
    for (const torch::Tensor& t : terms)
      if (t.defined()) out.push_back(t);
    return out;
  }
  // Every term's value in LossTerm order, zero where switched off.
  torch::Tensor values() const {
    torch::Tensor out = torch::zeros({kLossTerms}, torch::kFloat64);
    for (int k = 0; k < kLossTerms; ++k)
      if (terms[static_cast<std::size_t>(k)].defined()) out[k] = terms[static_cast<std::size_t>(k)].item<double>();
    return out;
  }
};

}  // namespace wobble::neural
