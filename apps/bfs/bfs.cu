/// \file
/// Breadth-first search on a random graph in CSR form, level-synchronous with
/// an explicit frontier queue: each level's kernel expands the frontier,
/// claims unvisited vertices with atomicCAS and appends them to the next
/// frontier with atomicAdd. Distances match a CPU BFS exactly.
#include "../common/app_util.h"
#include <queue>
#include <vector>

__global__ void expand(const int *RowPtr, const int *Cols, const int *Frontier, int FrontSize, int *Dist, int Level,
                       int *Next, int *NextSize) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I >= FrontSize)
    return;
  int V = Frontier[I];
  for (int E = RowPtr[V]; E < RowPtr[V + 1]; ++E) {
    int U = Cols[E];
    if (atomicCAS(&Dist[U], -1, Level + 1) == -1)
      Next[atomicAdd(NextSize, 1)] = U;
  }
}

int main() {
  const int V = 20000, AvgDeg = 6;
  // Random graph plus a long path through part of it, so there are many levels.
  std::vector<std::vector<int>> Adj(V);
  Lcg Rng(2);
  for (int I = 0; I < V * AvgDeg / 2; ++I) {
    int A = int(Rng.below(V)), B = int(Rng.below(V));
    if (A < V / 2 && B < V / 2) { // the first half is a dense random graph
      Adj[A].push_back(B);
      Adj[B].push_back(A);
    }
  }
  for (int I = V / 2; I < V - 1; I += 1) // a path 0 -> V/2 -> ... with shortcuts
    if (I % 50 != 0) {
      Adj[I].push_back(I + 1);
      Adj[I + 1].push_back(I);
    }
  Adj[0].push_back(V / 2);
  Adj[V / 2].push_back(0);
  std::vector<int> RowPtr(V + 1, 0), Cols;
  for (int I = 0; I < V; ++I) {
    RowPtr[I + 1] = RowPtr[I] + int(Adj[I].size());
    Cols.insert(Cols.end(), Adj[I].begin(), Adj[I].end());
  }
  int E = int(Cols.size());
  int *DRow, *DCols, *DDist, *DFront, *DNext, *DNextSize;
  CHECK(cudaMalloc(&DRow, (V + 1) * sizeof(int)));
  CHECK(cudaMalloc(&DCols, E * sizeof(int)));
  CHECK(cudaMalloc(&DDist, V * sizeof(int)));
  CHECK(cudaMalloc(&DFront, V * sizeof(int)));
  CHECK(cudaMalloc(&DNext, V * sizeof(int)));
  CHECK(cudaMalloc(&DNextSize, sizeof(int)));
  CHECK(cudaMemcpy(DRow, RowPtr.data(), (V + 1) * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(DCols, Cols.data(), E * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(DDist, 0xff, V * sizeof(int)));
  int Zero = 0, Source = 0;
  CHECK(cudaMemcpy(DDist + Source, &Zero, sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(DFront, &Source, sizeof(int), cudaMemcpyHostToDevice));
  int FrontSize = 1, Level = 0;
  while (FrontSize > 0) {
    CHECK(cudaMemset(DNextSize, 0, sizeof(int)));
    expand<<<(FrontSize + 127) / 128, 128>>>(DRow, DCols, DFront, FrontSize, DDist, Level, DNext, DNextSize);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(&FrontSize, DNextSize, sizeof(int), cudaMemcpyDeviceToHost));
    std::swap(DFront, DNext);
    ++Level;
  }
  std::vector<int> Dist(V);
  CHECK(cudaMemcpy(Dist.data(), DDist, V * sizeof(int), cudaMemcpyDeviceToHost));
  std::vector<int> Want(V, -1);
  std::queue<int> Q;
  Want[Source] = 0;
  Q.push(Source);
  while (!Q.empty()) {
    int X = Q.front();
    Q.pop();
    for (int E2 = RowPtr[X]; E2 < RowPtr[X + 1]; ++E2)
      if (Want[Cols[E2]] < 0) {
        Want[Cols[E2]] = Want[X] + 1;
        Q.push(Cols[E2]);
      }
  }
  int Bad = 0, Reached = 0, MaxD = 0;
  long long SumD = 0;
  for (int I = 0; I < V; ++I) {
    Bad += Dist[I] != Want[I];
    if (Want[I] >= 0) {
      ++Reached;
      SumD += Want[I];
      MaxD = Want[I] > MaxD ? Want[I] : MaxD;
    }
  }
  std::printf("vertices=%d edges=%d levels=%d reached=%d max depth=%d sum of depths=%lld mismatches=%d\n", V, E,
              Level, Reached, MaxD, SumD, Bad);
  CHECK(cudaFree(DRow));
  CHECK(cudaFree(DCols));
  CHECK(cudaFree(DDist));
  CHECK(cudaFree(DFront));
  CHECK(cudaFree(DNext));
  CHECK(cudaFree(DNextSize));
  return finish(Bad == 0);
}
