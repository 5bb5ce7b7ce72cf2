"""choreonoid formats."""
