#pragma once
// An assimp scene's node hierarchy as the conversion reads it (assimp_conversion.cpp): nodes in
// pre-order, parents, rest world transforms, names, and the node holding each mesh. Internal.
#include <string>
#include <unordered_map>
#include <vector>

#include <assimp/scene.h>

#include <wobble/math.hpp>

namespace wobble {

// aiMatrix4x4 is row-major with column vectors (translation in a4, b4, c4): element (r, c) of the
// Eigen matrix is row r, column c of assimp's.
inline Mat4f to_eigen(const aiMatrix4x4& a) {
  Mat4f m;
  m << a.a1, a.a2, a.a3, a.a4,  //
      a.b1, a.b2, a.b3, a.b4,   //
      a.c1, a.c2, a.c3, a.c4,   //
      a.d1, a.d2, a.d3, a.d4;
  return m;
}

struct SceneNodes {
  std::vector<const aiNode*> order;  // pre-order (parents first)
  std::unordered_map<const aiNode*, const aiNode*> parent;
  std::unordered_map<const aiNode*, Mat4f> world;          // rest world transforms
  std::unordered_map<std::string, const aiNode*> by_name;  // first node of each name
  std::vector<const aiNode*> mesh_holder;                  // per mesh: first node referencing it, or null

  explicit SceneNodes(const aiScene* scene) {
    mesh_holder.assign(scene->mNumMeshes, nullptr);
    // Iterative pre-order traversal (deep hierarchies must not overflow the stack).
    std::vector<const aiNode*> stack{scene->mRootNode};
    parent[scene->mRootNode] = nullptr;
    while (!stack.empty()) {
      const aiNode* node = stack.back();
      stack.pop_back();
      visit(node);
      for (unsigned k = node->mNumChildren; k-- > 0;) {
        const aiNode* child = node->mChildren[k];
        if (!child || parent.count(child)) continue;  // a malformed graph: visit each node once
        parent[child] = node;
        stack.push_back(child);
      }
    }
  }
  const aiNode* find(const aiString& name) const {
    auto it = by_name.find(name.C_Str());
    return it == by_name.end() ? nullptr : it->second;
  }
  Mat4f world_of(const aiNode* node) const { return node ? world.at(node) : Mat4f(Mat4f::Identity()); }

 private:
  void visit(const aiNode* node) {
    order.push_back(node);
    const aiNode* up = parent[node];
    const Mat4f local = to_eigen(node->mTransformation);
    world[node] = up ? Mat4f(world[up] * local) : local;
    by_name.emplace(node->mName.C_Str(), node);
    for (unsigned k = 0; k < node->mNumMeshes; ++k) {
      const unsigned m = node->mMeshes[k];
      if (m < mesh_holder.size() && !mesh_holder[m]) mesh_holder[m] = node;
    }
  }
};

}  // namespace wobble
