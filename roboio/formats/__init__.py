"""File formats, one package per ecosystem, all registered in :mod:`.registry`."""
