//===- TestUtil.h - helpers for the PTX parser tests ------------*- C++ -*-===//
/// \file
/// Wraps instruction snippets into a module with a fixed set of declared
/// registers, parses and checks it, and verifies that every module the tests
/// build also round-trips (parse, print, parse gives an equal module).
//===----------------------------------------------------------------------===//
#pragma once

#include "ptx/parser/Parser.h"

#include <gtest/gtest.h>

#include <string>

namespace ferry::ptx::test {

/// Number of lines the prelude of wrapBody() takes; the first body line is
/// line BodyFirstLine of the module.
inline constexpr unsigned BodyFirstLine = 17;

/// A module with declarations used by the snippets, then Body inside the
/// kernel `k`, then a label L_end and ret.
std::string wrapBody(const std::string &Body);

/// Parse and check; fails the test (ADD_FAILURE) on any diagnostic or a
/// failed round trip. Returns the module (never null).
std::unique_ptr<Module> parseClean(const std::string &Text);
std::unique_ptr<Module> parseBody(const std::string &Body);

/// The instructions of the kernel `k` of a module built by wrapBody(), in
/// order, flattening nested blocks.
std::vector<const Instruction *> instructions(const Module &M, llvm::StringRef Func = "k");

/// All diagnostics (parser's, or checker's when parsing was clean).
std::vector<Diagnostic> diagnose(const std::string &Text);

/// Round trip: print M, parse the text, compare. Returns "" on success, or
/// what went wrong.
std::string roundTrip(const Module &M);

} // namespace ferry::ptx::test
