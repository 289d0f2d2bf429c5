"""How long a new embedded server may take (issue 25, item 10): `annotators add --start-timeout`
or HUME_LS_START_TIMEOUT, named in --help; past the limit one line says how to raise it and where
the log is, the command exits 2, nothing is registered, and no Label Studio process is left
running: neither the server nor a template build it was waiting on."""

from __future__ import annotations

from pathlib import Path

import pytest

from hume_sync.cli import main
from hume_sync.labelstudio import prepared_db, server
from hume_sync.labelstudio.servers import annotator_home
from hume_sync.store import Store
from tests._studies import real_data_spec, write_spec

EMAIL = "slow@lab.org"


@pytest.fixture
def study(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HUME_HOME", str(tmp_path / "hume-home"))
    for name in ("LABEL_STUDIO_URL", "LABEL_STUDIO_API_KEY", server.START_TIMEOUT_ENV):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv(prepared_db.TEMPLATE_SWITCH, raising=False)
    spec = real_data_spec("slow-start", 1, cls_eng=3, cls_arb=2, sts=2, rerank=2)
    d = tmp_path / "study"
    assert main(["init", str(d), "--spec", str(write_spec(d, spec))]) == 0
    return d


def _processes_mentioning(text: str) -> list[int]:
    """Live processes whose command line names `text` (a data folder, the template cache)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes().decode("utf-8", "replace")
                state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if text in cmdline and state != "Z":
                found.append(int(entry.name))
    return found


def test_the_limit_is_named_in_help(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["annotators", "add", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "--start-timeout SECONDS" in out and "$HUME_LS_START_TIMEOUT" in out


def test_bad_limits_are_refused_before_anything_starts(study: Path, monkeypatch, capsys) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["annotators", "add", str(study), EMAIL, "--start-timeout", "0"])
    assert exit_.value.code == 2
    assert "--start-timeout: not a number of seconds above 0: '0'" in capsys.readouterr().err
    monkeypatch.setenv(server.START_TIMEOUT_ENV, "soon")
    assert main(["annotators", "add", str(study), EMAIL]) == 2
    err = capsys.readouterr().err.strip()
    assert err.splitlines() == [
        "hume-sync annotators: error: HUME_LS_START_TIMEOUT must be a number of seconds "
        "above 0, got 'soon'"
    ]
    assert not (annotator_home(EMAIL) / "label-studio").exists()
    with Store.open(study) as store:
        assert store.annotators() == []


@pytest.mark.labelstudio
@pytest.mark.parametrize("template", ["being built", "ready"])
def test_a_start_past_its_limit_says_how_to_raise_it(
    template: str, study: Path, tmp_path: Path, monkeypatch, capsys, request
) -> None:
    """`being built`: an empty template cache, the limit in the environment: the migrations of
    the template are cut off. `ready`: the session's template (made for `ls_server`), the limit
    on the command line: Label Studio itself is cut off."""
    try:
        server.find_executable()
    except server.ServerStartError as exc:
        pytest.skip(f"Label Studio is not installed: {exc}")
    args = ["annotators", "add", str(study), EMAIL, "--languages", "eng"]
    if template == "ready":
        request.getfixturevalue("ls_server")
        args += ["--start-timeout", "1"]
    else:
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
        monkeypatch.setenv(server.START_TIMEOUT_ENV, "1.5")
    capsys.readouterr()
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    data_dir = (annotator_home(EMAIL) / "label-studio").resolve()
    limit = "1" if template == "ready" else "1.5"
    assert len(err.splitlines()) == 1, err
    assert f"/health within {limit} s (raise the limit with 'annotators add --start-timeout" in err
    assert "HUME_LS_START_TIMEOUT=SECONDS)" in err
    if template == "ready":
        assert err.endswith(f"; its log: {data_dir / server.LOG_FILE}")
    else:  # cut off while migrating the template: where that build wrote
        (build_log,) = (tmp_path / "cache").rglob("*.build.log")
        assert err.endswith(f"; the migrations' log: {build_log}")
    assert _processes_mentioning(str(data_dir)) == []
    assert not (data_dir / server.PID_FILE).exists()
    if template == "being built":
        cache = tmp_path / "cache"
        assert _processes_mentioning(str(cache)) == []
        assert list(cache.rglob("*.sqlite3")) == [], "a half-made template was kept"
        assert list(cache.rglob(".build-*")) == []
    with Store.open(study) as store:
        assert store.annotators() == []
