"""Websocket routes (Channels): the owner's voice and text turns."""

from django.urls import path  # noqa: F401

websocket_urlpatterns: list = []
