// The bridge from decoded Bifrost clauses to the timing models (instrumentation/models/timing.h): what kind
// of operation each FMA and ADD slot holds (from the instruction metadata the generator emits for
// archdesc/bifrost: class and the `message` attribute) and the header's message type and dependency slots.
#pragma once
#include "gpu-bifrost/bifrost_clause.h"
#include "instrumentation/models/timing.h"
#include <string>
#include <vector>

namespace vplat::gpu::bifrost {

models::ClauseShape clause_shape(const DecodedClause& c);

// The clauses of a shader in address order from `entry`, as far as the first end-of-shader clause (or
// max_clauses), each decoded; false when a quadword could not be read.
bool shader_clauses(uint64_t entry, const QwordReader& read, std::vector<DecodedClause>& out,
                    unsigned max_clauses = 4096);

// The static estimate of the shader at `entry` (estimate_shader over shader_clauses) as one line; "" if
// unreadable.
std::string shader_estimate_text(uint64_t entry, const QwordReader& read);

} // namespace vplat::gpu::bifrost
