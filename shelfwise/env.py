"""Typed readers for settings that come from the environment.

Each helper reads ``NAME`` (or the file named by ``NAME_FILE`` for secrets), applies a
default when the variable is unset, and raises ``ImproperlyConfigured`` naming the
variable when the value cannot be used, so a bad deployment fails at start, not later.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def _raw(name: str) -> str | None:
    file_name = os.environ.get(f"{name}_FILE")
    if file_name:
        try:
            return Path(file_name).read_text().strip()
        except OSError as exc:
            raise ImproperlyConfigured(f"{name}_FILE points at {file_name!r}, which cannot be read: {exc.strerror}.") from exc
    return os.environ.get(name)


def env_str(name: str, default: str = "") -> str:
    value = _raw(name)
    return default if value is None else value


def env_bool(name: str, default: bool = False) -> bool:
    value = _raw(name)
    if value is None:
        return default
    lowered = value.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name} must be true or false (1/0, yes/no, on/off), not {value!r}.")


def env_int(name: str, default: int, *, minimum: int | None = None, maximum: int | None = None) -> int:
    value = _raw(name)
    if value is None or value.strip() == "":
        return default
    try:
        number = int(value)
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name} must be a whole number, not {value!r}.") from exc
    if minimum is not None and number < minimum:
        raise ImproperlyConfigured(f"{name} must be at least {minimum}, not {number}.")
    if maximum is not None and number > maximum:
        raise ImproperlyConfigured(f"{name} must be at most {maximum}, not {number}.")
    return number


def env_float(name: str, default: float, *, minimum: float | None = None) -> float:
    value = _raw(name)
    if value is None or value.strip() == "":
        return default
    try:
        number = float(value)
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name} must be a number, not {value!r}.") from exc
    if minimum is not None and number < minimum:
        raise ImproperlyConfigured(f"{name} must be at least {minimum}, not {number}.")
    return number


def env_list(name: str, default: list[str]) -> list[str]:
    value = _raw(name)
    if value is None:
        return list(default)
    items = [item.strip() for item in value.split(",")]
    if any(not item for item in items):
        raise ImproperlyConfigured(f"{name} is a comma-separated list without empty entries, not {value!r}.")
    return items


def env_choice(name: str, default: str, choices: tuple[str, ...]) -> str:
    value = env_str(name, default).strip()
    if value not in choices:
        raise ImproperlyConfigured(f"{name} must be one of {', '.join(choices)}, not {value!r}.")
    return value


# SQLite shared by several processes (web, worker, beat under `make run`): write-ahead logging lets
# readers go on while one writer commits, and BEGIN IMMEDIATE takes the write lock when a
# transaction starts, so two read-then-write transactions wait their turn (busy timeout) instead of
# one failing at once with "database is locked" when it tries to upgrade.
SQLITE_OPTIONS = {
    "timeout": 20,
    "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL",
    "transaction_mode": "IMMEDIATE",
}


def env_database(name: str, default_sqlite: Path) -> dict:
    """Parse ``DATABASE_URL`` (sqlite:///path or postgres://...) into Django's DATABASES entry."""
    import dj_database_url

    value = _raw(name)
    if not value:
        return {"ENGINE": "django.db.backends.sqlite3", "NAME": str(default_sqlite), "OPTIONS": dict(SQLITE_OPTIONS)}
    scheme = urlsplit(value).scheme
    if scheme not in {"sqlite", "postgres", "postgresql", "pgsql"}:
        raise ImproperlyConfigured(f"{name} must be a sqlite:// or postgres:// URL, not one with scheme {scheme!r}.")
    try:
        # Persistent connections for processes whose threads live long (Celery workers, the test
        # client); the ASGI web process sets DATABASE_CONN_MAX_AGE=0 (shelfwise/asgi.py).
        max_age = env_int("DATABASE_CONN_MAX_AGE", 60, minimum=0)
        config = dj_database_url.parse(value, conn_max_age=max_age, conn_health_checks=True)
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name} could not be parsed: {exc}.") from exc
    if config["ENGINE"] == "django.db.backends.sqlite3":
        config["OPTIONS"] = dict(SQLITE_OPTIONS)
        config["CONN_MAX_AGE"] = 0
    elif max_age == 0 and (pool_max := env_int("DATABASE_POOL_MAX", 10, minimum=0)):
        # Connections that are closed after each request go back to a pool (psycopg_pool, Django's
        # own support) instead of ending: a new PostgreSQL session forks a server process, which
        # took half of a shelf-finder request's CPU on this machine (README "Load"). A pooled
        # session's row-level security state is re-set before its first statement (tenants.db).
        config.setdefault("OPTIONS", {})["pool"] = {"min_size": min(2, pool_max), "max_size": pool_max, "timeout": 3}
    return config


def env_redis_url(name: str) -> str | None:
    value = _raw(name)
    if not value:
        return None
    if urlsplit(value).scheme not in {"redis", "rediss", "unix"}:
        raise ImproperlyConfigured(f"{name} must be a redis:// or rediss:// URL, not {value!r}.")
    return value


def env_email(name: str, default_dir: Path) -> dict:
    """Parse ``EMAIL_URL``: console://, file:///dir, memory://, smtp://user:pass@host:port?tls=1."""
    value = _raw(name) or "console://"
    parts = urlsplit(value)
    query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
    if parts.scheme == "console":
        return {"EMAIL_BACKEND": "django.core.mail.backends.console.EmailBackend"}
    if parts.scheme == "memory":
        return {"EMAIL_BACKEND": "django.core.mail.backends.locmem.EmailBackend"}
    if parts.scheme == "file":
        return {"EMAIL_BACKEND": "django.core.mail.backends.filebased.EmailBackend", "EMAIL_FILE_PATH": parts.path or str(default_dir)}
    if parts.scheme in {"smtp", "smtps"}:
        if not parts.hostname:
            raise ImproperlyConfigured(f"{name} needs a host, as in smtp://user:password@mail.example.com:587.")
        return {
            "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "EMAIL_HOST": parts.hostname,
            "EMAIL_PORT": parts.port or (465 if parts.scheme == "smtps" else 587),
            "EMAIL_HOST_USER": parts.username or "",
            "EMAIL_HOST_PASSWORD": parts.password or "",
            "EMAIL_USE_SSL": parts.scheme == "smtps",
            "EMAIL_USE_TLS": parts.scheme == "smtp" and query.get("tls", "1") in _TRUE,
        }
    raise ImproperlyConfigured(f"{name} must start with console://, file://, memory://, smtp:// or smtps://, not {value!r}.")


BROKER_SCHEMES = {"redis", "rediss", "amqp", "amqps", "pyamqp", "filesystem", "memory"}


def env_broker_url(name: str, default: str | None) -> str | None:
    """A Celery broker URL: redis://, amqp:// (RabbitMQ), or filesystem:// (one machine, no server)."""
    value = _raw(name)
    if not value:
        return default
    scheme = urlsplit(value).scheme
    if scheme not in BROKER_SCHEMES:
        raise ImproperlyConfigured(
            f"{name} must be a redis://, amqp:// or filesystem:// URL, not one with scheme {scheme!r}."
        )
    return value


def broker_transport_options(broker_url: str | None, data_dir: Path) -> dict:
    """Transport options for the broker: folders for filesystem://, bounded waits for Redis."""
    scheme = urlsplit(broker_url or "").scheme
    if scheme == "filesystem":
        folder = data_dir / "broker"
        for sub in ("queue", "processed", "control"):
            (folder / sub).mkdir(parents=True, exist_ok=True)
        # Every process reads and writes the same folder: one machine's web, worker and beat.
        return {
            "data_folder_in": str(folder / "queue"),
            "data_folder_out": str(folder / "queue"),
            "processed_folder": str(folder / "processed"),
            "control_folder": str(folder / "control"),
            "store_processed": False,
            "polling_interval": 0.1,
        }
    if scheme in {"redis", "rediss"}:
        return {
            # A task not acknowledged this long after delivery (its worker vanished) is delivered
            # again. Longer than the longest task (a benchmark run), else it would run twice.
            "visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT", 7200, minimum=60),
            "socket_connect_timeout": 2,
            "socket_timeout": 10,
        }
    return {}


def env_or_generated(name: str, path: Path, *, nbytes: int) -> str:
    """``NAME`` (or ``NAME_FILE``), else a random secret generated once into ``path`` (mode 0600).

    For per-install secrets that must never be a published constant: the first start writes
    the file, later starts read it back.
    """
    value = _raw(name)
    if value:
        return value
    if not path.exists():
        try:
            # Created readable by the owner only, before the secret is written into it.
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            pass  # another process starting at the same moment wrote it
        else:
            with os.fdopen(descriptor, "w") as handle:
                handle.write(secrets.token_urlsafe(nbytes))
    return path.read_text().strip()


def env_rate(name: str, default: str) -> str:
    """A DRF rate such as ``30/min`` (per second, minute, hour or day)."""
    value = env_str(name, default).strip()
    count, _, period = value.partition("/")
    if not count.isdigit() or int(count) < 1 or period not in {"s", "sec", "second", "m", "min", "minute", "h", "hour", "d", "day"}:
        raise ImproperlyConfigured(f"{name} must look like 30/min (a number per s, min, hour or day), not {value!r}.")
    return value
