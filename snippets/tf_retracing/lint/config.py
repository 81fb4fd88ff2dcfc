"""Settings of the linter: ``[tool.tf-retracing.lint]`` in ``pyproject.toml``.

```toml
[tool.tf-retracing.lint]
select = ["TFL001", "TFL003"]          # default: every rule
ignore = ["TFL004"]
exclude = ["notebooks/*", "legacy/"]   # glob patterns, relative to pyproject.toml
per-file-ignores = { "tests/*" = ["TFL003"] }
```

Every key and rule identifier is checked: a typo is an error naming the file and the key,
never a setting silently ignored.
"""

from __future__ import annotations

import dataclasses
import difflib
import fnmatch
import os
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from tf_retracing._site import SITE_URL
from tf_retracing.lint.rules import RULES_BY_CODE

SECTION = "tool.tf-retracing.lint"
_KEYS = {"select", "ignore", "exclude", "per-file-ignores"}


class ConfigError(Exception):
    """A settings file that cannot be used; the message names the file and the key."""


@dataclass(frozen=True)
class Config:
    select: frozenset[str] = frozenset(RULES_BY_CODE)
    ignore: frozenset[str] = frozenset()
    exclude: tuple[str, ...] = ()
    per_file_ignores: dict[str, frozenset[str]] = field(default_factory=dict)
    root: Path | None = None  # patterns are relative to this folder (pyproject.toml's)
    source: str = "defaults"
    site_url: str = SITE_URL
    # Sections of a settings file spelt nearly as ours, and so not read: the command line
    # prints each as a warning (a table ignored without a word would be a silent setting).
    warnings: tuple[str, ...] = ()

    def _relative(self, path: str) -> str:
        if self.root is None:
            return PurePosixPath(path).as_posix()
        absolute = Path(os.path.abspath(path))
        try:
            return absolute.relative_to(self.root.resolve()).as_posix()
        except ValueError:
            return PurePosixPath(path).as_posix()

    def _matches(self, path: str, pattern: str) -> bool:
        relative = self._relative(path)
        pattern = pattern.rstrip("/")
        return fnmatch.fnmatch(relative, pattern) or fnmatch.fnmatch(relative, pattern + "/*")

    def excluded(self, path: str) -> bool:
        return any(self._matches(path, pattern) for pattern in self.exclude)

    def enabled(self, code: str, path: str) -> bool:
        if code not in self.select or code in self.ignore:
            return False
        return not any(
            code in codes
            for pattern, codes in self.per_file_ignores.items()
            if self._matches(path, pattern)
        )


def _codes(value: object, where: str) -> frozenset[str]:
    if not isinstance(value, list) or not all(isinstance(c, str) for c in value):
        raise ConfigError(f"{where}: expected a list of rule identifiers such as ['TFL001']")
    unknown = sorted(set(value) - set(RULES_BY_CODE))
    if unknown:
        raise ConfigError(
            f"{where}: unknown rule {unknown[0]!r} (known: {', '.join(sorted(RULES_BY_CODE))})"
        )
    return frozenset(value)


def config_from_table(table: object, source: str, root: Path | None) -> Config:
    """A Config from the ``[tool.tf-retracing.lint]`` table, every key checked."""
    where = f"{source}: [{SECTION}]"
    if not isinstance(table, dict):
        raise ConfigError(f"{where} must be a table")
    unknown = sorted(set(table) - _KEYS)
    if unknown:
        raise ConfigError(
            f"{where}: unknown key {unknown[0]!r} (known: {', '.join(sorted(_KEYS))})"
        )
    exclude = table.get("exclude", [])
    if not isinstance(exclude, list) or not all(isinstance(p, str) for p in exclude):
        raise ConfigError(f"{where}: 'exclude' must be a list of glob patterns")
    per_file = table.get("per-file-ignores", {})
    if not isinstance(per_file, dict):
        raise ConfigError(f"{where}: 'per-file-ignores' must be a table of pattern = [rules]")
    return Config(
        select=_codes(table["select"], f"{where} 'select'")
        if "select" in table
        else frozenset(RULES_BY_CODE),
        ignore=_codes(table.get("ignore", []), f"{where} 'ignore'"),
        exclude=tuple(exclude),
        per_file_ignores={
            pattern: _codes(codes, f"{where} 'per-file-ignores' {pattern!r}")
            for pattern, codes in per_file.items()
        },
        root=root,
        source=source,
    )


def _load_toml(path: Path) -> dict:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        try:
            import tomli as tomllib
        except ModuleNotFoundError:
            raise ConfigError(
                f"{path}: reading pyproject.toml needs Python 3.11 or the 'tomli' package"
            ) from None
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: cannot read: {error}") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: not valid TOML: {error}") from None


def load_config(explicit: str | None = None, start: Path | None = None) -> Config:
    """The settings from ``explicit`` (a pyproject.toml), or from the nearest
    pyproject.toml at or above ``start`` that has the section; defaults otherwise. A
    section spelt nearly as ours (``[tool.tf-retracing.lnt]``, ``[tool.tf_retracing]``)
    in a file read is named in ``Config.warnings``."""
    warned: list[str] = []
    if explicit is not None:
        path = Path(explicit)
        if not path.is_file():
            raise ConfigError(f"{explicit}: no such settings file")
        table = _section(_load_toml(path), str(path), warned)
        config = config_from_table({} if table is None else table, str(path), path.parent)
        return dataclasses.replace(config, warnings=tuple(warned))
    folder = (start or Path.cwd()).resolve()
    for candidate in [folder, *folder.parents]:
        path = candidate / "pyproject.toml"
        if path.is_file():
            table = _section(_load_toml(path), _shown(path), warned)
            if table is not None:
                config = config_from_table(table, _shown(path), candidate)
                return dataclasses.replace(config, warnings=tuple(warned))
            if (candidate / ".git").exists():
                break  # stop at the repository root, as ruff does at the project
    return Config(warnings=tuple(warned))


def _section(document: dict, source: str, warned: list[str]) -> object | None:
    """``[tool.tf-retracing.lint]``, or None when absent; a ConfigError naming the key when
    ``tool`` or ``tool.tf-retracing`` is not a table. A section spelt nearly so is named
    in ``warned``: it would otherwise be ignored without a word."""
    warned += [
        f"{source}: [{near}] is not read; the linter reads [{SECTION}]"
        for near in _near_misses(document)
    ]
    table: object = document
    where = []
    for key in ("tool", "tf-retracing", "lint"):
        if key not in table:
            return None
        table = table[key]
        where.append(key)
        if key != "lint" and not isinstance(table, dict):
            raise ConfigError(f"{source}: [{'.'.join(where)}] must be a table")
    return table


def _near_misses(document: dict) -> list[str]:
    """Sections spelt like ours but not ours: ``tool.tf_retracing.lint``,
    ``tool.tf-retracng``, ``tool.tfretracing``; and any table in ``tool.tf-retracing``
    but ``lint`` (``tool.tf-retracing.lnt``): nothing reads one."""
    tool = document.get("tool")
    if not isinstance(tool, dict):
        return []
    found = []
    for name, table in tool.items():
        if name != "tf-retracing" and _spelt_like_ours(name):
            inner = sorted(table) if isinstance(table, dict) else []
            found += [f"tool.{name}.{key}" for key in inner] or [f"tool.{name}"]
    ours = tool.get("tf-retracing")
    if isinstance(ours, dict):
        found += [f"tool.tf-retracing.{key}" for key in ours if key != "lint"]
    return found


def _spelt_like_ours(name: str) -> bool:
    squashed = _squashed(name)
    if squashed in ("tfretracing", "tfretracinglint"):
        return True
    return difflib.SequenceMatcher(None, squashed, "tfretracing").ratio() >= 0.8


def _squashed(name: str) -> str:
    return "".join(c for c in name.lower() if c.isalnum())


def _shown(path: Path) -> str:
    """The path relative to the working folder when it is below it, as messages show it."""
    try:
        return path.relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return str(path)
