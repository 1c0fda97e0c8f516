"""Codex's own test vectors (tests/parity/codex_vectors.tsv) through the
Python front end: every one is expressible, and pathgate answers each as
Codex does unless docs/uri.md explains why not (tests/parity/codex_parity.py
keeps that list)."""

import importlib.util
import pathlib

import pathgate

_SCRIPT = pathlib.Path(__file__).resolve().parents[1] / "parity" / "codex_parity.py"


def _parity():
    spec = importlib.util.spec_from_file_location("codex_parity", _SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_codex_vectors_agree_or_are_documented():
    parity = _parity()
    counts, undocumented = parity.measure(pathgate)
    assert undocumented == [], f"differences docs/uri.md does not explain: lines {undocumented}"
    assert counts["inexpressible"] == 0
    assert counts["agreed"] + counts["different"] >= 400
    assert counts["different"] == len(parity.DELIBERATE)
