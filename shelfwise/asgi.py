"""The ASGI application: HTTP (Django), websockets (Channels) and, as they arrive, MCP."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "shelfwise.settings")
django_asgi = get_asgi_application()

from channels.routing import ProtocolTypeRouter  # noqa: E402

application = ProtocolTypeRouter({"http": django_asgi})
