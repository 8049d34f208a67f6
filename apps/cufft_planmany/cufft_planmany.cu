/// \file
/// Batched and strided FFTs with cufftPlanMany's advanced data layout, as
/// multi-channel signal and batched-image codes call it:
///   - 64 contiguous 1-D C2C signals of 256 (the basic batched layout),
///   - 32 interleaved channels (stride = 32, dist = 1: sample t of channel
///     c at t * 32 + c), as audio frames are stored,
///   - a batch of 1-D R2C transforms over padded rows (inembed/onembed
///     larger than n, so each row has spare elements that must be left
///     alone),
///   - a batch of 2-D 24 x 20 C2C transforms with a gap between images.
/// Checked element by element against a CPU DFT of each transform,
/// including that padding is untouched.
#include "../common/fft_util.h"

static bool runC2C(const char *Name, int Rank, int *N, int *Inembed, int Istride, int Idist, int *Onembed, int Ostride,
                   int Odist, int Batch, size_t InElems, size_t OutElems) {
  std::vector<cufftComplex> X(InElems);
  for (size_t I = 0; I < InElems; ++I)
    X[I] = make_cuFloatComplex((float)signal(I, 21), (float)signal(I, 22));
  const cufftComplex Sentinel = make_cuFloatComplex(-777.0f, 777.0f);
  std::vector<cufftComplex> Init(OutElems, Sentinel);
  cufftComplex *In = upload(X), *Out = upload(Init);
  cufftHandle Plan;
  CUFFT_CHECK(cufftPlanMany(&Plan, Rank, N, Inembed, Istride, Idist, Onembed, Ostride, Odist, CUFFT_C2C, Batch));
  CUFFT_CHECK(cufftExecC2C(Plan, In, Out, CUFFT_FORWARD));
  std::vector<cufftComplex> Y = download(Out, OutElems);
  int Len = 1;
  std::vector<int> Dims(N, N + Rank);
  for (int D = 0; D < Rank; ++D)
    Len *= N[D];
  // Element (i0, i1) of transform b sits at b*dist + (i0*embed1 + i1)*stride.
  auto At = [&](int *Embed, int Stride, int Dist, int B, int Flat) {
    size_t Pos = 0;
    if (Rank == 1)
      Pos = (size_t)Flat;
    else
      Pos = (size_t)(Flat / N[1]) * (Embed ? Embed[1] : N[1]) + Flat % N[1];
    return (size_t)B * Dist + Pos * Stride;
  };
  double Err = 0;
  std::vector<bool> Written(OutElems, false);
  for (int B = 0; B < Batch; ++B) {
    std::vector<Cd> Xb(Len);
    for (int I = 0; I < Len; ++I) {
      cufftComplex C = X[At(Inembed, Istride, Idist, B, I)];
      Xb[I] = Cd(C.x, C.y);
    }
    std::vector<Cd> Want = refDft(Xb, Dims, -1);
    std::vector<cufftComplex> Got(Len);
    for (int I = 0; I < Len; ++I) {
      size_t P = At(Onembed, Ostride, Odist, B, I);
      Got[I] = Y[P];
      Written[P] = true;
    }
    Err = std::max(Err, relError(Got, Want));
  }
  bool Untouched = true;
  for (size_t P = 0; P < OutElems; ++P)
    if (!Written[P])
      Untouched &= Y[P].x == Sentinel.x && Y[P].y == Sentinel.y;
  double Sum = 0;
  for (size_t P = 0; P < OutElems; ++P)
    if (Written[P])
      Sum += std::hypot((double)Y[P].x, (double)Y[P].y);
  bool Ok = Err < 1e-5 && Untouched;
  report(Name, Ok, Sum);
  if (!Untouched)
    std::printf("  padding was written\n");
  CUFFT_CHECK(cufftDestroy(Plan));
  CHECK(cudaFree(In));
  CHECK(cudaFree(Out));
  return Ok;
}

int main() {
  bool Ok = true;
  {
    int N[1] = {256};
    Ok &= runC2C("batch 64x256", 1, N, nullptr, 1, 256, nullptr, 1, 256, 64, 64 * 256, 64 * 256);
  }
  {
    int N[1] = {500}, Embed[1] = {500};
    Ok &= runC2C("interleaved 32", 1, N, Embed, 32, 1, Embed, 32, 1, 32, 32 * 500, 32 * 500);
  }
  {
    int N[2] = {24, 20}, In[2] = {24, 20}, Out[2] = {24, 22};
    // Input images 24x20 with a 17-element gap; output rows padded to 22.
    Ok &= runC2C("2d batch 5", 2, N, In, 1, 24 * 20 + 17, Out, 1, 24 * 22, 5, 5 * (24 * 20 + 17), 5 * 24 * 22);
  }
  {
    // R2C over padded rows: 10 rows of 300 reals in rows of 310, out to
    // rows of 160 complex (151 used).
    const int Rows = 10, Len = 300, InRow = 310, H = Len / 2 + 1, OutRow = 160;
    int N[1] = {Len}, Inembed[1] = {InRow}, Onembed[1] = {OutRow};
    std::vector<float> X((size_t)Rows * InRow, 12345.0f);
    for (int R = 0; R < Rows; ++R)
      for (int I = 0; I < Len; ++I)
        X[(size_t)R * InRow + I] = (float)signal(R * 1000 + I, 23);
    std::vector<cufftComplex> Init((size_t)Rows * OutRow, make_cuFloatComplex(-1.0f, -1.0f));
    float *In = upload(X);
    cufftComplex *Out = upload(Init);
    cufftHandle Plan;
    CUFFT_CHECK(cufftPlanMany(&Plan, 1, N, Inembed, 1, InRow, Onembed, 1, OutRow, CUFFT_R2C, Rows));
    CUFFT_CHECK(cufftExecR2C(Plan, In, Out));
    std::vector<cufftComplex> Y = download(Out, (size_t)Rows * OutRow);
    double Err = 0, Sum = 0;
    bool Untouched = true;
    for (int R = 0; R < Rows; ++R) {
      std::vector<Cd> Xr(Len);
      for (int I = 0; I < Len; ++I)
        Xr[I] = X[(size_t)R * InRow + I];
      std::vector<Cd> Full = refDft(Xr, {Len}, -1), Want(Full.begin(), Full.begin() + H);
      std::vector<cufftComplex> Got(Y.begin() + (size_t)R * OutRow, Y.begin() + (size_t)R * OutRow + H);
      Err = std::max(Err, relError(Got, Want));
      Sum += sumAbsComplex(Got);
      for (int I = H; I < OutRow; ++I)
        Untouched &= Y[(size_t)R * OutRow + I].x == -1.0f && Y[(size_t)R * OutRow + I].y == -1.0f;
    }
    report("r2c padded rows", Err < 1e-5 && Untouched, Sum);
    Ok &= Err < 1e-5 && Untouched;
    CUFFT_CHECK(cufftDestroy(Plan));
    CHECK(cudaFree(In));
    CHECK(cudaFree(Out));
  }
  return finish(Ok && Failures == 0);
}
