"""What every HTTP provider plugin shares: stream parsing (SSE, NDJSON), error
classification, retries with backoff, timeouts, API keys, the model catalogue, custom
models (models.json / models.yml), auth.json and cost.

Provider plugins call ``omp_llm.provider.providers_for`` to register their API's
providers, and ``omp_llm.transport.stream_lines`` with the client ``omp_llm.http``
makes; httpx and httpcore load on the first request. A plugin that writes its message
conversion as a fold (``omp_llm.incremental``) converts and encodes each message once
per conversation, and sends a ``omp_llm.body.PreparedBody`` that reuses those bytes.
The plugin itself (``omp_llm.plugin``) tells the kernel what it reads of the user's
configuration: models.json problems, custom providers nothing serves, and credentials.
"""
