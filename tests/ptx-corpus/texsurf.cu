// Corpus: texture and surface objects in every geometry, fetch and gather
// forms, and the various read/write surface calls.
__global__ void texKernel(cudaTextureObject_t t1, cudaTextureObject_t t2, cudaTextureObject_t t3,
                          cudaTextureObject_t tl, cudaTextureObject_t tc, cudaTextureObject_t ti, float4 *out, int *iout,
                          float x, float y, float z) {
  int i = threadIdx.x;
  float4 a = tex1D<float4>(t1, x), a2 = tex1Dfetch<float4>(ti, i);
  float b = tex2D<float>(t2, x, y) + tex2DLod<float>(t2, x, y, 1.0f) + tex2DGrad<float>(t2, x, y, make_float2(1, 0), make_float2(0, 1));
  float c = tex3D<float>(t3, x, y, z) + tex1DLayered<float>(tl, x, 2) + tex2DLayered<float>(tl, x, y, 1);
  float4 g = tex2Dgather<float4>(t2, x, y, 0);
  float d = texCubemap<float>(tc, x, y, z) + tex3DLod<float>(t3, x, y, z, 0.5f);
  int e = tex1Dfetch<int>(ti, i) + tex2D<uchar4>(t2, x, y).x + tex2D<short2>(t2, x, y).y;
  out[i] = make_float4(a.x + b + a2.x, a.y + c + a2.y, a.z + d, a.w + g.x + g.w);
  iout[i] = e;
}

__global__ void surfKernel(cudaSurfaceObject_t s1, cudaSurfaceObject_t s2, cudaSurfaceObject_t s3, int w) {
  int x = threadIdx.x, y = blockIdx.x;
  float v = surf2Dread<float>(s2, x * 4, y);
  surf2Dwrite(v * 2.0f, s2, x * 4, y);
  uchar4 c = surf1Dread<uchar4>(s1, x * 4, cudaBoundaryModeClamp);
  surf1Dwrite(c, s1, x * 4, cudaBoundaryModeZero);
  float4 f = surf3Dread<float4>(s3, x * 16, y, 1);
  surf3Dwrite(f, s3, x * 16, y, 1, cudaBoundaryModeTrap);
  short2 s = surf2Dread<short2>(s2, x * 4, y);
  surf2Dwrite(s, s2, (x + 1) * 4 % w, y);
  int l = surf2DLayeredread<int>(s2, x * 4, y, 2);
  surf2DLayeredwrite(l + 1, s2, x * 4, y, 2);
}
