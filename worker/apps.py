from django.apps import AppConfig


class WorkerConfig(AppConfig):
    name = "worker"
    verbose_name = "Background tasks"
