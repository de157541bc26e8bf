"""The import area's settings: granted folders, approved principals, upload retention."""

from pathlib import Path

import pytest

from entrypoints.settings import SettingsError, load_settings


def test_defaults_grant_nothing_and_keep_no_upload(tmp_path: Path) -> None:
    settings = load_settings({"TESSERA_DATA_DIR": str(tmp_path)})
    assert settings.imports_dir == tmp_path.resolve() / "imports"
    assert settings.import_dirs == ()
    assert settings.import_path_principals == ()
    assert settings.import_keep_uploads_hours == 0


def test_granted_folders_approved_principals_and_retention_are_read(tmp_path: Path) -> None:
    settings = load_settings(
        {
            "TESSERA_DATA_DIR": str(tmp_path),
            "TESSERA_IMPORT_DIRS": f"local={tmp_path}/mail:rival={tmp_path}/rival",
            "TESSERA_IMPORT_PATH_PRINCIPALS": "local/01JBOB, rival/01JEVE",
            "TESSERA_IMPORT_KEEP_UPLOADS_HOURS": "48",
        }
    )
    assert settings.import_dirs == (
        ("local", tmp_path.resolve() / "mail"),
        ("rival", tmp_path.resolve() / "rival"),
    )
    assert settings.import_path_principals == (("local", "01JBOB"), ("rival", "01JEVE"))
    assert settings.import_keep_uploads_hours == 48


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("TESSERA_IMPORT_DIRS", "/srv/mail"),
        ("TESSERA_IMPORT_DIRS", "local=relative/mail"),
        ("TESSERA_IMPORT_DIRS", "=/srv/mail"),
        ("TESSERA_IMPORT_PATH_PRINCIPALS", "bob"),
        ("TESSERA_IMPORT_PATH_PRINCIPALS", "local/"),
        ("TESSERA_IMPORT_KEEP_UPLOADS_HOURS", "-1"),
        ("TESSERA_IMPORT_KEEP_UPLOADS_HOURS", "a day"),
        ("TESSERA_IMPORT_KEEP_UPLOADS_HOURS", "inf"),
    ],
)
def test_a_bad_value_names_its_setting(tmp_path: Path, name: str, value: str) -> None:
    with pytest.raises(SettingsError, match=name):
        load_settings({"TESSERA_DATA_DIR": str(tmp_path), name: value})


def test_the_container_hands_the_settings_to_the_imports(tmp_path: Path) -> None:
    from entrypoints.container import build_container

    env = {
        "TESSERA_DATA_DIR": str(tmp_path),
        "TESSERA_DB_URL": "mem://",
        "TESSERA_IMPORT_DIRS": f"local={tmp_path}/mail",
        "TESSERA_IMPORT_PATH_PRINCIPALS": "local/01JBOB",
        "TESSERA_IMPORT_KEEP_UPLOADS_HOURS": "1.5",
    }
    setup = build_container(load_settings(env)).imports()
    assert setup.root == tmp_path.resolve() / "imports" and not setup.anywhere
    assert {org: list(dirs) for org, dirs in setup.granted.items()} == {
        "local": [tmp_path.resolve() / "mail"]
    }
    assert set(setup.path_principals) == {("local", "01JBOB")}
    assert setup.keep_uploads.total_seconds() == 5400
