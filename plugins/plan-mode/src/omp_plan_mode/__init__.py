"""omp's plan mode: the model explores read-only and writes a plan the user approves."""
