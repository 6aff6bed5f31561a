"""Code Mode: the model writes TypeScript against a generated SDK, run in a sandbox."""
