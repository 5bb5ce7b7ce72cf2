"""meshes formats."""
