from django.apps import AppConfig


class InferenceConfig(AppConfig):
    name = "inference"
    verbose_name = "Inference (model backends per role)"
