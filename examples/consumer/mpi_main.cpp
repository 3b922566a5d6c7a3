// Built when the consumer asks for cunum's himeno_mpi component: the Himeno problem cut
// across the MPI ranks, on the CPU backend. Run it under mpirun (one rank or more).
#include <mpi.h>

#include <cstdio>

#include "cunum/himeno_mpi.hpp"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int status = 1;
  {
    cunum::Placement placement;
    placement.backend = cunum::Backend::cpu;
    cunum::HimenoDistributed<float> problem(MPI_COMM_WORLD, cunum::himeno_grid(cunum::HimenoSize::xs), {}, {},
                                            placement);
    const double gosa = problem.iterate(1);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
      std::printf("cunum consumer (himeno_mpi): gosa = %g after one sweep\n", gosa);
    }
    status = gosa > 0.0 ? 0 : 1;
  }
  MPI_Finalize();
  return status;
}
