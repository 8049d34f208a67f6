/// \file
/// cuRAND's MTGP32 host-API generator (Saito and Matsumoto's Mersenne
/// Twister for Graphic Processors, 200 parameter sets of period 2^11213-1):
/// a program that seeds it and prints its numbers expects the same ones on
/// every run and machine. Device and host generators are asked for 32-bit
/// integers (two calls in a row), uniform floats and doubles, normal and
/// log-normal floats and doubles and Poisson counts, each from a fresh
/// generator and followed by a 32-bit call; the integers and uniforms are
/// printed as FNV-1a hashes and hex, the normals rounded. Checks: host and
/// device generators agree bit for bit (normals: within 1e-5, NVIDIA's host
/// generator computes them on the CPU), moments are plausible, and MTGP32
/// refuses an offset (CURAND_STATUS_TYPE_ERROR).
#define CURAND_SEQ_TYPE CURAND_RNG_PSEUDO_MTGP32
#include "../common/curand_seq_app.h"
