"""PostgreSQL backend that runs the application's statements under row-level security (see ``tenants.rls``).

Use it as ``ENGINE = "tenants.db"``; settings switch to it whenever ``DATABASE_URL`` is PostgreSQL.
"""
