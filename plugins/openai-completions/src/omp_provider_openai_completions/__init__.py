"""The openai-completions API: OpenAI Chat Completions and OpenAI-compatible servers.

plugin.py registers the providers, convert.py builds the request body, parse.py turns
the streamed chunks into omp's normalized events and wire.py sends the request."""
