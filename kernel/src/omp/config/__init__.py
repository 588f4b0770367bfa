"""Internal: the kernel's config floor (see docs/API.md for the public API)."""
