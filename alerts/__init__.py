"""Alerts: the store speaks up (low stock, sold out, an unusual day, a draft waiting, a report that failed).

See ``alerts.kinds`` for what is watched and who sees it, ``alerts.services`` for raising one
alert per event, ``alerts.checks`` for the background checks and ``alerts.delivery`` for where
each alert goes.
"""
