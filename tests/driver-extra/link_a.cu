__device__ int Scale = 3;
extern __device__ int Bias;
__device__ int twice(int x) { return x * Scale + Bias; }
