from django.apps import AppConfig


class AlertsConfig(AppConfig):
    name = "alerts"
    verbose_name = "Alerts"

    def ready(self) -> None:
        from alerts import receivers
        from ledger.signals import stock_changed

        stock_changed.connect(receivers.on_stock_changed, dispatch_uid="alerts.stock_changed")
