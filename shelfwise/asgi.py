"""The ASGI application: HTTP (Django), websockets (Channels) and, as they arrive, MCP."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "shelfwise.settings")
django_asgi = get_asgi_application()

from channels.auth import AuthMiddlewareStack
from channels.routing import ProtocolTypeRouter, URLRouter
from channels.security.websocket import AllowedHostsOriginValidator

from assistant.routing import websocket_urlpatterns
from mcp_gateway.asgi import McpGateway
from shelfwise.limits import BodyLimit

# /mcp and its OAuth protected-resource metadata are served by the MCP gateway, the rest by Django.
# The gateway also answers the ASGI lifespan (uvicorn --lifespan on); daphne, which has none,
# gets the gateway started on its first MCP request. Every body is size-checked first.
http_app = BodyLimit(McpGateway(django_asgi))

application = ProtocolTypeRouter(
    {
        "http": http_app,
        "lifespan": http_app.lifespan,
        # Websockets carry the signed-in owner's session: same-origin only.
        "websocket": AllowedHostsOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))),
    }
)

if os.environ.get("SHELFWISE_WARM_UP", "").lower() in ("1", "true", "yes", "on"):
    # `make run` sets this: load the models and fill the prompt cache before the first turn.
    from assistant.warmup import warm_up_in_background

    warm_up_in_background()
