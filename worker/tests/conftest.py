"""Worker tests run under row-level security on PostgreSQL, like the workers: the code under test
enters each store's context itself, and the tests read a store's jobs inside that store's
context (``as_store``), never past the fence."""
