"""omp MCP client plugin."""
