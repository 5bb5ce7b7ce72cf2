"""Klamp't geometry files: primitives (``.geom``), groups (``.group``), triangle meshes
(``.tri``) and geometry streams (:mod:`.stream`: the grammar shared by ``.group`` files and
inline ``{TypeName ...}`` geometry in robot and world files)."""
