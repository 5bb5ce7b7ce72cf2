"""klampt formats."""
