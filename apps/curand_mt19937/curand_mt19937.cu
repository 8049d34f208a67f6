/// \file
/// cuRAND's MT19937 host-API generator (Matsumoto and Nishimura's Mersenne
/// Twister, run by NVIDIA as many jumped-ahead copies of one sequence):
/// a program that seeds it and prints its numbers expects the same ones on
/// every run and machine. Device and host generators are asked for 32-bit
/// integers (two calls in a row), uniform floats and doubles, normal and
/// log-normal floats and doubles and Poisson counts, each from a fresh
/// generator and followed by a 32-bit call; the integers and uniforms are
/// printed as FNV-1a hashes and hex, the normals rounded. Checks: host and
/// device generators agree bit for bit (normals: within 1e-5, NVIDIA's host
/// generator computes them on the CPU), moments are plausible, and MT19937
/// refuses an offset (CURAND_STATUS_TYPE_ERROR).
#define CURAND_SEQ_TYPE CURAND_RNG_PSEUDO_MT19937
#include "../common/curand_seq_app.h"
