from django.apps import AppConfig


class LabConfig(AppConfig):
    name = "lab"
    verbose_name = "Lab (benchmarks, evaluation, training data, training, media building)"
