"""Pure TypeScript SDK generation for Code Mode (no I/O, no runtime imports)."""
