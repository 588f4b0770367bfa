"""omp's google-generative-ai (Gemini) provider; see plugin.py for the hook."""
