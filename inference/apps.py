from django.apps import AppConfig


class InferenceConfig(AppConfig):
    name = "inference"
    verbose_name = "Inference (model backends per role)"

    def ready(self) -> None:
        from inference import checks  # noqa: F401 - registers the system checks
