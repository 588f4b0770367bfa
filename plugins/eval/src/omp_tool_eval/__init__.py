"""omp-tool-eval: the ``eval`` tool on a persistent Jupyter kernel."""
