"""What every HTTP provider plugin shares, with no HTTP library of its own: stream
parsing (SSE, NDJSON), error classification, retries with backoff, timeouts, API keys,
the model catalogue, custom models (models.json / models.yml) and cost.

Provider plugins bring httpx and call ``omp.llm.transport.stream_lines`` with their
client; the kernel itself never imports httpx. A plugin that writes its message
conversion as a fold (``omp.llm.incremental``) converts and encodes each message once
per conversation, and sends a ``omp.llm.body.PreparedBody`` that reuses those bytes.
"""
