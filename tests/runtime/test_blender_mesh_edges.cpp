// The edge order of Blender's meshes (src/deform/blender_mesh_edges.hpp) on two triangles, worked
// out by hand from the rules found against Blender (tests/test_blender_parity.cpp compares whole
// characters with Blender 3.4 and 4.3 themselves).
#include <vector>

#include <gtest/gtest.h>

#include "deform/blender_mesh_edges.hpp"

using namespace wobble;

namespace {

// Faces (0, 1, 2) and (2, 1, 3) visit (2,0) (0,1) (1,2), then (3,2) (2,1) (1,3).
const std::vector<Triangle> kTwoFaces = {{0, 1, 2}, {2, 1, 3}};

TEST(BlenderMeshEdges, Blender43ListsEachEdgeWhereAFaceFirstReachesIt) {
  const std::vector<BlenderEdge> want = {{0, 2}, {0, 1}, {1, 2}, {2, 3}, {1, 3}};
  EXPECT_EQ(blender_mesh_edges(kTwoFaces, BlenderVersion::V4_3), want);
  // Two groups (v_low even, then odd), each in that order.
  const std::vector<BlenderEdge> grouped = {{0, 2}, {0, 1}, {2, 3}, {1, 2}, {1, 3}};
  EXPECT_EQ(blender_mesh_edges(kTwoFaces, BlenderVersion::V4_3, 2), grouped);
}

TEST(BlenderMeshEdges, Blender34ListsTheHashMapsSlots) {
  // 8 slots for 4 reserved edges: (0,2) hashes to slot 2, (0,1) to 1, (1,2) (hash 258) to 2, then
  // probes to 3; (2,3) (515) to 3, then 0. The fifth edge grows the map to 16 slots, reinserting
  // in slot order: (2,3) at 3, (0,1) at 1, (0,2) at 2, (1,2) at 2, 3, then 0; (1,3) (259) at 3,
  // then 8.
  const std::vector<BlenderEdge> want = {{1, 2}, {0, 1}, {0, 2}, {2, 3}, {1, 3}};
  EXPECT_EQ(blender_mesh_edges(kTwoFaces, BlenderVersion::V3_4), want);
}

}  // namespace
