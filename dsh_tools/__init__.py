"""dsh-tools: a tool registry and policy pipeline for agent harnesses."""
