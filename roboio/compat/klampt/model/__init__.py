"""Klamp't's ``klampt.model`` modules that roboio provides: :mod:`.collide`
(``WorldCollider`` and the collision iterators)."""
