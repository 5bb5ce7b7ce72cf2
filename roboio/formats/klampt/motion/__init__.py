"""Klamp't motion files: configurations (``.config``, ``.configs``, ``.milestones``), linear
paths (``.path``), MultiPath XML and Klamp't's JSON forms of motions and contacts. One entry
module per file type; shared vector streams in :mod:`._vectors`."""
