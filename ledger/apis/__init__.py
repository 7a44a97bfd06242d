"""REST API v1 over the store's books: thin views that call one selector or service and render it.

The store is always the caller's (session membership or a bearer token with the ``api``
scope, resolved by ``tenants``); no URL or argument can name another store's rows.
"""
