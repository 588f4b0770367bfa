"""`omp config list|get|set|unset`: read and write settings, validated by the schema."""
