"""Offline sync: idempotent push, cursor pull with tombstones, surfaced conflicts, the device registry."""
