"""Internal: the kernel's agent floor (see docs/API.md for the public API)."""
