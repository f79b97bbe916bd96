"""``blake2b`` without importing ``hashlib`` (which loads OpenSSL, ~4 ms on the hook's path)."""

from __future__ import annotations

try:
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - Python builds without the _blake2 module
    from hashlib import blake2b

__all__ = ["blake2b"]
