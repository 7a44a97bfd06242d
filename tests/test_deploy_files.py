"""The deployment files: the compose file validates and says what the issue promises; the image
is multi-stage and runs as a non-root user; the Procfile starts the same topology natively."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
DOCKER = ROOT / "docker"
ENV_EXAMPLE = DOCKER / ".env.example"


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load((DOCKER / "compose.yaml").read_text())


def test_the_compose_file_runs_postgres_redis_web_workers_per_queue_beat_and_a_proxy(compose):
    services = compose["services"]
    assert {"db", "redis", "migrate", "web", "proxy", "worker-turns", "worker-jobs", "worker-bench", "beat"} <= set(services)
    assert services["web"]["deploy"]["replicas"] >= 2
    queues = {name: service["command"][service["command"].index("-Q") + 1]
              for name, service in services.items() if name.startswith("worker-")}
    assert queues == {"worker-turns": "turns", "worker-jobs": "jobs,imports", "worker-bench": "bench"}
    assert "DatabaseScheduler" in " ".join(services["beat"]["command"])
    # The optional model servers are behind profiles: a plain `up` runs without them.
    assert services["model-server"]["profiles"] == ["model-server"] and services["vllm"]["profiles"] == ["gpu"]


def test_every_long_running_service_has_a_health_check_and_state_lives_in_volumes(compose):
    services = compose["services"]
    for name in ("db", "redis", "web", "proxy", "worker-turns", "worker-jobs", "worker-bench", "model-server"):
        assert "test" in services[name]["healthcheck"], name
    assert {"pgdata", "redisdata", "media", "models"} <= set(compose["volumes"])
    assert any(volume.startswith("pgdata:") for volume in services["db"]["volumes"])


def test_app_containers_run_as_a_non_root_user_and_the_proxy_serves_media_not_django(compose):
    services = compose["services"]
    for name in ("migrate", "web", "worker-turns", "worker-jobs", "worker-bench", "beat"):
        assert services[name]["user"] == "10001:10001", name
        assert services[name]["environment"]["SERVE_MEDIA"] == "false", name
    assert "media:/srv/media:ro" in services["proxy"]["volumes"]
    nginx = (DOCKER / "nginx" / "shelfwise.conf").read_text()
    assert "location /media/" in nginx and "alias /srv/media/;" in nginx and "Upgrade $http_upgrade" in nginx


def test_postgres_gets_a_non_superuser_login_role_for_the_app():
    script = (DOCKER / "postgres" / "init-app-role.sh").read_text()
    assert "CREATE ROLE shelfwise LOGIN NOSUPERUSER" in script and "BYPASSRLS" in script


def test_the_image_is_multi_stage_and_its_last_stage_runs_as_a_non_root_user():
    dockerfile = (DOCKER / "Dockerfile").read_text().splitlines()
    stages = [i for i, line in enumerate(dockerfile) if line.startswith("FROM ")]
    assert len(stages) >= 2
    final = dockerfile[stages[-1]:]
    users = [line.split()[1] for line in final if line.startswith("USER ")]
    assert users and not users[-1].startswith(("root", "0"))
    assert any("collectstatic" in line for line in dockerfile) and any("inference.bundle" in line for line in dockerfile)


@pytest.mark.skipif(shutil.which("docker-compose") is None and shutil.which("docker") is None,
                    reason="no docker compose client here")
def test_docker_compose_validates_the_file_with_every_profile(tmp_path):
    secrets = DOCKER / "secrets"
    made = not secrets.exists()
    secrets.mkdir(exist_ok=True)
    created = []
    for name in ("secret_key", "db_password", "postgres_password"):
        path = secrets / f"{name}.txt"
        if not path.exists():
            path.write_text("validation-only\n")
            created.append(path)
    try:
        if shutil.which("docker-compose"):
            command = ["docker-compose"]
        else:
            probe = subprocess.run(["docker", "compose", "version"], capture_output=True, timeout=30)
            if probe.returncode != 0:
                pytest.skip("the docker client here has no compose plugin")
            command = ["docker", "compose"]
        result = subprocess.run(
            [*command, "-f", str(DOCKER / "compose.yaml"), "--env-file", str(ENV_EXAMPLE),
             "--profile", "model-server", "--profile", "gpu", "config", "-q"],
            capture_output=True, text=True, timeout=60,
        )
    finally:
        for path in created:
            path.unlink()
        if made:
            secrets.rmdir()
    assert result.returncode == 0, result.stderr


def _dockerfile_cmd() -> list[str]:
    lines = (DOCKER / "Dockerfile").read_text().splitlines()
    start = max(i for i, line in enumerate(lines) if line.startswith("CMD "))
    text = ""
    for line in lines[start:]:
        text += line.rstrip("\\").strip() + " "
        if line.rstrip().endswith("]"):
            break
    return json.loads(text.removeprefix("CMD "))


def test_every_web_launch_caps_websocket_frames_at_the_documented_size(compose):
    """uvicorn's --ws-max-size closes a bigger frame (1009) before the voice consumer holds it."""
    from assistant.consumers import SERVER_MAX_FRAME

    def flag(args: list[str]) -> int | None:
        return int(args[args.index("--ws-max-size") + 1]) if "--ws-max-size" in args else None

    procfiles = {name: next(line for line in (ROOT / name).read_text().splitlines() if line.startswith("web:"))
                 for name in ("Procfile", "Procfile.dev")}
    launches = {
        **{name: shlex.split(line) for name, line in procfiles.items()},
        "compose web": compose["services"]["web"]["command"],
        "Dockerfile": _dockerfile_cmd(),
    }
    assert {name: flag(args) for name, args in launches.items()} == dict.fromkeys(launches, SERVER_MAX_FRAME)


def test_workers_yield_the_cpu_to_the_web_process(compose):
    """A turn's model time must not starve pages, /healthz and the shelf finder on a shared host: the
    workers run niced natively (Procfile) and with a quarter of web's CPU weight in compose."""
    services = compose["services"]
    for name in ("worker-turns", "worker-jobs", "worker-bench"):
        assert services[name]["cpu_shares"] < services["web"].get("cpu_shares", 1024), name
    lines = dict(line.split(":", 1) for line in (ROOT / "Procfile").read_text().splitlines()
                 if line and not line.startswith("#"))
    for name in ("turns", "jobs", "bench"):
        assert shlex.split(lines[name])[:3] == ["nice", "-n", "${WORKER_NICE:-10}"], name
    assert "nice" not in lines["web"]
