"""omp-compaction: compaction, branch summaries, pruning and token counting."""
