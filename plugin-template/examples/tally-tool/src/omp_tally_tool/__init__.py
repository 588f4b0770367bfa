"""An omp plugin with a tool whose state belongs to the session (``ctx.state``)."""
