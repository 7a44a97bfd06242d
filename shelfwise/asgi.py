"""The ASGI application: HTTP (Django), websockets (Channels) and, as they arrive, MCP.

The web process never loads a language model or Whisper: turns run on Celery workers
(``worker.turns``), which warm their models at start (``SHELFWISE_WARM_UP=1``).
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "shelfwise.settings")
# No persistent database connections in the web process. Under ASGI each request's synchronous
# work runs in a thread of its own, so a connection kept for CONN_MAX_AGE outlives its thread and
# stays open until the garbage collector finds it: under 20 owners' turns and a few shoppers the
# server ran out of connections ("too many clients", measured, README "Load"). Each request closes
# its connection when it finishes instead (a local connection costs a few milliseconds).
os.environ.setdefault("DATABASE_CONN_MAX_AGE", "0")
django_asgi = get_asgi_application()

from shelfwise.startup import check_at_start

check_at_start("web")  # a bad setting stops the process here, not at the first turn

from channels.auth import AuthMiddlewareStack
from channels.routing import ProtocolTypeRouter, URLRouter
from channels.security.websocket import AllowedHostsOriginValidator

from assistant.routing import websocket_urlpatterns
from mcp_gateway.asgi import McpGateway
from shelfwise.health import HealthCheck
from shelfwise.limits import BodyLimit

# /healthz is answered at the edge (shelfwise.health); /mcp and its OAuth protected-resource
# metadata are served by the MCP gateway, the rest by Django.
# The gateway also answers the ASGI lifespan (uvicorn --lifespan on); daphne, which has none,
# gets the gateway started on its first MCP request. Every body is size-checked first.
http_app = HealthCheck(BodyLimit(McpGateway(django_asgi)))

application = ProtocolTypeRouter(
    {
        "http": http_app,
        "lifespan": http_app.lifespan,
        # Websockets carry the signed-in owner's session: same-origin only.
        "websocket": AllowedHostsOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))),
    }
)
