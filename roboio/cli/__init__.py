"""Command-line front end (``roboio``). Prints; never parses file formats itself."""
from .main import main

__all__ = ["main"]
