// Parser for the architecture description language: turns source files into a Description.
#pragma once
#include "ast.h"

namespace adl {

// Parses one file into `desc` (several files may contribute to one description).
void parse_file(const std::string& path, Description& desc);
void parse_source(const std::string& source, const std::string& name, Description& desc);

// Parses a type name such as u5, s64, u128, bool, str, void. Returns nullopt if `name` is not a type.
std::optional<Type> type_from_name(const std::string& name);

} // namespace adl
