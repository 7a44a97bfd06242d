"""Shelfwise settings.

Everything comes from the environment through the typed helpers in ``shelfwise.env``; with
nothing set, the embedded defaults run the whole platform on one laptop: SQLite, console
email, Celery tasks run eagerly, the in-memory channel layer, and bundled models.
"""

from __future__ import annotations

from pathlib import Path

from csp.constants import NONCE, NONE, SELF, UNSAFE_INLINE
from django.core.exceptions import ImproperlyConfigured

from shelfwise.env import (
    broker_transport_options,
    env_bool,
    env_broker_url,
    env_database,
    env_email,
    env_float,
    env_int,
    env_list,
    env_or_generated,
    env_rate,
    env_redis_url,
    env_str,
)

BASE_DIR = Path(__file__).resolve().parent.parent
DATA_DIR = Path(env_str("SHELFWISE_DATA_DIR", str(BASE_DIR / "var"))).resolve()
DATA_DIR.mkdir(parents=True, exist_ok=True)

DEBUG = env_bool("DEBUG", False)


def _secret_key() -> str:
    """SECRET_KEY from the environment, else one generated once and kept in the data folder."""
    value = env_or_generated("SECRET_KEY", DATA_DIR / "secret_key", nbytes=50)
    if len(value) < 32:
        raise ImproperlyConfigured("SECRET_KEY must be at least 32 characters long.")
    return value


SECRET_KEY = _secret_key()
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])
# The public URL of this deployment (used in emails, MCP resource metadata and Alexa cards).
PUBLIC_URL = env_str("PUBLIC_URL", "http://127.0.0.1:8000").rstrip("/")

INSTALLED_APPS = [
    "daphne",
    "identity.apps.ShelfwiseAdminConfig",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "csp",
    "allauth",
    "allauth.account",
    "channels",
    "tenants",
    "packs",
    "oauth2_provider",
    "identity",
    "ledger",
    "audit",
    "django_celery_beat",
    "django_celery_results",
    "worker",
    "alerts",
    "inference",
    "speech",
    "assistant",
    "alexa",
    "mcp_gateway",
    "dashboard",
]
# The lab (benchmarks, evaluation, training data, training, media building): on for development;
# a deployment that only serves turns sets SHELFWISE_LAB=false and installs requirements.txt alone.
if env_bool("SHELFWISE_LAB", True):
    INSTALLED_APPS.append("lab")

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "allauth.account.middleware.AccountMiddleware",
    "tenants.middleware.CurrentStoreMiddleware",
    "audit.middleware.WriteAuditMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
]

ROOT_URLCONF = "shelfwise.urls"
WSGI_APPLICATION = "shelfwise.wsgi.application"
ASGI_APPLICATION = "shelfwise.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "tenants.context_processors.current_store",
            ],
        },
    },
]

DATABASES = {"default": env_database("DATABASE_URL", DATA_DIR / "shelfwise.sqlite3")}
DATABASES["default"]["TEST"] = {"NAME": env_str("TEST_DATABASE_NAME") or None}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
IS_POSTGRES = DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"
if IS_POSTGRES:
    # Row-level security: the tenants backend runs the app as an unprivileged role (see tenants.rls).
    DATABASES["default"]["ENGINE"] = "tenants.db"
DATABASE_APP_ROLE = env_str("DATABASE_APP_ROLE", "shelfwise_app")

REDIS_URL = env_redis_url("REDIS_URL")

if REDIS_URL:
    # Redis for the cache, with this process's memory standing in while Redis is down (shelfwise.cache).
    CACHES = {"default": {"BACKEND": "shelfwise.cache.ResilientRedisCache", "LOCATION": REDIS_URL}}
    # channels_redis waits in a server-side BZPOPMIN of 5 s; redis-py 8 gives reads a 5 s socket
    # timeout by default, so a busy moment on the loop let the client give up first and Channels
    # dropped the consumer. Reads here outlast the blocking pop.
    CHANNEL_LAYERS = {"default": {
        "BACKEND": "channels_redis.core.RedisChannelLayer",
        "CONFIG": {"hosts": [{"address": REDIS_URL, "socket_timeout": 30, "socket_connect_timeout": 2}]},
    }}
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "shelfwise"}}
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

# Celery (shelfwise/celery.py). With no broker, tasks run eagerly in the calling process (tests, and
# the `turn` command without a worker). `make run` uses filesystem:// (a folder in SHELFWISE_DATA_DIR:
# one machine, no server); deployments use Redis or RabbitMQ (amqp://).
CELERY_BROKER_URL = env_broker_url("CELERY_BROKER_URL", REDIS_URL)
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
CELERY_TASK_EAGER_PROPAGATES = True
# Task states and results in the database (django-celery-results): the admin lists every task.
CELERY_RESULT_BACKEND = env_str("CELERY_RESULT_BACKEND", "worker.results:ResilientDatabaseBackend")
# A database that refuses for a moment: the state writes (STARTED is written before a task's body)
# are retried, bounded (about 30 s in all), instead of failing the task unrun (worker/results.py).
CELERY_RESULT_BACKEND_ALWAYS_RETRY = True
CELERY_RESULT_BACKEND_MAX_RETRIES = 10
CELERY_RESULT_BACKEND_BASE_SLEEP_BETWEEN_RETRIES_MS = 250
CELERY_RESULT_BACKEND_MAX_SLEEP_BETWEEN_RETRIES_MS = 5000
CELERY_RESULT_EXTENDED = True
CELERY_TASK_TRACK_STARTED = True
# A task is acknowledged when it has finished, and taken back when its worker dies, so a killed
# worker's task runs again elsewhere; every task is written to be safe to run twice.
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = "UTC"
# Queues: turns (workers that hold the models), jobs (reports, email, expiry, schedules), imports
# (catalog imports), bench (benchmark and evaluation runs: minutes of model time each).
CELERY_TASK_DEFAULT_QUEUE = "jobs"
CELERY_TASK_ROUTES = {
    "worker.tasks.turn_task": {"queue": "turns"},
    "worker.tasks.speech_partial_task": {"queue": "turns"},
    "lab.*": {"queue": "bench"},
    "*import*": {"queue": "imports"},
}
# A broker that does not answer makes enqueueing fail within seconds, not hang a request.
CELERY_BROKER_CONNECTION_TIMEOUT = env_float("CELERY_BROKER_CONNECTION_TIMEOUT", 3.0, minimum=0.1)
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 2, "interval_start": 0, "interval_step": 0.5, "interval_max": 1}
CELERY_BROKER_TRANSPORT_OPTIONS = broker_transport_options(CELERY_BROKER_URL, DATA_DIR)
# Alerts (alerts/checks.py): how often each store is checked, the hour (store time) a day is
# compared with its usual, and how long a pending draft waits before the owner is told.
ALERT_CHECK_SECONDS = env_int("ALERT_CHECK_SECONDS", 600, minimum=60)
ALERT_DAY_HOUR = env_int("ALERT_DAY_HOUR", 17, minimum=1, maximum=23)
ALERT_DRAFT_WAIT_MINUTES = env_int("ALERT_DRAFT_WAIT_MINUTES", 30, minimum=1)
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
# Platform tasks; each store's daily reports get their own schedule (worker.schedules).
CELERY_BEAT_SCHEDULE = {
    "drafts-expire": {"task": "worker.tasks.drafts_expire_task", "schedule": 60.0},
    "report-schedules-sync": {"task": "worker.tasks.report_schedules_sync_task", "schedule": 300.0},
    "turn-jobs-reap": {"task": "worker.tasks.turn_jobs_reap_task", "schedule": 60.0},
    "alerts-check": {"task": "alerts.tasks.alerts_check_task", "schedule": float(ALERT_CHECK_SECONDS)},
}
DJANGO_CELERY_RESULTS_TASK_ID_MAX_LENGTH = 191
# How long POST /api/v1/turns waits for the worker before answering 202 with the job's status URL.
SHELFWISE_TURN_WAIT_S = env_float("SHELFWISE_TURN_WAIT_S", 25.0, minimum=0.0)

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
]

# django-allauth: email + password. The user model keeps Django's username column; allauth fills it
# with a unique generated value (ACCOUNT_USER_MODEL_USERNAME_FIELD = None is only for models without one).
ACCOUNT_LOGIN_METHODS = {"email"}
ACCOUNT_SIGNUP_FIELDS = ["email*", "password1*", "password2*"]
ACCOUNT_EMAIL_VERIFICATION = env_str("ACCOUNT_EMAIL_VERIFICATION", "mandatory")
ACCOUNT_EMAIL_VERIFICATION_BY_CODE_ENABLED = False
ACCOUNT_LOGIN_ON_EMAIL_CONFIRMATION = True
ACCOUNT_CONFIRM_EMAIL_ON_GET = False
ACCOUNT_UNIQUE_EMAIL = True
LOGIN_REDIRECT_URL = "/app/"
ACCOUNT_SIGNUP_REDIRECT_URL = "/app/stores/new/"
LOGIN_URL = "/accounts/login/"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = DATA_DIR / "static"
STATIC_ROOT.mkdir(exist_ok=True)
STATICFILES_DIRS = [BASE_DIR / "static"] if (BASE_DIR / "static").is_dir() else []
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedStaticFilesStorage"
    },
}
WHITENOISE_USE_FINDERS = True
MEDIA_URL = "/media/"
MEDIA_ROOT = Path(env_str("MEDIA_ROOT", str(DATA_DIR / "media"))).resolve()
# Small deployments serve uploaded media (shelf photos) from Django; large ones put a CDN in front.
SERVE_MEDIA = env_bool("SERVE_MEDIA", True)

_email = env_email("EMAIL_URL", DATA_DIR / "mail")
globals().update(_email)
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "Shelfwise <reports@shelfwise.local>")

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "tenants.authentication.StoreTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["tenants.permissions.HasStore"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "shelfwise.api_errors.exception_handler",
    "DEFAULT_PAGINATION_CLASS": None,
    # DRF's, with JSON nested too deep refused as a 400 (shelfwise.parsers), form and multipart as usual.
    "DEFAULT_PARSER_CLASSES": [
        "shelfwise.parsers.JSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    # Per token and per user: assistant turns and writes (shelfwise.throttling); 429 beyond.
    "DEFAULT_THROTTLE_CLASSES": ["shelfwise.throttling.CallerRateThrottle"],
    "DEFAULT_THROTTLE_RATES": {
        "turns": env_rate("API_TURNS_RATE", "30/min"),
        "writes": env_rate("API_WRITES_RATE", "60/min"),
    },
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Shelfwise API",
    "DESCRIPTION": "A store's ledger: products, sales, reorder drafts and orders, scoped to the caller's store.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # Swagger UI from the installed drf-spectacular-sidecar package, not a CDN (and within the CSP).
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

# The OAuth 2.1 authorization server (django-oauth-toolkit): authorization code with PKCE (S256)
# only, a consent page that binds each grant to one store (identity.consent), refresh tokens that
# rotate (reuse revokes the family), tokens stored hashed, resource indicators (RFC 8707). Clients
# register themselves at /oauth/register (RFC 7591, public PKCE clients only: identity.registration).
OAUTH_ACCESS_TOKEN_SECONDS = env_int("OAUTH_ACCESS_TOKEN_SECONDS", 3600, minimum=60, maximum=24 * 3600)
OAUTH_REFRESH_TOKEN_DAYS = env_int("OAUTH_REFRESH_TOKEN_DAYS", 30, minimum=1, maximum=365)
# Client registrations per client address per hour.
OAUTH_REGISTRATIONS_PER_HOUR = env_int("OAUTH_REGISTRATIONS_PER_HOUR", 10, minimum=1)
# django-oauth-toolkit's own models (named, as the identity bindings' migrations reference them).
OAUTH2_PROVIDER_APPLICATION_MODEL = "oauth2_provider.Application"
OAUTH2_PROVIDER_ACCESS_TOKEN_MODEL = "oauth2_provider.AccessToken"
OAUTH2_PROVIDER_REFRESH_TOKEN_MODEL = "oauth2_provider.RefreshToken"
OAUTH2_PROVIDER_GRANT_MODEL = "oauth2_provider.Grant"
OAUTH2_PROVIDER_ID_TOKEN_MODEL = "oauth2_provider.IDToken"
OAUTH2_PROVIDER = {
    "SCOPES": {
        "api": "Read and use the store's books over the REST API (and Alexa)",
        "mcp": "Use the store's MCP tools",
        "orders:confirm": "Confirm reorders (store owners only)",
    },
    "DEFAULT_SCOPES": ["mcp"],
    "PKCE_REQUIRED": True,
    "AUTHORIZATION_CODE_EXPIRE_SECONDS": 60,
    "ACCESS_TOKEN_EXPIRE_SECONDS": OAUTH_ACCESS_TOKEN_SECONDS,
    "REFRESH_TOKEN_EXPIRE_SECONDS": OAUTH_REFRESH_TOKEN_DAYS * 24 * 3600,
    "ROTATE_REFRESH_TOKEN": True,
    "REFRESH_TOKEN_REUSE_PROTECTION": True,
    "REQUEST_APPROVAL_PROMPT": "force",
    "ALLOWED_REDIRECT_URI_SCHEMES": ["https", "http"],
    "OAUTH2_VALIDATOR_CLASS": "identity.validator.StoreBoundValidator",
    "OAUTH2_RESPONSE_TYPES_SUPPORTED": ["code"],
    "OAUTH2_GRANT_TYPES_SUPPORTED": ["authorization_code", "refresh_token"],
    "OAUTH2_TOKEN_ENDPOINT_AUTH_METHODS_SUPPORTED": ["none", "client_secret_basic", "client_secret_post"],
    "COMPLIANT_BCP_RFC9700_IMPLICIT_GRANT": True,
    "COMPLIANT_BCP_RFC9700_PASSWORD_GRANT": True,
    "COMPLIANT_BCP_RFC9700_PKCE_METHOD": True,
    "COMPLIANT_BCP_RFC9700_TOKEN_STORAGE": True,
    "COMPLIANT_BCP_RFC9700_ACCESS_TOKEN_TRANSPORT": True,
    "COMPLIANT_BCP_RFC9700_REFRESH_TOKEN": True,
    "COMPLIANT_BCP_RFC9700_PKCE_REQUIRED": True,
}

# Shelfwise behaviour switches.
SALES_REPORT_EMAIL_ENABLED = env_bool("SALES_REPORT_EMAIL_ENABLED", True)
DEMO_STORE_SLUG = env_str("DEMO_STORE_SLUG", "little-india")


# The demo owner's password: DEMO_OWNER_PASSWORD, else generated once per install (var/demo_owner_password).
DEMO_OWNER_PASSWORD = env_or_generated("DEMO_OWNER_PASSWORD", DATA_DIR / "demo_owner_password", nbytes=12)
# How long a reorder draft waits for the owner's yes before it expires.
DRAFT_TTL_MINUTES = env_int("DRAFT_TTL_MINUTES", 60, minimum=1, maximum=7 * 24 * 60)
TOKEN_RATE_LIMIT_PER_MINUTE = env_int("TOKEN_RATE_LIMIT_PER_MINUTE", 120, minimum=1)
# How long an MCP idempotency key (per credential) replays its first result.
IDEMPOTENCY_KEY_TTL_HOURS = env_int("IDEMPOTENCY_KEY_TTL_HOURS", 24, minimum=1, maximum=24 * 30)
# Voice sockets (/ws/stores/<slug>/voice) one user may hold open at once, across their stores.
VOICE_SOCKETS_PER_USER = env_int("VOICE_SOCKETS_PER_USER", 4, minimum=1, maximum=100)
# The public shelf finder: lookups per minute per client address and store.
SHELF_FINDER_RATE_PER_MINUTE = env_int("SHELF_FINDER_RATE_PER_MINUTE", 30, minimum=1)
# The router's fast path (assistant/matcher): the business type's templates and an embedding head
# answer the requests they are sure of without the router model; false sends every request to it.
SHELFWISE_FAST_PATH = env_bool("SHELFWISE_FAST_PATH", True)

# The Alexa custom skill endpoint (/alexa/): requests must name this skill id; with none set, every
# request is refused. ALEXA_VERIFY=false skips the certificate, signature and timestamp checks, and
# is allowed only with DEBUG on. Extra trusted roots (PEM) join the certifi bundle.
ALEXA_SKILL_ID = env_str("ALEXA_SKILL_ID", "").strip()
ALEXA_VERIFY = env_bool("ALEXA_VERIFY", True)
if not ALEXA_VERIFY and not DEBUG:
    raise ImproperlyConfigured("ALEXA_VERIFY=false is allowed only with DEBUG=true: Alexa requests must be verified.")
ALEXA_EXTRA_ROOTS_PEM_FILE = env_str("ALEXA_EXTRA_ROOTS_PEM_FILE", "")
ALEXA_CERT_FETCH_TIMEOUT = env_float("ALEXA_CERT_FETCH_TIMEOUT", 3.0, minimum=0.1)

# Transport and browser hardening: on whenever DEBUG is off (each can be turned off by name for a
# plain-HTTP deployment that is not on localhost). Browsers accept Secure cookies from
# http://localhost and 127.0.0.1, so `make run` keeps working.
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", not DEBUG)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", SESSION_COOKIE_SECURE)
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"
# Sent on HTTPS responses only (SecurityMiddleware); a plain-HTTP local run never sees it.
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0 if DEBUG else 31_536_000, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
# Behind the deployment's TLS proxy, which sets X-Forwarded-Proto (and strips a client's own).
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if env_bool("TRUST_X_FORWARDED_PROTO", not DEBUG) else None
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", False)
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

# Content-Security-Policy (django-csp): scripts and styles from this origin only (an inline script
# needs the request's nonce); inline style attributes are allowed (stock bars, Chart.js, htmx).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF, NONCE],
        "style-src": [SELF, UNSAFE_INLINE],
        "img-src": [SELF, "data:", "blob:"],
        "media-src": [SELF, "blob:"],
        "connect-src": [SELF],
        "font-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    },
}

# Request bodies are capped before Django reads (and spools) them: shelfwise.limits.BodyLimit.
REQUEST_BODY_MAX_BYTES = env_int("REQUEST_BODY_MAX_BYTES", 5 * 1024 * 1024, minimum=1024)
MCP_BODY_MAX_BYTES = env_int("MCP_BODY_MAX_BYTES", 1024 * 1024, minimum=1024)
DATA_UPLOAD_MAX_MEMORY_SIZE = 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = REQUEST_BODY_MAX_BYTES

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {
        "django.db.backends": {"level": "INFO"},
        # The MCP SDK logs every stateless request at INFO ("Terminating session: None").
        "mcp": {"level": env_str("MCP_LOG_LEVEL", "WARNING")},
    },
}
