"""support."""
