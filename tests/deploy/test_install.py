"""The README's install commands take every version from constraints.txt, and that file pins
every package the project names."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]


def _pins() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, version = line.partition("==")
            assert version and re.fullmatch(r"[\w.]+", version), f"not pinned: {line!r}"
            pins[canonicalize_name(name)] = version
    return pins


def _named_requirements() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    listed = [*project["dependencies"]]
    for extra in project["optional-dependencies"].values():
        listed += [r for r in extra if not r.startswith("refinery[")]
    return [Requirement(r) for r in listed]


def test_every_package_the_project_names_is_pinned_within_its_range():
    pins = _pins()
    for requirement in _named_requirements():
        name = canonicalize_name(requirement.name)
        assert name in pins, f"{name} is not in constraints.txt: run scripts/lock.sh"
        assert requirement.specifier.contains(pins[name], prereleases=True), (name, pins[name])


def test_every_pip_install_in_the_readme_is_constrained():
    commands = re.findall(r"^pip install .*$", (ROOT / "README.md").read_text(), re.M)
    assert len(commands) == 2  # run the main job; run the tests
    parts = [part for command in commands for part in command.split("&&")]
    installs = [part for part in parts if "pip install" in part]
    assert installs and all("-c constraints.txt" in part for part in installs), installs


def test_ci_runs_the_readmes_test_command():
    ci = (ROOT / ".ci" / "run").read_text()
    assert "grep -m1 -E '^pip install -c constraints.txt torch==' README.md" in ci
    assert re.search(r"^eval \"\$test_command\"$", ci, re.M)
    assert ci.index('eval "$test_command"') < ci.index("apt-get")
