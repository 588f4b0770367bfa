"""Internal: the kernel's session floor (see docs/API.md for the public API)."""
