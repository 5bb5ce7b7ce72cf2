"""Content tests of the Choreonoid formats (cheap: standard library only)."""
from __future__ import annotations

__all__ = ["sniff_body", "sniff_seq", "sniff_pseq"]


def sniff_body(head: bytes, path: str) -> bool:
    return b"ChoreonoidBody" in head


def sniff_seq(head: bytes, path: str) -> bool:
    return b"CompositeSeq" in head or (b"BodyMotion" in head and b"components" in head)


def sniff_pseq(head: bytes, path: str) -> bool:
    return b"PoseSeq" in head
