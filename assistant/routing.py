"""Websocket routes (Channels): the owner's voice and text turns."""

from django.urls import path

from assistant.consumers import VoiceConsumer

websocket_urlpatterns: list = [
    path("ws/stores/<slug:store_slug>/voice", VoiceConsumer.as_asgi(), name="voice-socket"),
]
