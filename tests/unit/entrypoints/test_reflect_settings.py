"""Background reflection is off by default and turned on by one setting."""

from pathlib import Path

import pytest

from adapters.inmemory.audit_log import InMemoryAuditLog
from adapters.inmemory.control_store import InMemoryControlStore
from adapters.inmemory.hashing_embedder import HashingEmbedder
from adapters.inmemory.memory_store import InMemoryMemoryStore
from adapters.inprocess.index import InProcessIndex
from entrypoints.container import _reflect_on_write, make_services
from entrypoints.settings import SettingsError, load_settings


def test_off_by_default_and_on_by_setting(tmp_path: Path) -> None:
    assert not _reflect_on_write(load_settings({"TESSERA_DATA_DIR": str(tmp_path)}))
    on = load_settings({"TESSERA_DATA_DIR": str(tmp_path), "TESSERA_REFLECT_ON_WRITE": "on"})
    assert _reflect_on_write(on)
    with pytest.raises(SettingsError, match="TESSERA_REFLECT_ON_WRITE"):
        load_settings({"TESSERA_DATA_DIR": str(tmp_path), "TESSERA_REFLECT_ON_WRITE": "maybe"})


@pytest.mark.parametrize("on", [False, True])
def test_the_composition_root_wires_the_lane_only_when_asked(on: bool) -> None:
    services = make_services(
        InMemoryMemoryStore(),
        InProcessIndex(),
        HashingEmbedder(),
        InMemoryControlStore(),
        InMemoryAuditLog(),
        "local",
        reflect_on_write=on,
    )
    assert (services.reflection_lane is not None) is on
