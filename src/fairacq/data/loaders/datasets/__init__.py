"""One loader per named data set.

Adult, COMPAS, German credit and Bank Marketing (bundled), Give Me Some Credit, the Taiwan
credit data, MovieLens 100K and the ACS tasks (read from the local data directory). Each turns
the raw file into a :class:`~fairacq.data.FairDataset` with the shared machinery of
:mod:`fairacq.data.loaders` (paths, catalogue, encoding and build); every public name is
exported from :mod:`fairacq.data.loaders`, so nothing is exported here.
"""

from __future__ import annotations

__all__: list[str] = []
