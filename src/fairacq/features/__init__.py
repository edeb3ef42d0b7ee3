"""Fair per-individual feature acquisition: DADI (paper 002, Bakker et al.).

An agent decides, individual by individual, which feature group to reveal next and when to
stop, trading the accuracy of a third party's classifier against how much the revealed
features tell an adversary about the sensitive attribute.
"""

from __future__ import annotations

__all__: list[str] = []
