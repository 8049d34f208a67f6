//===- tests/sim/isa/InstTest.cpp - per-instruction semantics -------------===//
#include "tests/sim/isa/SimTestUtil.h"

#include <gtest/gtest.h>

using namespace ferry::sim;
using namespace ferry::sim::test;
