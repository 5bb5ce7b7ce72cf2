"""urdf formats."""
