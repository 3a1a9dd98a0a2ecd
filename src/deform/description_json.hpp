#pragma once
// One deformer description as JSON or Markdown, in the form of one element of deformer_descriptions_json()
// (parameters.hpp), for descriptions outside the registry: a skinning decomposition's, which the
// helper-bone C API hands to hosts (wobble_helper_bones_description).
#include <string>

#include <wobble/parameters.hpp>

namespace wobble {

std::string deformer_description_json(const DeformerDescription& description, int indent = 2);
// Its parameters as the Markdown table of docs/parameters.md (a header row, then one row each).
std::string parameter_table_markdown(const DeformerDescription& description);

}  // namespace wobble
