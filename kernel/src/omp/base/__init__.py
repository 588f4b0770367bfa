"""Internal: the kernel's base floor (see docs/API.md for the public API)."""
