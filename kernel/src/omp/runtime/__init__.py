"""Internal: the kernel's runtime floor (see docs/API.md for the public API)."""
