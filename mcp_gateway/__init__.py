"""The MCP gateway: the store's tools in one registry, one execution path, and the MCP server at /mcp.

``registry`` (what models see and the metadata they never do), ``execution.execute_tool`` (the one
way a tool runs, for MCP clients, the assistant and the dashboard), ``policy`` (callers and the
policy hook), ``tools`` (the handlers; ``sales`` for ``get_sales``), ``server`` and ``asgi`` (the official SDK behind
bearer auth). See README.md in this folder.
"""
