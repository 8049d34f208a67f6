// Corpus: inline PTX covering instruction forms nvcc rarely emits by itself:
// logic (lop3, prmt, shf, bfe/bfi, fns, bmsk, szext), float corner forms
// (testp, copysign, rcp/sqrt variants, cvt rounding/sat/relu/pack), memory
// (cache operators, eviction hints, prefetch, isspacep, cvta, red, atom with
// scopes and semantics, fences), branches (brx.idx), barriers (bar.red,
// bar.arrive, barrier.sync with counts), mbarrier, griddepcontrol, elect,
// getctarank/mapa, nanosleep, pmevent.
#include <cstdint>

__device__ __forceinline__ unsigned lop3(unsigned a, unsigned b, unsigned c) {
  unsigned d;
  asm("lop3.b32 %0, %1, %2, %3, 0x96;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
}

__global__ void logicForms(unsigned *u, int *s, unsigned long long *ul, float *f, double *dd) {
  unsigned a = u[threadIdx.x], b = u[threadIdx.x + 1], r, r2, r3, r4;
  int x = s[threadIdx.x];
  asm("prmt.b32 %0, %1, %2, 0x3210;" : "=r"(r) : "r"(a), "r"(b));
  asm("prmt.b32.f4e %0, %1, %2, %3;" : "=r"(r2) : "r"(a), "r"(b), "r"(x));
  asm("shf.l.wrap.b32 %0, %1, %2, %3;" : "=r"(r3) : "r"(a), "r"(b), "r"(x));
  asm("shf.r.clamp.b32 %0, %1, %2, 7;" : "=r"(r4) : "r"(a), "r"(b));
  r += r2 + r3 + r4 + lop3(a, b, r);
  asm("bfe.u32 %0, %1, 4, 8;" : "=r"(r2) : "r"(a));
  asm("bfe.s32 %0, %1, %2, %3;" : "=r"(r3) : "r"(x), "r"(a), "r"(b));
  asm("bfi.b32 %0, %1, %2, 8, 4;" : "=r"(r4) : "r"(a), "r"(b));
  r += r2 + r3 + r4;
  asm("brev.b32 %0, %1;" : "=r"(r2) : "r"(a));
  asm("bfind.u32 %0, %1;" : "=r"(r3) : "r"(a));
  asm("bfind.shiftamt.s32 %0, %1;" : "=r"(r4) : "r"(x));
  r += r2 + r3 + r4;
  asm("fns.b32 %0, %1, %2, %3;" : "=r"(r2) : "r"(a), "r"(b), "r"(x));
  asm("cnot.b32 %0, %1;" : "=r"(r3) : "r"(a));
  asm("not.b32 %0, %1;" : "=r"(r4) : "r"(b));
  r += r2 + r3 + r4;
#if __CUDA_ARCH__ >= 700
  asm("bmsk.clamp.b32 %0, %1, %2;" : "=r"(r2) : "r"(a), "r"(b));
  asm("szext.wrap.s32 %0, %1, %2;" : "=r"(r3) : "r"(a), "r"(b));
  r += r2 + r3;
#endif
  asm("mul24.hi.s32 %0, %1, %2;" : "=r"(r2) : "r"(a), "r"(b));
  asm("mad24.lo.u32 %0, %1, %2, %3;" : "=r"(r3) : "r"(a), "r"(b), "r"(r));
  asm("sad.u32 %0, %1, %2, %3;" : "=r"(r4) : "r"(a), "r"(b), "r"(r));
  r += r2 + r3 + r4;
  asm("{\n\t.reg .u32 lo, hi;\n\tadd.cc.u32 lo, %1, %2;\n\taddc.cc.u32 hi, %1, 0;\n\tsub.cc.u32 lo, lo, %2;\n\t"
      "subc.u32 hi, hi, 0;\n\tmad.lo.cc.u32 lo, %1, %2, lo;\n\tmadc.hi.u32 %0, %1, %2, hi;\n}"
      : "=r"(r2) : "r"(a), "r"(b));
  r += r2;
  float fa = f[threadIdx.x], fr, fr2;
  unsigned pr;
  asm("{\n\t.reg .pred p, q;\n\ttestp.finite.f32 p, %1;\n\ttestp.notanumber.f32 q, %1;\n\t"
      "and.pred p, p, q;\n\tselp.u32 %0, 1, 0, p;\n}" : "=r"(pr) : "f"(fa));
  asm("copysign.f32 %0, %1, %2;" : "=f"(fr) : "f"(fa), "f"(-1.5f));
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(fr2) : "f"(fa));
  fr += fr2;
  asm("sqrt.rn.ftz.f32 %0, %1;" : "=f"(fr2) : "f"(fa));
  fr += fr2;
  asm("rsqrt.approx.f32 %0, %1;" : "=f"(fr2) : "f"(fa));
  fr += fr2;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(fr2) : "f"(fa));
  fr += fr2;
  asm("lg2.approx.f32 %0, %1;" : "=f"(fr2) : "f"(fa));
  fr += fr2;
  asm("min.NaN.f32 %0, %1, 0f3F800000;" : "=f"(fr2) : "f"(fa));
  fr += fr2;
  asm("max.xorsign.abs.f32 %0, %1, 0fBF800000;" : "=f"(fr2) : "f"(fa));
  fr += fr2;
  asm("fma.rn.sat.f32 %0, %1, %1, 0f00000000;" : "=f"(fr2) : "f"(fa));
  fr += fr2;
  asm("div.approx.f32 %0, %1, 0f40000000;" : "=f"(fr2) : "f"(fa));
  fr += fr2;
  asm("div.full.f32 %0, %1, 0f40400000;" : "=f"(fr2) : "f"(fa));
  fr += fr2;
  asm("tanh.approx.f32 %0, %1;" : "=f"(fr2) : "f"(fa));
  fr += fr2;
  double dr;
  asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(dr) : "d"(dd[0]));
  asm("cvt.rni.f64.f64 %0, %0;" : "+d"(dr));
  asm("cvt.rzi.s32.f64 %0, %1;" : "=r"(r2) : "d"(dr));
  asm("cvt.sat.u8.s32 %0, %1;" : "=r"(r3) : "r"(x));
  asm("cvt.rn.f32.f64 %0, %1;" : "=f"(fr2) : "d"(dr));
  r += r2 + r3;
  unsigned short hs;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(hs) : "f"(fa));
  asm("cvt.f32.f16 %0, %1;" : "=f"(fr2) : "h"(hs));
  fr += fr2;
#if __CUDA_ARCH__ >= 800
  unsigned pk;
  asm("cvt.rn.relu.f16x2.f32 %0, %1, %2;" : "=r"(pk) : "f"(fa), "f"(fr));
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r2) : "f"(fa), "f"(fr));
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r3) : "f"(fa));
  asm("cvt.pack.sat.s8.s32.b32 %0, %1, %2, %3;" : "=r"(r4) : "r"(x), "r"(a), "r"(b));
  r += pk + r2 + r3 + r4;
  asm("{\n\t.reg .b32 h;\n\tmov.b32 h, %1;\n\tfma.rn.relu.bf16x2 h, h, h, h;\n\tmin.NaN.f16x2 h, h, h;\n\tmov.b32 %0, h;\n}"
      : "=r"(r2) : "r"(a));
  r += r2;
#endif
#if __CUDA_ARCH__ >= 890
  unsigned short e8;
  asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(e8) : "f"(fa), "f"(fr));
  r += e8;
#endif
  u[threadIdx.x] = r + pr;
  f[threadIdx.x] = fr;
  dd[threadIdx.x] = dr;
  (void)ul;
}

__global__ void memoryForms(float *g, unsigned *cnt, unsigned long long *p64) {
  __shared__ float sm[256];
  float v, w;
  asm volatile("ld.global.ca.f32 %0, [%1];" : "=f"(v) : "l"(g));
  asm volatile("ld.global.cg.f32 %0, [%1+4];" : "=f"(w) : "l"(g));
  v += w;
  asm volatile("ld.global.cs.f32 %0, [%1+8];" : "=f"(w) : "l"(g));
  v += w;
  asm volatile("ld.global.lu.f32 %0, [%1+12];" : "=f"(w) : "l"(g));
  v += w;
  asm volatile("ld.global.cv.f32 %0, [%1+16];" : "=f"(w) : "l"(g));
  v += w;
  asm volatile("ld.global.nc.f32 %0, [%1+20];" : "=f"(w) : "l"(g));
  v += w;
  float4 q;
  asm volatile("ld.global.nc.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(q.x), "=f"(q.y), "=f"(q.z), "=f"(q.w) : "l"(g));
  asm volatile("ld.volatile.global.f32 %0, [%1];" : "=f"(w) : "l"(g));
  v += w + q.x + q.w;
  asm volatile("st.global.wb.f32 [%0], %1;" ::"l"(g), "f"(v));
  asm volatile("st.global.cs.v2.f32 [%0+8], {%1, %2};" ::"l"(g), "f"(v), "f"(w));
  asm volatile("st.global.wt.f32 [%0+4], %1;" ::"l"(g), "f"(v));
  asm volatile("prefetch.global.L2 [%0];" ::"l"(g));
  asm volatile("prefetch.global.L1 [%0];" ::"l"(g));
  asm volatile("prefetchu.L1 [%0];" ::"l"(g));
  unsigned sp;
  asm volatile("{\n\t.reg .pred p;\n\tisspacep.shared p, %1;\n\tselp.u32 %0, 1, 0, p;\n}" : "=r"(sp) : "l"(g));
  unsigned long long sa;
  asm volatile("cvta.to.shared.u64 %0, %1;" : "=l"(sa) : "l"((unsigned long long)sm));
  asm volatile("cvta.shared.u64 %0, %1;" : "=l"(sa) : "l"(sa));
  asm volatile("red.global.add.u32 [%0], %1;" ::"l"(cnt), "r"(sp));
  asm volatile("red.global.max.u64 [%0], %1;" ::"l"(p64), "l"(sa));
  unsigned old;
  asm volatile("atom.global.cas.b32 %0, [%1], %2, %3;" : "=r"(old) : "l"(cnt), "r"(1u), "r"(2u));
  asm volatile("atom.global.exch.b32 %0, [%1], %2;" : "=r"(old) : "l"(cnt), "r"(old));
  asm volatile("atom.global.inc.u32 %0, [%1], 100;" : "=r"(old) : "l"(cnt));
  asm volatile("atom.shared.dec.u32 %0, [%1], 100;" : "=r"(old) : "r"((unsigned)__cvta_generic_to_shared(sm)));
  asm volatile("membar.gl;");
  asm volatile("membar.cta;");
  asm volatile("membar.sys;");
#if __CUDA_ARCH__ >= 700
  asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], 1;" : "=r"(old) : "l"(cnt));
  asm volatile("atom.relaxed.sys.global.or.b32 %0, [%1], 1;" : "=r"(old) : "l"(cnt));
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(old) : "l"(cnt));
  asm volatile("st.release.cta.global.u32 [%0], %1;" ::"l"(cnt), "r"(old));
  asm volatile("ld.relaxed.sys.global.u32 %0, [%1];" : "=r"(old) : "l"(cnt));
  asm volatile("red.release.gpu.global.add.f32 [%0], %1;" ::"l"(g), "f"(v));
  asm volatile("fence.sc.gpu;");
  asm volatile("fence.acq_rel.cta;");
  asm volatile("fence.acq_rel.sys;");
  asm volatile("atom.global.add.noftz.f16x2 %0, [%1], %2;" : "=r"(old) : "l"(g), "r"(old));
  asm volatile("ld.global.L1::evict_last.f32 %0, [%1];" : "=f"(w) : "l"(g));
  asm volatile("ld.global.L1::no_allocate.f32 %0, [%1];" : "=f"(w) : "l"(g));
  asm volatile("nanosleep.u32 %0;" ::"r"(old));
#endif
#if __CUDA_ARCH__ >= 800
  unsigned long long pol;
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(pol));
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 0f3F000000;" : "=l"(pol));
  asm volatile("ld.global.L2::cache_hint.f32 %0, [%1], %2;" : "=f"(w) : "l"(g), "l"(pol));
  asm volatile("st.global.L2::cache_hint.f32 [%0], %1, %2;" ::"l"(g), "f"(w), "l"(pol));
  asm volatile("ld.global.L2::128B.f32 %0, [%1];" : "=f"(w) : "l"(g));
  asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v4.f32 {%0, %1, %2, %3}, [%4];"
               : "=f"(q.x), "=f"(q.y), "=f"(q.z), "=f"(q.w) : "l"(g));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"((unsigned)__cvta_generic_to_shared(sm)), "l"(g));
  asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16, 8;" ::"r"((unsigned)__cvta_generic_to_shared(sm + 4)), "l"(g));
  asm volatile("cp.async.commit_group;");
  asm volatile("cp.async.wait_group 0;");
  asm volatile("cp.async.wait_all;");
  __shared__ unsigned long long mbar;
  unsigned mb = (unsigned)__cvta_generic_to_shared(&mbar);
  unsigned long long state;
  asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(mb), "r"(32u));
  asm volatile("cp.async.mbarrier.arrive.noinc.shared.b64 [%0];" ::"r"(mb));
  asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(state) : "r"(mb));
  asm volatile("{\n\t.reg .pred done;\n\tmbarrier.test_wait.shared.b64 done, [%0], %1;\n}" ::"r"(mb), "l"(state));
  asm volatile("mbarrier.inval.shared.b64 [%0];" ::"r"(mb));
  unsigned rx;
  asm volatile("redux.sync.add.u32 %0, %1, 0xffffffff;" : "=r"(rx) : "r"(old));
  asm volatile("redux.sync.min.s32 %0, %1, 0xffffffff;" : "=r"(rx) : "r"(rx));
  old += rx;
#endif
#if __CUDA_ARCH__ >= 900
  asm volatile("fence.proxy.async.shared::cta;");
  asm volatile("fence.proxy.alias;");
  asm volatile("fence.mbarrier_init.release.cluster;");
  asm volatile("griddepcontrol.wait;");
  asm volatile("griddepcontrol.launch_dependents;");
  unsigned rank, elected;
  asm volatile("getctarank.shared::cluster.u32 %0, %1;" : "=r"(rank) : "r"(mb));
  asm volatile("mapa.shared::cluster.u32 %0, %1, 0;" : "=r"(rank) : "r"(mb));
  asm volatile("{\n\t.reg .pred e;\n\telect.sync %0|e, 0xffffffff;\n}" : "=r"(elected));
  asm volatile("{\n\t.reg .pred w;\n\tmbarrier.try_wait.parity.acquire.cta.shared::cta.b64 w, [%0], 0;\n}" ::"r"(mb));
  asm volatile("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%0], 16;" ::"r"(mb));
  asm volatile("barrier.cluster.arrive.release;");
  asm volatile("barrier.cluster.wait.acquire;");
  asm volatile("atom.global.v2.f32.add {%0, %1}, [%2], {%3, %4};" : "=f"(q.x), "=f"(q.y) : "l"(g), "f"(v), "f"(w));
  old += rank + elected;
#endif
  asm volatile("pmevent 3;");
  g[threadIdx.x] = v + w + q.y + q.z + (float)old;
}

__global__ void controlForms(int *out, int sel) {
  int r;
  asm volatile("{\n\t.reg .pred p;\n\t.reg .u32 t;\n\t"
               "setp.lt.and.s32 p, %1, 4, 1;\n\t"
               "@!p bra.uni Ldone%=;\n\t"
               "ts%=: .branchtargets L0%=, L1%=, L2%=;\n\t"
               "brx.idx %1, ts%=;\n"
               "L0%=:\n\tmov.u32 %0, 10;\n\tbra.uni Lend%=;\n"
               "L1%=:\n\tmov.u32 %0, 11;\n\tbra.uni Lend%=;\n"
               "L2%=:\n\tmov.u32 %0, 12;\n\tbra.uni Lend%=;\n"
               "Ldone%=:\n\tmov.u32 %0, -1;\n"
               "Lend%=:\n}"
               : "=r"(r) : "r"(sel));
  unsigned cnt;
  asm volatile("{\n\t.reg .pred q;\n\tsetp.ne.s32 q, %1, 0;\n\tbar.red.popc.u32 %0, 0, q;\n}" : "=r"(cnt) : "r"(r));
  asm volatile("{\n\t.reg .pred q, o;\n\tsetp.gt.s32 q, %0, 0;\n\tbar.red.and.pred o, 0, q;\n\tbar.red.or.pred o, 0, 64, !q;\n}" ::"r"(r));
  asm volatile("bar.sync 1, 64;");
  asm volatile("bar.arrive 2, 64;");
  asm volatile("barrier.sync.aligned 0;");
  asm volatile("bar.warp.sync 0xffffffff;");
  asm volatile("{\n\t.reg .u32 v;\n\tvote.sync.ballot.b32 v, 1, 0xffffffff;\n\t.reg .pred a;\n\tvote.sync.all.pred a, 1, 0xffffffff;\n}");
  asm volatile("{\n\t.reg .u32 m;\n\tactivemask.b32 m;\n\tmatch.any.sync.b32 m, %0, m;\n}" ::"r"(r));
  asm volatile("{\n\t.reg .u32 s;\n\t.reg .pred v;\n\tshfl.sync.idx.b32 s|v, %0, 0, 0x1f, 0xffffffff;\n\tshfl.sync.bfly.b32 s, s, 1, 0x1f, 0xffffffff;\n}" ::"r"(r));
  asm volatile("{\n\t.reg .f32 sx, sy;\n\tmov.f32 sx, 0f3F800000;\n\tsin.approx.ftz.f32 sy, sx;\n\tcos.approx.f32 sx, sy;\n}");
  asm volatile("{\n\t.reg .b32 a<4>;\n\t.reg .b64 w;\n\tmov.b64 w, {a0, a1};\n\tmov.b64 {a2, a3}, w;\n}");
  asm volatile("{\n\t.reg .b32 x;\n\tvadd4.u32.u32.u32.sat x, %0, %0, %0;\n\tvmax2.s32.s32.s32 x, x, %0, x;\n}" ::"r"(r));
  out[threadIdx.x] = r + (int)cnt;
}
