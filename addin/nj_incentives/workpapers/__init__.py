"""workpapers."""
