"""omp-tool-read: the built-in ``read`` tool (numbered lines, offset/limit paging)."""
