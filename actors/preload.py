"""What each worker of a local Ray imports as it starts (`runtime.PRELOADED_MODULES`).

A new `DomainFetcher`, usually on an idle standby worker (actors/standby.py), then
finds its modules imported, the public suffix list parsed and Ray's serialization
ready, instead of spending its first few hundred milliseconds of CPU on them while
its site waits.
"""

from __future__ import annotations

import lyra.actors.fetch  # noqa: F401
from lyra.actors.runtime import warm_serialization
from lyra.pipelines.net.domains import warm_suffix_list

warm_suffix_list()
# Whether this worker's Ray serialization was made ready here (False: Ray's internals
# differ, and it is made on the first task as before).
SERIALIZATION_READY = warm_serialization()
