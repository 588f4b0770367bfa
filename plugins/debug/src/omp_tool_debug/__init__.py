"""omp-tool-debug: the ``debug`` tool over the Debug Adapter Protocol."""
