"""Inference backends: one small interface over in-process llama.cpp and OpenAI-compatible servers.

Callers build a ``ModelRequest`` and ask ``get_backend(role).complete(request)``; which backend
and model serve each role comes from the environment (see ``config``).
"""
