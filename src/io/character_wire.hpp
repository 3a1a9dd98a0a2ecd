#pragma once
// A Character as bytes and back, for the isolated importer (assimp runs in a child process that
// sends the converted character to wobble over a pipe). Same machine, same build: fields are
// written in native byte order. Decoding checks every count against the bytes left, so that a
// child that went wrong cannot make the parent allocate without bound.
#include <filesystem>
#include <string>
#include <string_view>

#include <wobble/character.hpp>

namespace wobble {

std::string encode_character(const Character& character);
// Throws Error naming `source` if the bytes are not a whole encoded character.
Character decode_character(std::string_view bytes, const std::filesystem::path& source);

}  // namespace wobble
