// Delta Mush's bound operator (wobble mode) read back from the kernels' blocked layouts into
// plain compressed rows (DeltaMush::plain_operator), for the renderer's GPU path.
#include <wobble/delta_mush.hpp>

#include <wobble/error.hpp>

#include "deform/delta_mush_kernels.hpp"
#include "core/fail.hpp"

namespace wobble {

namespace {

// Rows of the sweep layout without their padding, a pair entry as its two rows.
void unpack_rows(const mush::SweepRows& rows, DeltaMushOperator& op) {
  const std::size_t n = rows.vertex_count();
  op.row_offsets.assign(n + 1, 0);
  op.self_weights.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    op.self_weights[i] = rows.self(i);
    rows.for_each_neighbour(i, [&](std::uint32_t j, float weight) {
      op.row_columns.push_back(j);
      op.row_weights.push_back(weight);
    });
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
  const std::size_t n = rows_->vertex_count();
  DeltaMushOperator op;
  op.iterations = settings_.iterations;
  op.welded_of = welding_.welded_of;
  op.member_offsets = weld_offsets_;
  op.members = weld_members_;
  unpack_rows(*rows_, op);
  unpack_corners(*corners_, n, op);
  op.keep_input = keep_input_;
  return op;
}

}  // namespace wobble
