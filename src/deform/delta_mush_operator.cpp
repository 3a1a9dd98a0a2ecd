// Delta Mush's bound operator (wobble mode) read back from the kernels' blocked layouts into
// plain compressed rows (DeltaMush::plain_operator), for the renderer's GPU path.
#include <wobble/delta_mush.hpp>

#include <wobble/error.hpp>

#include "deform/delta_mush_kernels.hpp"
#include "core/fail.hpp"

namespace wobble {

namespace {

// Rows of the sliced-ELLPACK sweep layout without their padding (columns at the zero row).
void unpack_rows(const mush::SweepRows& rows, std::span<const float> uniform_weight, std::size_t n,
                 DeltaMushOperator& op) {
  op.row_offsets.assign(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t g = i / mush::kLanes, width = rows.widths[g];
    const std::size_t first = rows.offsets[g] + (i % mush::kLanes) * width;
    for (std::size_t k = first; k < first + width; ++k) {
      const std::uint32_t column = rows.columns[k] / 4;
      if (column == rows.zero_row) continue;
      op.row_columns.push_back(column);
      op.row_weights.push_back(rows.weights.empty() ? uniform_weight[i] : rows.weights[k]);
    }
    op.row_offsets[i + 1] = static_cast<std::uint32_t>(op.row_columns.size());
  }
}

// Corners of the chained layout without its bridges between chains and its padding.
void unpack_corners(const mush::CornerBlocks& blocks, std::size_t n, DeltaMushOperator& op) {
  op.corner_offsets.assign(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t g = i / mush::kLanes, lane = i % mush::kLanes;
    const std::uint32_t* points = blocks.group_points(g);
    for (std::size_t slot = blocks.slot_offsets[g], k = 0; slot < blocks.slot_offsets[g + 1]; ++slot, ++k) {
      const std::size_t c = slot * mush::kLanes + lane;
      if (!blocks.is_corner[c]) continue;
      op.corner_next.push_back(points[k * mush::kLanes + lane]);
      op.corner_prev.push_back(points[(k + 1) * mush::kLanes + lane]);
      op.corner_deltas.emplace_back(blocks.dx[c], blocks.dy[c], blocks.dz[c]);
    }
    op.corner_offsets[i + 1] = static_cast<std::uint32_t>(op.corner_next.size());
  }
}

}  // namespace

DeltaMushOperator DeltaMush::plain_operator() const {
  if (!bound_) fail_plain("delta mush: plain_operator() before bind()");
  if (settings_.mode != MushMode::Wobble) {
    fail_plain("delta mush: mode 'blender' has no fixed operator (its weights follow the current positions)");
  }
  const std::size_t n = self_weight_.size();
  DeltaMushOperator op;
  op.iterations = settings_.iterations;
  op.welded_of = welding_.welded_of;
  op.member_offsets = weld_offsets_;
  op.members = weld_members_;
  op.self_weights = self_weight_;
  unpack_rows(*rows_, uniform_weight_, n, op);
  unpack_corners(*corners_, n, op);
  op.keep_input = keep_input_;
  return op;
}

}  // namespace wobble
