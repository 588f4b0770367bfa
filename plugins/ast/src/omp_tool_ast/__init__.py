"""omp-tool-ast: the ast_grep and ast_edit tools."""
